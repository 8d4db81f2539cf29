"""The local CAPTCHA solvers, measured on varied synthetic images (tests/captcha/synth.py).

Pure tests: no Django, no database, no network. Each accuracy test generates its images from
a fixed seed, prints the measured accuracy and time, and asserts a floor set below what we
measure (the floors are what the solvers are promised to keep, not what they reach).
Run alone with: .venv/bin/python -m pytest tests/captcha -q -p no:django --noconftest
"""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
import pytest

from tests.captcha import synth, synth_shapes
from workers.captcha.solvers import (
    LocalSolvers, PixelPoint, SliderAnswer, SolverInputError, SolverResult, chars_from_instruction, solve_drag,
    solve_icon_click, solve_ocr, solve_rotation, solve_slider, solve_text_click,
)
from workers.captcha.local import THRESHOLDS
from workers.captcha.solvers import _models
from workers.captcha.solvers._match import outline, outline_support, ring_contrast, shrink
from workers.captcha.solvers.ocr import decode


@pytest.fixture
def report(capsys) -> Callable[[str, int, int, float], None]:
    """Print "name: hits/n = rate (ms per image)" past pytest's capture."""

    def _report(name: str, hits: int, n: int, seconds: float) -> None:
        with capsys.disabled():
            print(f"\n  [captcha] {name}: {hits}/{n} = {hits / n:.2f} ({1000 * seconds / n:.0f} ms/image)", end="")

    return _report


def _inside(point: PixelPoint, box: synth.Box, slack: int = 3) -> bool:
    return box[0] - slack <= point.x <= box[2] + slack and box[1] - slack <= point.y <= box[3] + slack


def _measure(cases: list, solve: Callable, check: Callable) -> tuple[int, float]:
    """(number of cases where check(answer, case) holds, seconds spent solving)."""
    hits, spent = 0, 0.0
    for case in cases:
        start = time.perf_counter()
        answer = solve(case)
        spent += time.perf_counter() - start
        hits += bool(check(answer, case))
    return hits, spent


# ---------------------------------------------------------------- OCR


def test_ocr_reads_lightly_distorted_capitals_and_digits(report):
    rng = random.Random(101)
    cases = [synth.ocr_sample(rng, synth.OCR_STYLES[i % len(synth.OCR_STYLES)]) for i in range(36)]
    hits, spent = _measure(cases, lambda c: solve_ocr(c[0], charset=synth.UPPER_DIGITS), lambda a, c: a == c[1])
    report("ocr, charset A-Z2-9, 6 styles", hits, len(cases), spent)
    assert hits / len(cases) >= 0.85


def test_ocr_with_known_length_is_at_least_as_good(report):
    rng = random.Random(102)
    cases = [synth.ocr_sample(rng) for _ in range(24)]
    hits, spent = _measure(cases, lambda c: solve_ocr(c[0], charset=synth.UPPER_DIGITS, length=len(c[1])),
                           lambda a, c: a == c[1])
    report("ocr, charset and length", hits, len(cases), spent)
    assert hits / len(cases) >= 0.85
    assert all(len(solve_ocr(img, charset=synth.UPPER_DIGITS, length=len(text))) == len(text) for img, text in cases)


def test_ocr_maps_letters_to_the_case_of_the_charset():
    image, text = synth.ocr_sample(random.Random(103), "plain", alphabet="ABCDEFGHJKMNPQRSTUVWXYZ")
    assert solve_ocr(image, charset="abcdefghjkmnpqrstuvwxyz") == text.lower()
    assert solve_ocr(image, charset="ABCDEFGHJKMNPQRSTUVWXYZ") == text


def test_ocr_solves_small_sums(report):
    rng = random.Random(104)
    cases = [synth.arithmetic_sample(rng) for _ in range(24)]
    hits, spent = _measure(cases, lambda c: solve_ocr(c[0]), lambda a, c: a == c[1])
    report("ocr, sums like 7x3=?", hits, len(cases), spent)
    assert hits / len(cases) >= 0.8


def test_our_decoding_matches_ddddocr_classification():
    """Guards the pinned ddddocr: our preprocessing and greedy decode equal its own output."""
    import ddddocr
    from PIL import Image
    import io

    reference = ddddocr.DdddOcr(show_ad=False)
    rng = random.Random(107)
    for _ in range(6):
        image, _ = synth.ocr_sample(rng)
        logp = np.log(_models.ocr_probabilities(Image.open(io.BytesIO(image))) + 1e-12)
        ours = decode(logp, _models.charset(), allowed=None)
        assert ours == reference.classification(image).replace(" ", "")


