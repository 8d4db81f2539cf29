"""Practice-site CAPTCHA generators and the challenge store, in-process."""

from __future__ import annotations

import random
import threading

import pytest

from practice.captcha.generators import CAPTCHA_TYPES, GENERATORS
from practice.captcha.generators.base import Generated
from practice.captcha.store import ChallengeStore


# --- generators and store, in-process --------------------------------------------------


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_generators_vary_and_verify_their_own_answer(kind: str) -> None:
    generator = GENERATORS[kind]
    answers = set()
    for seed in range(12):
        generated = generator.generate(random.Random(seed))
        expected = generator.expected_answer(generated.solution)
        answers.add(expected)
        assert generator.verify(generated.solution, expected)
        assert not generator.verify(generated.solution, "")
        assert not generator.verify(generated.solution, "garbage;1,x")
        if not expected.isdigit():  # numbers may coincide with sizes
            assert expected not in repr(generated.view)
        _check_solution(kind, generated)
    assert len(answers) >= 5


def _check_solution(kind: str, generated: Generated) -> None:
    """Ranges promised by the widget descriptions."""
    s = generated.solution
    if kind == "ocr":
        assert 4 <= len(s["text"]) <= 5 and not set(s["text"]) & set("0O1IL2Z5S8B")
    elif kind == "slider_puzzle":
        assert 70 <= s["gap_x"] <= 250
    elif kind == "image_rotation":
        assert 40 <= s["angle"] <= 320
    elif kind == "visual_reasoning":
        assert s["count"] >= 1 and generated.view["question"].startswith("How many ")
    elif kind in ("icon_click", "text_click"):
        boxes = s["boxes"]
        assert len(boxes) == 3
        assert all(0 <= b[0] < b[2] <= 320 and 0 <= b[1] < b[3] <= 200 for b in boxes)
        assert all(not _overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        if kind == "text_click":
            assert generated.view["instruction"] == "请依次点击：" + "".join(f"「{c}」" for c in s["chars"])
    elif kind == "drag_end":
        assert 130 <= s["target"][0] <= 290 and s["item_start"][0] + 40 < s["target"][0] - s["radius"]


def _overlap(a: list[int], b: list[int]) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def test_tolerances() -> None:
    slider = GENERATORS["slider_puzzle"]
    assert slider.verify({"gap_x": 100, "tolerance": 5}, "105") and slider.verify({"gap_x": 100, "tolerance": 5}, "95")
    assert not slider.verify({"gap_x": 100, "tolerance": 5}, "106")
    assert not slider.verify({"gap_x": 100, "tolerance": 5}, "nan")
    rotation = GENERATORS["image_rotation"]
    assert rotation.verify({"angle": 350, "tolerance": 12}, "2") and rotation.verify({"angle": 45, "tolerance": 12}, "33.5")
    assert not rotation.verify({"angle": 45, "tolerance": 12}, "32.9")
    clicks = {"boxes": [[10, 10, 20, 20], [50, 50, 60, 60]], "tolerance": 4}
    assert GENERATORS["icon_click"].verify(clicks, "6,24;64,46")
    assert not GENERATORS["icon_click"].verify(clicks, "5,24;64,46")
    assert not GENERATORS["icon_click"].verify(clicks, "55,55;15,15")
    assert not GENERATORS["icon_click"].verify(clicks, "15,15;55,55;55,55")
    assert GENERATORS["ocr"].verify({"text": "AB3K"}, " ab3k ")
    assert GENERATORS["visual_reasoning"].verify({"count": 3}, "three")
    assert not GENERATORS["visual_reasoning"].verify({"count": 2}, "²")
    drag = {"target": [200, 100], "radius": 24}
    assert GENERATORS["drag_end"].verify(drag, "224,100") and not GENERATORS["drag_end"].verify(drag, "225,100")


def test_store_expires_and_consumes() -> None:
    now = [0.0]
    store = ChallengeStore(ttl=600, max_items=3, clock=lambda: now[0])
    generated = Generated(solution={"text": "AB"}, images={}, view={})
    first = store.add("ocr", generated)
    assert store.get(first.id) is first and store.get(first.id) is first
    assert store.take(first.id) is first and store.take(first.id) is None
    second = store.add("ocr", generated)
    now[0] = 599.0
    assert store.get(second.id) is second
    now[0] = 600.0
    assert store.get(second.id) is None
    ids = [store.add("ocr", generated).id for _ in range(5)]
    assert len(store) == 3 and store.get(ids[0]) is None and store.get(ids[-1]) is not None


def test_store_take_is_atomic_under_threads() -> None:
    store = ChallengeStore()
    challenge = store.add("ocr", Generated(solution={"text": "AB"}, images={}, view={}))
    winners: list[object] = []
    barrier = threading.Barrier(16)

    def race() -> None:
        barrier.wait()
        if store.take(challenge.id) is not None:
            winners.append(1)

    threads = [threading.Thread(target=race) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
