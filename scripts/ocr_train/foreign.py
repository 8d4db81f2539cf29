"""Text CAPTCHAs drawn by other people's generators, as training sources (sixth recipe; first tried in the fifth).

Each is `fn(rng) -> (RGB image, text)` and varies the generator's own settings around its
documented default (length, alphabet, size, colours, fonts where it takes them), so the
recogniser learns the generator's way of drawing rather than one configuration. These
generators draw with the global `random` module: it is re-seeded from `rng` first, so a shard
stays a pure function of its seed. Two needed more (2026-12-07; before it, reruns of the recipe
trained on other pictures, and their accuracy differed by up to 2.3 points): light-captcha seeds
the global generator from the clock, which it is given from `rng` here (`light_clock`), and
flask-simple-captcha adds its digits in the order of a set of strings, which depends on the
process's hash seed, so the character pool is built here in a fixed order.

CaptchaGenerator's `TextCaptcha` is not one: its texts are read right already (1.000 on the
benchmark) and it takes 0.35 s an image to draw. The benchmark keeps these four generators in its `third_party` table, on seeds apart from the
ones drawn here, labelled as trained on; its evaluation-only generators are others
(benchmarks/_ocr_third_party.py), never imported here.
"""

from __future__ import annotations

import base64
import contextlib
import io
import random
import string
import types
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from scripts.ocr_train.fonts import TRAIN_FONTS
from scripts.ocr_train.styles import pick_text

FREEFONT = Path("/usr/share/fonts/truetype/freefont")
FREEFONT_FACES = ("FreeMonoBold.ttf", "FreeSansBold.ttf", "FreeSerifBold.ttf", "FreeSans.ttf", "FreeSerif.ttf")


def _hex(rng: random.Random, lo: int, hi: int) -> str:
    return "#" + "".join(f"{rng.randint(lo, hi):02X}" for _ in range(3))


def _rgb(rng: random.Random, lo: int, hi: int) -> tuple[int, int, int]:
    return (rng.randint(lo, hi), rng.randint(lo, hi), rng.randint(lo, hi))