# ---------------------------------------------------------------- slider


def test_slider_finds_the_gap_within_4px(report):
    rng = random.Random(201)
    cases = [synth.slider_sample(rng) for _ in range(60)]
    hits, spent = _measure(cases, lambda c: solve_slider(c.background, c.piece),
                           lambda a, c: abs(a.gap_left - c.gap_left) <= 4)
    report("slider, gap_left within 4 px", hits, len(cases), spent)
    assert hits / len(cases) >= 0.95


def test_slider_reports_the_piece_offset_and_centre(report):
    rng = random.Random(202)
    cases = [synth.slider_sample(rng) for _ in range(24)]
    answers = [solve_slider(c.background, c.piece) for c in cases]
    offsets = sum(abs(a.piece_left - c.piece_left) <= 1 for a, c in zip(answers, cases))
    report("slider, piece offset within 1 px", offsets, len(cases), 0.0)
    assert offsets / len(cases) >= 0.95
    for answer, case in zip(answers, cases):
        assert abs(answer.gap_centre - case.gap_centre) <= abs(answer.gap_left - case.gap_left) + 1


def test_slider_matches_a_rectangle_cut_straight_out_of_the_picture_whole(report):
    """An opaque piece whose border is the picture (no backing to cut away) is the piece: its
    outline is the rectangle's edge. Before, a blob of the crop was taken for the piece and the
    rectangle's sides, lying on the image's edge, were left out of the outline (0.51 right)."""
    rng = random.Random(205)
    cases = [synth.slider_crop_sample(rng) for _ in range(40)]
    answers = [solve_slider(c.background, c.piece) for c in cases]
    hits = sum(abs(a.gap_left - a.piece_left - c.gap_left) <= 4 for a, c in zip(answers, cases))
    report("slider, rectangle cut from the picture", hits, len(cases), 0.0)
    assert hits / len(cases) >= 0.95
    assert all(a.piece_left == 0 and a.piece_top == 0 for a in answers)  # the whole image is the piece
    confident = sum(a.confidence >= THRESHOLDS["slider_puzzle"] for a in answers)
    assert confident / len(cases) >= 0.9


def test_slider_finds_a_framed_rectangle_hole_by_the_picture_inside_it(report):
    """A rectangle cut from the picture, its hole darkened and framed by a thick light border
    drawn over the hole's own edge, sometimes beside a hole of the same size marked and framed
    the same way: the picture well inside the frame tells the true hole. Before, the piece's
    "inside" reached its image's edge (a whole-image mask was never eroded there), the frame
    swamped the comparison, and a box in the picture or the twin won: 0.62 right with 7 confident
    wrong answers on these 60, against 0.85 with 5 now. Most of the rest are holes on flat
    patches of the picture, with nothing inside to compare, handed on for low confidence; a twin
    hole on a flat patch can still win with confidence (the shading around two identical holes
    differs), a known limit (docs/captcha.md)."""
    rng = random.Random(207)
    cases = [synth.slider_crop_sample(rng, frame=rng.choice((3, 4)), twin_decoys=rng.choice((0, 1)))
             for _ in range(60)]
    answers = [solve_slider(c.background, c.piece) for c in cases]
    hits = sum(abs(a.gap_left - a.piece_left - c.gap_left) <= 4 for a, c in zip(answers, cases))
    report("slider, framed rectangle hole (0-1 twin)", hits, len(cases), 0.0)
    assert hits / len(cases) >= 0.8
    confident_wrong = sum(a.confidence >= THRESHOLDS["slider_puzzle"] and abs(a.gap_left - c.gap_left) > 4
                          for a, c in zip(answers, cases))
    assert confident_wrong <= 5


