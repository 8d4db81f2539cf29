"""The training family: every generator the recogniser is trained and validated on.

Each source is `fn(rng) -> (RGB image, text)` and draws only from the seeded `rng` (sources
built on packages that use the global `random` module get it re-seeded from `rng` first), so
a shard of data is a pure function of its seed. The benchmark's third-party generators
(benchmarks/_ocr_third_party.py) are deliberately absent: nothing here may import them.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable

from PIL import Image

from scripts.ocr_train import styles
from scripts.ocr_train.fonts import TRAIN_FONTS, multicolor_fonts

Source = Callable[[random.Random], tuple[Image.Image, str]]


def own(rng: random.Random) -> tuple[Image.Image, str]:
    """scripts/ocr_train/styles.py: many styles, lengths 4-8, both cases."""
    return styles.draw(rng)


def multicolor(rng: random.Random) -> tuple[Image.Image, str]:
    """multicolorcaptcha 1.2.0: 4 upper-case letters/digits on one or four coloured tiles."""
    from multicolorcaptcha import CaptchaGenerator

    random.seed(rng.getrandbits(64))
    generator = CaptchaGenerator(0)
    generator.l_fonts = list(multicolor_fonts())  # FreeFont stays out of training
    mode = rng.choice(("ascii", "ascii", "nums", "hex"))
    result = generator.gen_captcha_image(difficult_level=rng.randint(0, 3), chars_mode=mode,
                                         multicolor=rng.random() < 0.5, margin=False)
    return result.image.convert("RGB"), result.characters


def claptcha(rng: random.Random) -> tuple[Image.Image, str]:
    """claptcha 0.3.3: per-letter transforms, a line and white noise."""
    from claptcha import Claptcha

    _pillow_compat()
    random.seed(rng.getrandbits(64))
    text = styles.pick_text(rng)
    h = rng.randint(50, 90)
    size = (round(h * len(text) * rng.uniform(0.5, 0.8)) + 20, h)
    c = Claptcha(text, rng.choice(TRAIN_FONTS), size=size, margin=(rng.randint(5, 20), rng.randint(5, 15)),
                 noise=rng.choice((0.0, 0.1, 0.3, 0.6)))
    _, image = c.image
    return image.convert("RGB"), text


def _pillow_compat() -> None:
    """claptcha 0.3.3 calls `FreeTypeFont.getsize`, removed in Pillow 10: give it back (training only)."""
    from PIL import ImageFont

    if not hasattr(ImageFont.FreeTypeFont, "getsize"):
        def getsize(font, text):
            left, top, right, bottom = font.getbbox(text)
            return right, bottom

        ImageFont.FreeTypeFont.getsize = getsize


def practice(rng: random.Random) -> tuple[Image.Image, str]:
    """The practice site's own text CAPTCHA (practice/captcha/generators/ocr.py)."""
    from practice.captcha.generators import ocr

    made = ocr.generate(rng)
    return Image.open(io.BytesIO(made.images["image"])).convert("RGB"), made.solution["text"]


# Share of each source in the training and validation data.
SOURCES: dict[str, tuple[Source, float]] = {
    "own": (own, 0.55),
    "multicolorcaptcha": (multicolor, 0.15),
    "claptcha": (claptcha, 0.20),
    "practice": (practice, 0.10),
}
