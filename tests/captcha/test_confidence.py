"""Every local answer carries a confidence, and it separates answers worth acting on from
guesses (the gate's abstention, workers/captcha/local.py:THRESHOLDS). Pure tests on our own
generators (tests/captcha/synth.py and the practice site's), seeds apart from the ones the
thresholds were set on. The end-to-end hand-over is tests/e2e/test_captcha_confidence.py."""

from __future__ import annotations

import random

import pytest

from practice.captcha.generators import icon_click, image_rotation, ocr, text_click
from tests.captcha import synth
from workers.captcha.gate import Abstained
from workers.captcha.local import THRESHOLDS, check_confidence
from workers.captcha.solvers import LocalSolvers, read_text, solve_slider
from workers.captcha.solvers.icon_click import read_icon_click
from workers.captcha.solvers.rotation import read_rotation
from workers.captcha.solvers.text_click import read_text_click


def test_an_answer_under_its_kinds_threshold_abstains_with_the_figures_in_its_reason():
    with pytest.raises(Abstained) as caught:
        check_confidence("slider_puzzle", 0.31, {"gap_left": 12})
    assert str(caught.value) == f"abstained: confidence 0.31 < {THRESHOLDS['slider_puzzle']:.2f}"
    assert caught.value.detail == {"gap_left": 12} and caught.value.threshold == THRESHOLDS["slider_puzzle"]
    check_confidence("slider_puzzle", THRESHOLDS["slider_puzzle"], {})  # at the threshold: acted
    check_confidence("oneclick_login", 0.0, {})  # kinds without a threshold never abstain
    assert set(THRESHOLDS) == {"ocr", "slider_puzzle", "image_rotation", "icon_click", "text_click"}
    assert all(0 < t < 1 for t in THRESHOLDS.values())


def test_same_shape_decoy_holes_are_told_apart_by_the_pieces_picture_or_abstained_on():
    rng = random.Random(611)
    cases = [synth.slider_sample(rng, twin_decoys=1 + i % 2) for i in range(60)]
    answers = [solve_slider(c.background, c.piece) for c in cases]
    right = [abs(a.gap_left - c.gap_left) <= 4 for a, c in zip(answers, cases)]
    confident = [ok for a, ok in zip(answers, right) if a.confidence >= THRESHOLDS["slider_puzzle"]]
    print(f"\n  [captcha] slider with same-shape decoys: {sum(right)}/60 right, {len(confident)} confident, "
          f"{sum(confident)} of them right", end="")
    assert sum(right) / len(cases) >= 0.8  # the shape alone is a coin toss between twin holes
    assert len(confident) >= 30 and sum(confident) / len(confident) >= 0.85  # measured 36/41


def test_a_lone_hole_is_found_with_confidence():
    rng = random.Random(612)
    cases = [synth.slider_sample(rng) for _ in range(40)]
    results = [LocalSolvers().slider(c.background, c.piece) for c in cases]
    assert all(0.0 <= r.confidence <= 1.0 for r in results)
    confident = sum(r.confidence >= THRESHOLDS["slider_puzzle"] for r in results)
    assert confident / len(cases) >= 0.85


def test_ocr_is_sure_of_the_practice_text_and_unsure_of_its_unreadable_variant():
    rng = random.Random(613)
    plain = [read_text(ocr.generate(rng).images["image"]) for _ in range(12)]
    washed = [read_text(ocr.generate_unreadable(rng).images["image"]) for _ in range(12)]
    assert sum(r.confidence >= THRESHOLDS["ocr"] for r in plain) >= 11
    assert all(not r.text or r.confidence < THRESHOLDS["ocr"] for r in washed)


def test_rotation_and_click_answers_carry_a_confidence_above_threshold_on_their_practice_widgets():
    rng = random.Random(614)
    rotation = [read_rotation(image_rotation.generate(rng).images["image"])[1] for _ in range(6)]
    icons = []
    for _ in range(6):
        made = icon_click.generate(rng)
        icons.append(read_icon_click(made.images["image"], made.images["hint"])[1])
    texts = []
    for _ in range(4):
        made = text_click.generate(rng)
        texts.append(read_text_click(made.images["image"], made.solution["chars"])[1])
    # A lone practice picture is answered where the route has five tries (its threshold there).
    from workers.captcha.local import rotation_threshold

    lone = {"image_rotation": rotation_threshold(5, "priors")}
    for kind, values in (("image_rotation", rotation), ("icon_click", icons), ("text_click", texts)):
        assert all(0.0 <= v <= 1.0 for v in values), (kind, values)
        assert sum(v >= lone.get(kind, THRESHOLDS[kind]) for v in values) >= len(values) - 1, (kind, values)


def test_the_lone_rotation_gate_was_fitted_for_this_reader():
    """scripts/calibrate_rotation.py fits it on photographs; a change to the lone-picture reader
    must be followed by a new fit (else the route hands every lone picture on)."""
    import hashlib
    import json
    from pathlib import Path

    from workers.captcha import local
    from workers.captcha.solvers import rotation

    gate = json.loads(local.ROTATION_GATE.read_text())
    source = Path(rotation.__file__).read_bytes().replace(b"\r\n", b"\n")
    assert gate["reader_sha256"] == local.lone_reader_sha256() == hashlib.sha256(source).hexdigest()
    thresholds = [gate["thresholds"][str(tries)] for tries in range(1, 11)]
    fitted = [t for t in thresholds if t is not None]
    assert fitted == sorted(fitted, reverse=True) and thresholds.index(fitted[0]) == thresholds.count(None)
    assert local.rotation_threshold(3, "priors") == gate["thresholds"]["3"]


def test_a_lone_picture_is_trusted_only_with_enough_tries_and_a_reference_match_as_before(tmp_path, monkeypatch):
    from workers.captcha import local

    assert local.rotation_threshold(1, "priors") == local.NEVER  # no confidence is right 98% of the time
    assert local.rotation_threshold(3, "priors") > local.rotation_threshold(5, "priors")
    assert local.rotation_threshold(1, "reference") == local.rotation_threshold(3, "reference") == THRESHOLDS["image_rotation"]
    assert local.rotation_threshold(50, "priors") == local.rotation_threshold(10, "priors")

    stale = tmp_path / "rotation_gate.json"
    stale.write_text('{"reader_sha256": "another reader", "thresholds": {"3": 0.2}}')
    monkeypatch.setattr(local, "ROTATION_GATE", stale)
    local._rotation_gate.cache_clear()
    try:  # a gate for another reader, or none: lone pictures are handed on, a reference match is not
        assert local.rotation_threshold(10, "priors") == local.NEVER
        monkeypatch.setattr(local, "ROTATION_GATE", tmp_path / "missing.json")
        local._rotation_gate.cache_clear()
        assert local.rotation_threshold(10, "priors") == local.NEVER
        assert local.rotation_threshold(1, "reference") == THRESHOLDS["image_rotation"]
    finally:
        local._rotation_gate.cache_clear()
