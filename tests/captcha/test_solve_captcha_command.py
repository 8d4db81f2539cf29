"""`manage.py solve_captcha`: one JSON object per run, clear errors, no database needed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.captcha import synth, synth_shapes

ROOT = Path(__file__).resolve().parents[2]

if "DJANGO_SETTINGS_MODULE" not in os.environ:  # the pure run (-p no:django) has no settings
    pytest.skip("needs pytest-django (Django settings)", allow_module_level=True)


@pytest.fixture(autouse=True)
def _needs_django(request):
    """These tests run under pytest-django (scripts/test.sh); the pure run (-p no:django) skips them."""
    if not request.config.pluginmanager.hasplugin("django"):
        pytest.skip("needs pytest-django (Django settings)")


def run(*args: str) -> dict:
    out = StringIO()
    call_command("solve_captcha", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def files(tmp_path):
    """Write bytes to a file under tmp_path and return its path as text."""

    def _write(name: str, data: bytes) -> str:
        path = tmp_path / name
        path.write_bytes(data)
        return str(path)

    return _write


def test_ocr_prints_kind_answer_and_time(files):
    image, text = synth.ocr_sample(random.Random(11), "plain")
    result = run("--kind", "ocr", "--image", files("ocr.png", image), "--charset", synth.UPPER_DIGITS)
    assert result["kind"] == "ocr" and result["answer"] == text
    assert 0.0 <= result["confidence"] <= 1.0
    assert isinstance(result["elapsed_ms"], float) and result["elapsed_ms"] > 0


def test_slider_answers_gap_and_piece_offset(files):
    case = synth.slider_sample(random.Random(12))
    result = run("--kind", "slider_puzzle", "--image", files("bg.jpg", case.background),
                 "--piece", files("piece.png", case.piece))
    assert result["kind"] == "slider"
    assert abs(result["answer"]["gap_left"] - case.gap_left) <= 4
    assert {"gap_left", "gap_centre", "piece_left"} <= set(result["answer"])


def test_text_click_takes_the_characters_from_the_instruction(files):
    image, chars, boxes = synth_shapes.text_click_sample(random.Random(13), "latin")
    instruction = "Click in order: " + " ".join(chars)
    result = run("--kind", "text_click", "--image", files("tc.jpg", image), "--instruction", instruction)
    assert len(result["answer"]) == len(chars)
    assert all(len(point) == 2 and all(isinstance(v, int) for v in point) for point in result["answer"])


def test_icon_click_drag_and_rotation_answer_in_their_shapes(files):
    rng = random.Random(14)
    picture, hint, boxes = synth_shapes.icon_click_sample(rng)
    icons = run("--kind", "icon_click", "--image", files("icons.jpg", picture), "--hint", files("hint.png", hint))
    assert len(icons["answer"]) == len(boxes)
    scene, _, target = synth_shapes.drag_sample(rng, with_item=False)
    drag = run("--kind", "drag", "--image", files("scene.jpg", scene))
    assert drag["kind"] == "drag" and len(drag["answer"]) == 1
    turned, _ = synth_shapes.rotation_sample(rng)
    rotation = run("--kind", "image_rotation", "--image", files("round.png", turned))
    assert set(rotation["answer"]) == {"degrees"} and 0 <= rotation["answer"]["degrees"] < 360


@pytest.mark.parametrize("kind", ["visual_reasoning", "oneclick_login"])
def test_types_without_a_local_solver_exit_3(files, kind):
    with pytest.raises(CommandError, match="no local solver") as error:
        run("--kind", kind, "--image", files("x.png", synth.encode(synth.background(random.Random(1), 40, 40))))
    assert error.value.returncode == 3


def test_unknown_kind_exits_2(files):
    with pytest.raises(CommandError, match="unknown kind") as error:
        run("--kind", "crossword", "--image", files("x.png", b"whatever"))
    assert error.value.returncode == 2


def test_unreadable_or_missing_files_exit_2(files, tmp_path):
    with pytest.raises(CommandError, match="cannot read") as missing:
        run("--kind", "ocr", "--image", str(tmp_path / "absent.png"))
    with pytest.raises(CommandError, match="unreadable image") as garbage:
        run("--kind", "ocr", "--image", files("bad.png", b"not an image"))
    assert missing.value.returncode == garbage.value.returncode == 2


@pytest.mark.parametrize("kind, flag", [("slider", "--piece"), ("icon_click", "--hint"), ("text_click", "--instruction")])
def test_missing_required_input_exits_2(files, kind, flag):
    image = synth.encode(synth.background(random.Random(2), 60, 40))
    with pytest.raises(CommandError, match=flag) as error:
        run("--kind", kind, "--image", files("x.png", image))
    assert error.value.returncode == 2


def test_command_line_prints_json_and_sets_exit_status(files):
    image, text = synth.ocr_sample(random.Random(15), "plain")
    path = files("ocr.png", image)
    solved = subprocess.run([sys.executable, "manage.py", "solve_captcha", "--kind", "ocr", "--image", path,
                             "--charset", synth.UPPER_DIGITS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["answer"] == text
    refused = subprocess.run([sys.executable, "manage.py", "solve_captcha", "--kind", "visual_reasoning", "--image",
                              path], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 3 and "no local solver" in refused.stderr
