"""Generators of other people's kept for calibrating the OCR gate only (scripts/ocr_train/calibrate.py).

A third role beside training sources (scripts/ocr_train/sources.py, foreign.py) and the blind
evaluation split (benchmarks/_ocr_third_party.py): no recipe trains on these and the benchmark
never reports them. They are here so that the gate's fit sees drawing the recogniser never saw
(not only type it never saw, as scripts/ocr_train/heldout.py gives), where a confident ddddocr
is often right and our recogniser lost. captchax and verifycode were chosen from PyPI on
2026-12-06 and never read by either reader before they were put here; both turned out nearly
unreadable to both readers. easy-captcha-python and captchagen joined them the same day, after
the split's third run: they had been evaluation generators, seen (looked at) since their first
run, and easy-captcha-python is what the fit lacked, drawing that ddddocr reads and our
recogniser finds unlikely. Since then the benchmark labels both as calibrated on
(benchmarks/_ocr_third_party.py:CALIBRATED_ON); here their settings are varied around the
defaults the benchmark uses.

- captchax 0.1.0 (no licence named on PyPI; used here, not shipped): a Rust port of Ruby's
  rucaptcha, `captchax.create_image(len, difficulty, line, noise)`, every setting varied over its
  documented range. It draws from Rust's own random generator, so its draws are not repeatable.
- verifycode 0.2.2 (MIT): `Generator().generate(code)` with its defaults (200x80, 60 px glyphs
  each turned -30 to 90 degrees, a blur, lines, dots and arcs in six colours). It asks for
  "arial.ttf", which Linux lacks: Liberation Sans (Arial's metric twin, a training face) stands in.
  Codes of 4 to 6 letters of both cases and digits (its limit is 6).
- easy-captcha-python 1.0.0: `SpecCaptcha(width, height, length)`, 110-160 by 40-60 px, 4 to 6
  characters of its default type, its bundled fonts. It draws from `secrets`: not repeatable.
- captchagen 0.1.0: `CaptchaGenerator(fonts_dir, CaptchaConfig(...))` with its rotation, noise
  and colour switches each on or off, 100 to 300 dots and 4 to 10 lines, Debian's DejaVu folder.
All four are pinned in requirements-calibrate.txt.
"""

from __future__ import annotations

import io
import random
import string
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageFont

ALNUM = string.ascii_letters + string.digits
ARIAL_TWIN = Path("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")


def captchax_varied(rng: random.Random) -> tuple[Image.Image, str]:
    import captchax

    text, data = captchax.create_image(len=rng.randint(4, 6), difficulty=rng.randint(1, 4),
                                       line=rng.random() < 0.5, noise=rng.random() < 0.5, format="png")
    return Image.open(io.BytesIO(bytes(data))).convert("RGB"), text


def verifycode_default(rng: random.Random) -> tuple[Image.Image, str]:
    from verifycode.generator import Generator

    maker = Generator.__new__(Generator)  # its __init__ loads "arial.ttf" and nothing else
    maker.is_hash_filename, maker.code, maker._img = False, "", None
    maker.width, maker.height, maker._fontsize = 200, 80, 60
    maker.font = ImageFont.truetype(str(ARIAL_TWIN), 60)
    code = "".join(rng.choice(ALNUM) for _ in range(rng.randint(4, 6)))
    random.seed(rng.getrandbits(64))  # it draws with the global random module
    maker.generate(code)
    return maker._img.convert("RGB"), code


def easy_captcha_varied(rng: random.Random) -> tuple[Image.Image, str]:
    from easy_captcha import SpecCaptcha

    made = SpecCaptcha(width=rng.randint(110, 160), height=rng.randint(40, 60), length=rng.randint(4, 6))
    out = io.BytesIO()
    made.out(out)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB"), made.text()


def captchagen_varied(rng: random.Random) -> tuple[Image.Image, str]:
    from CaptchaGen import CaptchaConfig, CaptchaGenerator

    config = CaptchaConfig(rotate=rng.random() < 0.5, noise=rng.random() < 0.5, random_color=rng.random() < 0.5,
                           dot_count=rng.randint(100, 300), line_count=rng.randint(4, 10))
    random.seed(rng.getrandbits(64))  # it draws with the global random module
    image, text = CaptchaGenerator("/usr/share/fonts/truetype/dejavu", config).generate()
    return image.convert("RGB"), text


GENERATORS: dict[str, Callable[[random.Random], tuple[Image.Image, str]]] = {
    "captchax": captchax_varied,
    "verifycode": verifycode_default,
    "easy-captcha-python": easy_captcha_varied,
    "captchagen": captchagen_varied,
}
