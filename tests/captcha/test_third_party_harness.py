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

from _ocr_third_party import FREEFONT, GENERATORS  # noqa: E402

# The Python package behind each evaluation-only generator: none may appear in training code.
EVAL_ONLY_MODULES = {"wheezy-captcha": "wheezy", "flask-simple-captcha": "flask_simple_captcha",
                     "kaptcha": "kaptcha", "captchagenerator-text": "CaptchaGenerator",
                     "light-captcha": "light_captcha", "easy-captcha-python": "easy_captcha",
                     "captchagen": "CaptchaGen"}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_each_generator_draws_an_image_with_its_text(name):
    if name == "wheezy-captcha" and not FREEFONT.is_dir():
        pytest.skip("wheezy draws with GNU FreeFont here (scripts/bench.sh installs fonts-freefont-ttf)")
    challenge = GENERATORS[name](random.Random(f"harness:{name}"))
    image = Image.open(io.BytesIO(challenge.image))
    assert image.width >= 100 and image.height >= 40
    assert re.fullmatch(r"[0-9A-Za-z]{4,8}", challenge.text)
    assert challenge.check(challenge.text) and challenge.check(f" {challenge.text} ")
    assert not challenge.check(challenge.text[:-1]) and not challenge.check("")
    flipped = challenge.text.swapcase()
    if flipped != challenge.text:
        assert challenge.check(flipped) is (not challenge.case_sensitive)


def test_no_evaluation_generator_is_drawn_with_by_the_training_code():
    assert set(GENERATORS) == set(EVAL_ONLY_MODULES)
    training_code = "\n".join(p.read_text() for p in (ROOT / "scripts" / "ocr_train").glob("*.py"))
    for module in EVAL_ONLY_MODULES.values():
        assert not re.search(rf"^\s*(from|import)\s+{module}\b", training_code, re.MULTILINE), module
    assert not re.search(r"^\s*(from|import)\s+\S*_ocr_third_party", training_code, re.MULTILINE)
