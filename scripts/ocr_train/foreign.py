"""Text CAPTCHAs drawn by other people's generators, as training sources (sixth recipe; first tried in the fifth).

Each is `fn(rng) -> (RGB image, text)` and varies the generator's own settings around its
documented default (length, alphabet, size, colours, fonts where it takes them), so the
recogniser learns the generator's way of drawing rather than one configuration. These
generators draw with the global `random` module: it is re-seeded from `rng` first, so a shard
stays a pure function of its seed (light-captcha also mixes in the clock; its draws are not
repeatable, which only costs bit-identical shards).

CaptchaGenerator's `TextCaptcha` is not one: its texts are read right already (1.000 on the
benchmark) and it takes 0.35 s an image to draw. The benchmark keeps these four generators in its `third_party` table, on seeds apart from the
ones drawn here, labelled as trained on; its evaluation-only generators are others
(benchmarks/_ocr_third_party.py), never imported here.
"""

from __future__ import annotations

import base64
import io
import random
import string
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
    from flask_simple_captcha.utils import gen_captcha_text

    random.seed(rng.getrandbits(64))
    dark = rng.random() < 0.6
    maker = CAPTCHA(config={"SECRET_CAPTCHA_KEY": "training-only-key-" + "x" * 32,
                            "EXCLUDE_VISUALLY_SIMILAR": rng.random() < 0.7})
    text = gen_captcha_text(length=rng.randint(4, 8), add_digits=rng.random() < 0.4,
                            charpool=tuple(sorted(maker.characters)))  # built from a set: fix the order
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
    made = CaptchaGenerator().generate("english", width=rng.randint(180, 300), height=rng.randint(60, 100))
    return made.data.convert("RGB"), str(made.code)