def _open(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def wheezy(rng: random.Random) -> tuple[Image.Image, str]:
    """wheezy-captcha 3.2.2: its README's drawing chain with varied colours, sizes and fonts."""
    from wheezy.captcha.image import background, captcha, curve, noise, offset, rotate, smooth, text, warp

    random.seed(rng.getrandbits(64))
    fonts = [str(FREEFONT / rng.choice(FREEFONT_FACES)), *rng.sample(TRAIN_FONTS, 2)]
    ink, paper = _hex(rng, 0, 140), _hex(rng, 190, 255)
    drawings = [background(color=paper),
                text(fonts=fonts, color=ink, squeeze_factor=rng.uniform(0.6, 1.0),
                     drawings=[warp(), rotate(angle=rng.choice((10, 25, 35))), offset()])]
    if rng.random() < 0.8:
        drawings.append(curve(color=ink if rng.random() < 0.7 else _hex(rng, 0, 200), width=rng.randint(2, 5)))
    if rng.random() < 0.8:
        drawings.append(noise(number=rng.randint(20, 80), color=paper if rng.random() < 0.5 else ink))
    if rng.random() < 0.7:
        drawings.append(smooth())
    code = pick_text(rng)[:rng.randint(4, 6)] if rng.random() < 0.4 else \
        "".join(rng.sample(string.ascii_uppercase + string.digits, rng.randint(4, 6)))
    w = rng.randint(150, 260)
    image = captcha(drawings=drawings, width=w, height=rng.randint(55, 90))(list(code))
    return image.convert("RGB"), code


def flask_simple(rng: random.Random) -> tuple[Image.Image, str]:
    """flask-simple-captcha 5.5.5: its own text and image functions (what `CAPTCHA.create` calls,
    without the salted hash it also makes, which costs 0.1 s), its bundled RobotoMono, lengths
    4-8, digits or not, colours varied, JPEG or PNG."""
    from flask_simple_captcha.captcha_generation import CAPTCHA
    from flask_simple_captcha.img import convert_b64img, create_text_img
    from flask_simple_captcha.utils import exclude_similar_chars, gen_captcha_text

    random.seed(rng.getrandbits(64))
    dark = rng.random() < 0.6
    maker = CAPTCHA(config={"SECRET_CAPTCHA_KEY": "training-only-key-" + "x" * 32,
                            "EXCLUDE_VISUALLY_SIMILAR": rng.random() < 0.7})
    # Its pools are built from sets of strings, whose order changes with the hash seed: fixed here,
    # with what it would add (digits after the look-alikes are taken out) added in order.
    pool = tuple(sorted(maker.characters))
    length, digits = rng.randint(4, 8), rng.random() < 0.4
    text = gen_captcha_text(length=length, charpool=exclude_similar_chars(pool) + (tuple(string.digits) if digits else ()),
                            exclude_similar=False)
    image = create_text_img(text, rng.choice(sorted(font.path for font in maker.fonts)),
                            back_color=_rgb(rng, 0, 60) if dark else _rgb(rng, 200, 255),
                            text_color=_rgb(rng, 190, 255) if dark else _rgb(rng, 0, 70))
    data = convert_b64img(image, rng.choice(("JPEG", "PNG")))
    return _open(base64.b64decode(data.split(",", 1)[-1])), text


def kaptcha(rng: random.Random) -> tuple[Image.Image, str]:
    """kaptcha 1.0.1: its bundled fonts and chips, lengths 4-6, letters, digits or both, sizes varied."""
    import kaptcha as kaptcha_pkg

    random.seed(rng.getrandbits(64))
    kind = rng.choice(("letter_digit", "letter_digit", "letter", "digit"))
    for _ in range(50):
        try:
            maker = kaptcha_pkg.Captcha(width=rng.randint(160, 240), height=rng.randint(60, 90),
                                        chips=rng.randint(2, 8))
            text, data = getattr(maker, kind)(length=rng.randint(4, 6))
            return _open(base64.b64decode(data.split(",", 1)[-1])), text
        except ValueError:  # a chip of negative size, which today's Pillow refuses to draw: draw again
            continue
    raise RuntimeError("kaptcha could not draw a challenge in 50 tries")


def light_captcha(rng: random.Random) -> tuple[Image.Image, str]:
    """light-captcha 0.0.5: `generate("english")` (six digits) at varied sizes and colours."""
    from light_captcha import CaptchaGenerator

    random.seed(rng.getrandbits(64))
    with light_clock(rng.randrange(LIGHT_TRAIN_MS)):
        made = CaptchaGenerator().generate("english", width=rng.randint(180, 300), height=rng.randint(60, 100))
    return made.data.convert("RGB"), str(made.code)


# light-captcha seeds everything it draws with the clock's milliseconds modulo 10^6: training draws
# the lower half of them, the benchmark the upper half (benchmarks/_ocr_third_party.py).
LIGHT_TRAIN_MS = 500_000


@contextlib.contextmanager
def light_clock(ms: int) -> Iterator[None]:
    """light-captcha's clock stopped at `ms` milliseconds past a whole 1,000 seconds."""
    from light_captcha import generator

    real = generator.time
    generator.time = types.SimpleNamespace(time=lambda: (ms + 0.5) / 1000)
    try:
        yield
    finally:
        generator.time = real


# Eighth recipe (2026-12-06): the second batch of the benchmark's split, seen since its first run
# and the seventh recipe, becomes training sources, each with its settings varied here. The
# benchmark draws their documented defaults on other seeds and labels them as trained on.
def deepcaptcha(rng: random.Random) -> tuple[Image.Image, str]:
    """deepcaptcha 1.0.2: its bundled Roboto cuts; size, length, strike lines, blur, colour and
    perturbation level varied around its Quick Start."""
    import numpy as np
    from deepcaptcha import DeepCaptcha

    random.seed(rng.getrandbits(64))
    np.random.seed(rng.getrandbits(32))  # its pixel perturbations draw from numpy's global generator
    length = rng.randint(4, 7)
    maker = DeepCaptcha(width=rng.randint(50, 62) * length, height=rng.randint(80, 110), text_length=length,
                        num_lines=rng.randint(0, 10), line_thickness=rng.randint(1, 4), blur_level=rng.uniform(0, 0.8),
                        shear_text=rng.random() < 0.8, color_mode=rng.random() < 0.7,
                        noise_density=rng.uniform(0.1, 0.7), ai_resistance_level=rng.choice((0, 1, 1, 2)))
    maker.fonts.sort(key=lambda font: (Path(font.path).name, font.size))  # directory order: fix it
    image, text = maker.generate()
    return image.convert("RGB"), text


def fast_captcha(rng: random.Random) -> tuple[Image.Image, str]:
    """fast-captcha 0.3.2: `img_captcha` in each of its nine bundled faces, length, size, lines and
    dots varied."""
    from fast_captcha import get_ttf, img_captcha

    font = rng.choice(sorted(get_ttf()))
    random.seed(rng.getrandbits(64))
    length = rng.randint(4, 6)
    size = rng.randint(26, 40)
    image, text = img_captcha(code_num=length, width=round(size * length * rng.uniform(0.85, 1.1)) + 10,
                              height=size + rng.randint(6, 16), font_type=font, font_size=size,
                              draw_lines=rng.random() < 0.8, lines_num=rng.randint(1, 6),
                              draw_points=rng.random() < 0.3, img_type=rng.choice(("jpeg", "png")))
    return _open(image.getvalue()), text


def randcaptcha(rng: random.Random) -> tuple[Image.Image, str]:
    """randcaptcha 0.2: `CreateImageCaptcha` with the training faces (the split draws it with
    FreeFont), sizes, lengths and alphabets varied, with and without its curve."""
    import tempfile

    from randcaptcha import CreateImageCaptcha

    fonts = rng.sample(TRAIN_FONTS, 2)
    random.seed(rng.getrandbits(64))
    valid = rng.choice((string.ascii_uppercase + string.digits, string.ascii_letters + string.digits, string.digits))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"captcha.{rng.choice(('jpg', 'png'))}"
        text, _ = CreateImageCaptcha(fonts, rng.randint(20, 36), filename_out=str(path), length=rng.randint(4, 7),
                                     valid=valid, background=_rgb(rng, 170, 235), addgarbage=rng.random() < 0.8)
        image = _open(path.read_bytes())
    return image, text


def pyimgcaptcha(rng: random.Random) -> tuple[Image.Image, str]:
    """pyimgcaptcha 0.1.2: `generate_captcha` (six characters scattered with dots and lines, in
    Pillow's built-in face) at varied picture sizes."""
    import tempfile

    from pyimgcaptcha import generate_captcha

    random.seed(rng.getrandbits(64))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "captcha.png"
        text = generate_captcha(str(path), width=rng.randint(290, 360), height=rng.randint(170, 230))
        image = _open(path.read_bytes())
    return image, text
