"""The third-party text-CAPTCHA harness (benchmarks/_ocr_third_party.py): each generator draws a
challenge paired with its text and judges answers the way its users would, and the training
code never draws with one of them."""

from __future__ import annotations

import io
import random
import re
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _ocr_third_party import CALIBRATED_ON, FREEFONT, GENERATORS, TRAINED_ON  # noqa: E402
from _rotation_third_party import GENERATORS as ROTATIONS  # noqa: E402
from _slider_third_party import GENERATORS as SLIDERS, OWN as OWN_SLIDERS  # noqa: E402

# The Python package behind each generator: none may appear in training code, except those that
# are training sources since the sixth and eighth recipes (TRAINED_ON: scripts/ocr_train/foreign.py).
EVAL_ONLY_MODULES = {"wheezy-captcha": "wheezy", "flask-simple-captcha": "flask_simple_captcha",
                     "kaptcha": "kaptcha", "captchagenerator-text": "CaptchaGenerator",
                     "light-captcha": "light_captcha", "easy-captcha-python": "easy_captcha",
                     "captchagen": "CaptchaGen", "deepcaptcha": "deepcaptcha", "fast-captcha": "fast_captcha",
                     "randcaptcha": "randcaptcha", "pyimgcaptcha": "pyimgcaptcha",
                     # JavaScript (benchmarks/node): the training code must not call node at all
                     "svg-captcha": "node", "trek-captcha": "node",
                     # PHP and Perl (benchmarks/debian): nor php or perl
                     "gregwar-captcha": "php", "text-captcha": "php", "gd-securityimage": "perl",
                     "authen-captcha": "perl",
                     # The fifth batch: JavaScript (benchmarks/node) and Ruby (benchmarks/debian)
                     "captchapng": "node", "simple-captcha2": "ruby",
                     # The sixth batch: JavaScript run in Chromium through Playwright (its module from
                     # benchmarks/node) and Python
                     "react-simple-captcha": "playwright", "graphic-verification-code": "gvcode",
                     # The seventh batch: Python, and JavaScript run in Chromium through Playwright
                     "discord-py-captcha": "discord_captcha", "gbkomi-captcha": "gbkomi_captcha",
                     "react-captcha-code": "playwright"}
# Generators that draw with GNU FreeFont here (scripts/bench.sh installs fonts-freefont-ttf).
NEEDS_FREEFONT = {"wheezy-captcha", "randcaptcha", "text-captcha"}
# randcaptcha sizes its image to its 25 px font (about 35 px high); the Perl ones are small by
# default, and so are captchapng's README call (80x30), simple_captcha2's defaults (100x28),
# react-simple-captcha's canvas for six characters (150x30) and graphic-verification-code's (120x30).
MIN_SIZE = {"randcaptcha": (100, 30), "gd-securityimage": (80, 30), "authen-captcha": (100, 35),
            "captchapng": (80, 30), "simple-captcha2": (100, 28), "react-simple-captcha": (150, 30),
            "graphic-verification-code": (120, 30)}
# The second to seventh batches (2026-12-06 and 07): the text each draws (charset and length) and whether
# its users judge case.
LATER_BATCHES = {"deepcaptcha": (r"[A-Z0-9]{5}", True), "fast-captcha": (r"[A-Za-z0-9]{4}", False),
                "randcaptcha": (r"[A-Z0-9]{5}", True), "pyimgcaptcha": (r"[A-HJ-NP-Z2-9]{6}", True),
                # The third batch (2026-12-06, JavaScript).
                "svg-captcha": (r"[A-Za-z0-9]{4}", True), "trek-captcha": (r"[a-z]{5}", True),
                # The fourth batch (2026-12-06, PHP and Perl from Debian).
                "gregwar-captcha": (r"[a-np-zA-Z1-9]{5}", False), "text-captcha": (r"[a-z]{8}", True),
                "gd-securityimage": (r"[0-9]{6}", True), "authen-captcha": (r"[a-z2-9]{5}", False),
                # The fifth batch (2026-12-06, JavaScript and Ruby from Debian; blind).
                "captchapng": (r"[1-9][0-9]{3}", True), "simple-captcha2": (r"[A-Z]{5,6}", False),
                # The sixth batch (2026-12-06, JavaScript in Chromium and Python; blind).
                "react-simple-captcha": (r"[A-Za-z0-9]{6}", True),
                "graphic-verification-code": (r"[a-hjkmnp-yA-HJKMNP-Y3-9]{4}", True),
                # The seventh batch (2026-12-07, Python and JavaScript in Chromium; blind).
                "discord-py-captcha": (r"[A-Za-z0-9]{6}", True), "gbkomi-captcha": (r"[0-9]{4}", True),
                "react-captcha-code": (r"[1-9a-np-z]{4}(?:[1-9a-np-z]{2})?", True)}