def _square_puzzle_on_our_backgrounds(rng: random.Random) -> tuple[bytes, bytes, int, int]:
    """CaptchaGenerator's square slider puzzle (a dark, framed hole among the boxes of a
    picture) drawn on one of OUR backgrounds: its drawing is part of the slider's tuning family
    since it was seen, its photographs (go-captcha-py's, in the benchmark) are not."""
    import tempfile
    from pathlib import Path

    import CaptchaGenerator

    picture = synth.background(rng, 720, 420, rng.choice(["scene", "scene", "blobs", "noise", "gradient"]))
    config = CaptchaGenerator.CaptchaConfig(width=720, height=420, random_seed=rng.getrandbits(32))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "picture.jpg"
        picture.convert("RGB").save(path, quality=90)
        made = CaptchaGenerator.SliderPuzzleCaptcha(config).generate(
            name_export="challenge", path_export=folder, image_path=str(path), difficulty="hard", tolerance=10)
        background, piece = (Path(made.metadata[k]).read_bytes() for k in ("background_path", "piece_path"))
    return background, piece, made.answer, made.metadata["tolerance"]


def test_slider_finds_a_framed_hole_outlined_all_round_not_a_box_side(report):
    """A square hole filled dark under a thick light frame, in pictures with boxes and flat
    ground: placements one piece-width off the hole share one framed side with it, and a
    correlation over the whole outline rated them as high as the hole (the inner edge of the
    frame even lowers the hole's own), while the shading sat inside the frame, out of the
    inside ring's reach. The outline's weakest quarter and the shading read inside the frame
    tell them apart: these 30 went from 4 right (25 handed on, 1 confident wrong) to 30 (0.980
    and 0.993 on two sets of 150 drawn apart from these, from 0.127)."""
    rng = random.Random(1207)
    cases = [_square_puzzle_on_our_backgrounds(rng) for _ in range(30)]
    answers = [solve_slider(background, piece) for background, piece, _, _ in cases]
    right = [abs(a.gap_left - a.piece_left - target) <= tolerance for a, (_, _, target, tolerance) in zip(answers, cases)]
    confident = [a.confidence >= THRESHOLDS["slider_puzzle"] for a in answers]
    report("slider, CaptchaGenerator square puzzle on our backgrounds", sum(r and c for r, c in zip(right, confident)), 30, 0.0)
    assert sum(r and c for r, c in zip(right, confident)) >= 27
    assert not any(c and not r for r, c in zip(right, confident))


def test_outline_support_is_the_weakest_side():
    edges = np.zeros((60, 90), np.float32)
    edges[10:50, 10] = edges[10:50, 49] = edges[10, 10:50] = edges[49, 10:50] = 1.0  # a 40 px square
    support = outline_support(edges, np.full((40, 40), 255, np.uint8))
    assert support[10, 10] > 5 * support[10, 49]  # all round beats one shared side
    assert support[10, 49] == pytest.approx(support[10, 40], abs=1e-6) == pytest.approx(0.0, abs=1e-6)


def test_a_ring_read_deeper_than_a_thin_shape_says_nothing():
    """A hollow outline three pixels wide has no inside five pixels in: no reading at all, not
    the outside ring's brightness against an empty one (which a bright flat page would max out)."""
    hollow = np.zeros((40, 40), np.uint8)
    hollow[:3], hollow[-3:], hollow[:, :3], hollow[:, -3:] = 255, 255, 255, 255
    page = np.full((80, 120), 250.0, np.float32)
    assert not ring_contrast(page, hollow, insets=(5,)).any()
    assert ring_contrast(page, np.full((40, 40), 255, np.uint8), insets=(5,)).shape == (41, 81)


def test_an_inside_is_eroded_where_the_shape_meets_the_image_edge():
    square = np.full((12, 12), 255, np.uint8)
    inside = shrink(square, 5)
    assert not inside[:2].any() and not inside[:, -2:].any() and inside[2:10, 2:10].all()
    framed = np.pad(square, 4)  # the same square with a transparent margin: the same inside
    assert (shrink(framed, 5)[4:-4, 4:-4] == inside).all()


def test_an_outline_includes_where_the_shape_meets_the_image_edge():
    square = np.full((12, 12), 255, np.uint8)
    band = outline(square)
    assert band[0].all() and band[-1].all() and band[:, 0].all() and band[:, -1].all()
    assert not band[5, 5]  # the middle is not edge
    framed = np.pad(square, 4)  # the same square with a transparent margin: unchanged by the edge rule
    assert (outline(framed)[4:-4, 4:-4] > 0).sum() == (band > 0).sum()


def test_slider_compares_backgrounds_with_and_without_the_gap(report):
    rng = random.Random(203)
    cases = [synth.slider_pair_sample(rng) for _ in range(20)]
    hits, spent = _measure(cases, lambda c: solve_slider(c[0], c[1]), lambda a, c: abs(a.gap_left - c[2]) <= 4)
    report("slider, two backgrounds", hits, len(cases), spent)
    assert hits / len(cases) >= 0.9


def test_slider_rejects_a_piece_larger_than_the_background():
    case = synth.slider_sample(random.Random(204))
    with pytest.raises(SolverInputError):
        solve_slider(case.piece, case.background)


# ---------------------------------------------------------------- drag


def test_drag_drops_the_item_on_its_slot(report):
    rng = random.Random(301)
    cases = [synth_shapes.drag_sample(rng, with_item=True) for _ in range(30)]
    hits, spent = _measure(cases, lambda c: solve_drag(c[0], c[1]), lambda a, c: _inside(a, c[2]))
    report("drag, item to matching slot", hits, len(cases), spent)
    assert hits / len(cases) >= 0.9


def test_drag_without_item_finds_the_marked_target(report):
    rng = random.Random(302)
    cases = [synth_shapes.drag_sample(rng, with_item=False) for _ in range(30)]
    hits, spent = _measure(cases, lambda c: _or_none(solve_drag, c[0]), lambda a, c: a is not None and _inside(a, c[2]))
    report("drag, marked target", hits, len(cases), spent)
    assert hits / len(cases) >= 0.9


def _or_none(solver: Callable, *args):
    try:
        return solver(*args)
    except SolverInputError:
        return None


# ---------------------------------------------------------------- icon click


def test_icon_click_finds_the_hinted_icons_in_order(report):
    rng = random.Random(401)
    cases = [synth_shapes.icon_click_sample(rng) for _ in range(30)]

    def all_correct(points, case) -> bool:
        return points is not None and len(points) == len(case[2]) and all(map(_inside, points, case[2]))

    hits, spent = _measure(cases, lambda c: _or_none(solve_icon_click, c[0], c[1]), all_correct)
    report("icon_click, all icons right", hits, len(cases), spent)
    assert hits / len(cases) >= 0.7


# ---------------------------------------------------------------- text click


@pytest.mark.parametrize("script, floor", [("cjk", 0.8), ("latin", 0.8)])
def test_text_click_finds_the_characters_in_order(report, script, floor):
    if script == "cjk" and not synth.CJK_FONTS:
        pytest.skip("no CJK font installed")
    rng = random.Random(501 if script == "cjk" else 502)
    cases = [synth_shapes.text_click_sample(rng, script) for _ in range(20)]

    def all_correct(points, case) -> bool:
        return points is not None and len(points) == len(case[2]) and all(map(_inside, points, case[2]))

    hits, spent = _measure(cases, lambda c: _or_none(solve_text_click, c[0], c[1]), all_correct)
    report(f"text_click {script}, all characters right", hits, len(cases), spent)
    assert hits / len(cases) >= floor


@pytest.mark.parametrize("instruction, chars", [
    ("请依次点击「天」「地」「人」", ["天", "地", "人"]),
    ("请按顺序点击“春夏秋”", ["春", "夏", "秋"]),
    ("请依次点击：山 水 火", ["山", "水", "火"]),
    ("Click in order: A, B, C", ["A", "B", "C"]),
    ('click "X" then "Y"', ["X", "Y"]),
])
def test_chars_are_taken_from_the_instruction(instruction, chars):
    assert chars_from_instruction(instruction) == chars


def test_an_instruction_without_characters_is_refused():
    with pytest.raises(SolverInputError):
        chars_from_instruction("please verify you are human")


# ---------------------------------------------------------------- rotation


def test_rotation_turns_landscapes_upright_within_12_degrees(report):
    rng = random.Random(601)
    cases = [synth_shapes.rotation_sample(rng) for _ in range(40)]

    def error(answer: float, case) -> float:
        return abs((answer - case[1] + 180) % 360 - 180)

    hits, spent = _measure(cases, lambda c: solve_rotation(c[0]), lambda a, c: error(a, c) <= 12)
    report("rotation, within 12 degrees", hits, len(cases), spent)
    assert hits / len(cases) >= 0.8