# Text_CAPTCHA takes its phrase from Text_Password, which draws from PHP's `random_int` (the
# system's CSPRNG): nothing seeds it, so its draws are not repeatable run to run.
UNSEEDED = {"text-captcha"}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_each_generator_draws_an_image_with_its_text(name):
    if name in NEEDS_FREEFONT and not FREEFONT.is_dir():
        pytest.skip(f"{name} draws with GNU FreeFont here (scripts/bench.sh installs fonts-freefont-ttf)")
    challenge = GENERATORS[name](random.Random(f"harness:{name}"))
    image = Image.open(io.BytesIO(challenge.image))
    width, height = MIN_SIZE.get(name, (100, 40))
    assert image.width >= width and image.height >= height
    assert re.fullmatch(r"[0-9A-Za-z]{4,8}", challenge.text)
    assert challenge.check(challenge.text) and challenge.check(f" {challenge.text} ")
    assert not challenge.check(challenge.text[:-1]) and not challenge.check("")
    flipped = challenge.text.swapcase()
    if flipped != challenge.text:
        assert challenge.check(flipped) is (not challenge.case_sensitive)


@pytest.mark.parametrize("name", sorted(LATER_BATCHES))
def test_later_batches_pair_each_image_with_its_text_and_judge_case_as_their_users(name):
    if name in NEEDS_FREEFONT and not FREEFONT.is_dir():
        pytest.skip(f"{name} draws with GNU FreeFont here (scripts/bench.sh installs fonts-freefont-ttf)")
    pattern, case_sensitive = LATER_BATCHES[name]
    rng = random.Random(f"harness:second:{name}")
    for _ in range(3):
        challenge = GENERATORS[name](rng)
        Image.open(io.BytesIO(challenge.image)).load()
        assert re.fullmatch(pattern, challenge.text), challenge.text
        assert challenge.case_sensitive is case_sensitive
        assert challenge.check(challenge.text.lower()) is (not case_sensitive or challenge.text.lower() == challenge.text)
    if name in UNSEEDED:
        return
    # Seeded from the rng: the same seed draws the same challenge.
    first, again = (GENERATORS[name](random.Random(f"harness:repeat:{name}")) for _ in range(2))
    assert (first.text, first.image) == (again.text, again.image)


def test_no_evaluation_generator_is_drawn_with_by_the_training_code():
    assert set(GENERATORS) == set(EVAL_ONLY_MODULES)
    calibration = ROOT / "scripts" / "ocr_train" / "calibration_only.py"
    training_code = "\n".join(p.read_text() for p in (ROOT / "scripts" / "ocr_train").glob("*.py") if p != calibration)
    for name, module in EVAL_ONLY_MODULES.items():
        imported = re.search(rf"^\s*(from|import)\s+{module}\b", training_code, re.MULTILINE)
        # Exactly the generators labelled as trained on are drawn with by the training code...
        assert bool(imported) is (name in TRAINED_ON), module
        # ...and exactly those labelled as calibrated on by the gate's calibration.
        calibrated = re.search(rf"^\s*(from|import)\s+{module}\b", calibration.read_text(), re.MULTILINE)
        assert bool(calibrated) is (name in CALIBRATED_ON), module
    assert not re.search(r"^\s*(from|import)\s+\S*_ocr_third_party", training_code, re.MULTILINE)
    assert "benchmarks/node" not in training_code and "draw.js" not in training_code
    assert not re.search(r"benchmarks/debian|draw\.php|draw\.pl\b|draw\.rb\b", training_code)


# Generators kept for fitting the OCR gate only (scripts/ocr_train/calibration_only.py): a third
# role, neither trained on nor reported.
CALIBRATION_ONLY_MODULES = {"captchax": "captchax", "verifycode": "verifycode"}


# Added after the weights' manifest was last written (scripts/ocr_train/sources.py, which the recipe's
# hash covers): evaluation only all the same, and not yet named there.
AFTER_THE_MANIFEST = {"discord-py-captcha", "gbkomi-captcha", "react-captcha-code"}


def test_the_manifest_names_every_generator_the_recipe_does_not_train_on():
    text = (ROOT / "scripts/ocr_train/sources.py").read_text()
    named = re.findall(r'"([^"]+)"', re.search(r"EVAL_ONLY = \((.*?)\)", text, re.S).group(1))
    assert not AFTER_THE_MANIFEST & TRAINED_ON and AFTER_THE_MANIFEST <= set(GENERATORS)
    assert set(named) == set(GENERATORS) - TRAINED_ON - AFTER_THE_MANIFEST