def test_rotation_answer_is_clockwise_degrees():
    from PIL import Image

    upright = synth.scene(random.Random(602), 200, 200)
    for turned_ccw in (40.0, 300.0):
        image = synth.encode(upright.rotate(turned_ccw, resample=Image.BICUBIC, fillcolor=(255, 255, 255)))
        answer = solve_rotation(image)
        assert 0 <= answer < 360
        assert abs((answer - turned_ccw + 180) % 360 - 180) <= 12


# ---------------------------------------------------------------- facade and inputs


def test_facade_times_each_call_and_shapes_json():
    rng = random.Random(701)
    solvers = LocalSolvers()
    image, text = synth.ocr_sample(rng, "plain")
    result = solvers.ocr(image, charset=synth.UPPER_DIGITS)
    assert isinstance(result, SolverResult) and result.kind == "ocr" and result.elapsed_ms > 0
    assert result.to_dict() == {"kind": "ocr", "answer": text, "elapsed_ms": round(result.elapsed_ms, 1),
                                "confidence": round(result.confidence, 3),
                                "confidence_any_case": round(result.confidence_any_case, 3)}
    assert 0.0 <= result.confidence <= 1.0 and 0.0 <= result.confidence_any_case <= 1.0
    case = synth.slider_sample(rng)
    slider = solvers.slider(case.background, case.piece)
    assert isinstance(slider.answer, SliderAnswer)
    assert set(slider.to_dict()["answer"]) >= {"gap_left", "gap_centre", "piece_left"}
    scene, item, _ = synth_shapes.drag_sample(rng)
    assert len(solvers.drag(scene, item).to_dict()["answer"]) == 1
    picture, _ = synth_shapes.rotation_sample(rng)
    rotation = solvers.rotation(picture).to_dict()
    assert set(rotation["answer"]) == {"degrees"}
    # Every kind but drag says how sure it is (the gate's abstention, docs/captcha.md).
    assert 0.0 <= slider.confidence <= 1.0 and 0.0 <= rotation["confidence"] <= 1.0


def test_concurrent_calls_give_the_same_answers():
    rng = random.Random(702)
    images = [synth.ocr_sample(rng)[0] for _ in range(8)]
    sequential = [solve_ocr(img, charset=synth.UPPER_DIGITS) for img in images]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda img: solve_ocr(img, charset=synth.UPPER_DIGITS), images))
    assert parallel == sequential


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG\r\n\x1a\n broken"])
def test_unreadable_images_are_refused(data):
    for solve in (solve_ocr, solve_rotation, solve_drag):
        with pytest.raises(SolverInputError):
            solve(data)


def test_an_image_too_large_is_refused_from_its_header_without_decoding_it(monkeypatch):
    """A page controls the picture: a 20,000-pixel-wide PNG compresses to a few kilobytes and
    would take hundreds of megabytes decoded. Its size is read from the header and refused."""
    import io

    from PIL import Image, ImageFile

    buffer = io.BytesIO()
    Image.new("L", (20_000, 8), 255).save(buffer, "PNG")
    assert len(buffer.getvalue()) < 2_000

    def no_decoding(self):
        raise AssertionError("decoded an image that is too large")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    for solve in (solve_ocr, solve_rotation, solve_drag):
        with pytest.raises(SolverInputError, match="out of range"):
            solve(buffer.getvalue())


def test_text_click_refuses_multi_character_items():
    image, _, _ = synth_shapes.text_click_sample(random.Random(703), "latin")
    with pytest.raises(SolverInputError):
        solve_text_click(image, ["AB"])


def test_every_kind_handed_to_local_solving_has_its_solver_and_no_other_method_is_reached():
    """`LocalCaptchaSolver` dispatches on the detector's kind: each of `LOCAL_KINDS` has a solver;
    a kind outside them (here the name of a helper method) is refused, never called."""
    import asyncio

    from workers.captcha.detect import LOCAL_KINDS, Widget
    from workers.captcha.local import LocalCaptchaSolver
    from workers.errors import StepError

    assert all(callable(getattr(LocalCaptchaSolver, f"_{kind}", None)) for kind in LOCAL_KINDS)

    class Env:
        page = None

    widget = Widget(kind="run", rect={"x": 0, "y": 0, "width": 10, "height": 10}, instruction="")
    with pytest.raises(StepError, match="no local solver for run"):
        asyncio.run(LocalCaptchaSolver()(Env(), widget))