def test_calibration_generators_are_neither_trained_on_nor_evaluated():
    from scripts.ocr_train import calibration_only  # (data.py needs the training requirements: read its list)

    assert set(calibration_only.GENERATORS) == set(CALIBRATION_ONLY_MODULES) | CALIBRATED_ON
    assert set(calibration_only.GENERATORS) & set(GENERATORS) == CALIBRATED_ON  # reported, labelled so
    data_code = re.search(r"_DATA_CODE = \((.*?)\)", (ROOT / "scripts/ocr_train/data.py").read_text(), re.S).group(1)
    names = re.findall(r'"([^"]+)"', data_code)
    assert "scripts/ocr_train/sources.py" in names
    recipe = "\n".join((ROOT / name).read_text() for name in (*names, "scripts/ocr_train/train.py",
                                                                "scripts/ocr_train/model.py"))
    benchmarks = "\n".join(p.read_text() for p in (ROOT / "benchmarks").glob("*.py"))
    for module in (*CALIBRATION_ONLY_MODULES.values(), "calibration_only"):
        for code in (recipe, benchmarks):
            assert not re.search(rf"^\s*(from|import)\s+\S*\b{module}\b", code, re.MULTILINE), module
        assert module not in (ROOT / "requirements-train.txt").read_text()  # the recipe's hash covers that file


@pytest.mark.parametrize("name", sorted({**SLIDERS, **OWN_SLIDERS}))
def test_each_slider_generator_accepts_its_own_answer_and_refuses_a_far_one(name):
    """What a slider generator's judge says is what the benchmark counts: its own expected
    placement passes, one 60 px off (past every tolerance used) does not."""
    challenge = {**SLIDERS, **OWN_SLIDERS}[name](random.Random(f"harness:{name}"))
    assert Image.open(io.BytesIO(challenge.background)).width > Image.open(io.BytesIO(challenge.piece)).width
    x, y = challenge.answer
    assert challenge.check(x, y)
    assert not challenge.check(x + 60, y) and not challenge.check(x - 60, y)


@pytest.mark.parametrize("name", sorted(ROTATIONS))
def test_each_rotation_generator_accepts_its_own_turn_and_refuses_the_opposite(name):
    challenge = ROTATIONS[name](random.Random(f"harness:{name}"))
    assert challenge.check(challenge.answer) and challenge.check(challenge.answer + 3)
    assert not challenge.check(challenge.answer + 180)


def test_a_lone_picture_rotation_is_judged_as_the_nearest_of_its_three_choices():
    """CaptchaGenerator's rotate captcha asks clockwise, counter-clockwise or 180: a clockwise
    answer counts as the choice it is nearest to, and 0 degrees (upright) is none of them."""
    challenge = ROTATIONS["captchagenerator-rotate"](random.Random("harness:choices"))
    assert challenge.reference is None
    assert challenge.check(challenge.answer + 40) and not challenge.check(challenge.answer + 50)
    assert not challenge.check(0) and not challenge.check(30)


def test_the_rotate_captchas_answer_turns_its_picture_upright(tmp_path, monkeypatch):
    """The convention, on a picture of our own whose up and right can be read from its colours
    (green fades downwards, red grows to the right): the picture the generator shows, turned
    clockwise by the answer the benchmark expects, stands upright again, for every choice."""
    import numpy as np

    import _slider_third_party

    columns, rows = np.meshgrid(np.linspace(0, 255, 600), np.linspace(255, 0, 600))
    picture = np.stack([columns, rows, np.full_like(rows, 128)], axis=-1).astype(np.uint8)
    Image.fromarray(picture).save(tmp_path / "picture.png")
    monkeypatch.setattr(_slider_third_party, "_photos", lambda: [str(tmp_path / "picture.png")])
    rng, seen = random.Random("harness:upright"), set()
    for _ in range(12):
        challenge = ROTATIONS["captchagenerator-rotate"](rng)
        shown = Image.open(io.BytesIO(challenge.piece)).convert("RGB")
        upright = np.asarray(shown.rotate(-challenge.answer, expand=True), np.float32)  # PIL turns counter-clockwise
        height, width = upright.shape[:2]
        middle = upright[height // 4:3 * height // 4, width // 4:3 * width // 4]
        half_h, half_w = middle.shape[0] // 2, middle.shape[1] // 2
        assert middle[:half_h, :, 1].mean() > middle[half_h:, :, 1].mean() + 20, challenge.answer
        assert middle[:, half_w:, 0].mean() > middle[:, :half_w, 0].mean() + 20, challenge.answer
        seen.add(challenge.answer)
    assert seen == {90, 180, 270}
