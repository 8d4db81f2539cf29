"""Distorted-text CAPTCHA: type the 4-5 characters shown in a 160x60 image."""

from __future__ import annotations

import io
import math
import random
from typing import Any

from PIL import Image, ImageDraw, ImageFilter

from practice.captcha.drawing import hsv, png, textured_background
from practice.captcha.fonts import latin_font
from practice.captcha.generators.base import Generated

# Upper case and digits without look-alikes (0/O/Q-ish, 1/I/L, 2/Z, 5/S, 8/B, 6/G).
CHARSET = "ACDEFHJKMNPRTUVWXY34679"
WIDTH, HEIGHT = 160, 60


def generate(rng: random.Random) -> Generated:
    """Draw rotated, offset characters over noise lines and dots, then wave the image."""
    text = "".join(rng.choice(CHARSET) for _ in range(rng.choice((4, 5))))
    img = textured_background(rng, (WIDTH, HEIGHT), light=True, blob_count=8, grain=0.06)
    slot = (WIDTH - 16) / len(text)
    for i, char in enumerate(text):
        size = rng.randint(28, 34) if len(text) == 5 else rng.randint(31, 38)
        tile = Image.new("L", (size * 2, size * 2), 0)
        ImageDraw.Draw(tile).text((size, size), char, font=latin_font(rng, size), fill=255, anchor="mm")
        tile = tile.rotate(rng.uniform(-28, 28), resample=Image.Resampling.BICUBIC)
        tile = tile.crop(tile.getbbox())
        cx = 8 + slot * (i + 0.5) + rng.uniform(-3, 3)
        cy = HEIGHT / 2 + rng.uniform(-7, 7)
        colour = Image.new("RGB", tile.size, hsv(rng, (0.5, 1.0), (0.15, 0.55)))
        img.paste(colour, (round(cx - tile.width / 2), round(cy - tile.height / 2)), tile)
    draw = ImageDraw.Draw(img)
    for _ in range(rng.randint(2, 4)):
        start = (rng.randint(0, 30), rng.randint(8, HEIGHT - 8))
        end = (rng.randint(WIDTH - 30, WIDTH), rng.randint(8, HEIGHT - 8))
        draw.line([start, end], fill=hsv(rng, (0.3, 0.9), (0.2, 0.6)), width=rng.choice((1, 1, 2)))
    for _ in range(rng.randint(2, 3)):
        x, y = rng.randint(-40, WIDTH), rng.randint(-20, HEIGHT)
        r = rng.randint(20, 60)
        draw.arc((x, y, x + 2 * r, y + r), rng.randint(0, 180), rng.randint(180, 360),
                 fill=hsv(rng, (0.3, 0.9), (0.3, 0.7)), width=1)
    for _ in range(rng.randint(140, 240)):
        draw.point((rng.randrange(WIDTH), rng.randrange(HEIGHT)), fill=hsv(rng, (0, 1), (0.1, 0.8)))
    img = _wave(rng, img).filter(ImageFilter.SMOOTH)
    return Generated(
        solution={"text": text},
        images={"image": png(img)},
        view={"width": WIDTH, "height": HEIGHT},
    )


# The widget's refresh control follows an unreadable challenge with an ordinary one (a site
# that makes only its first challenge hard): how a solver that abstains gets a second chance.
REFRESHED = {"unreadable": ""}


def generate_unreadable(rng: random.Random) -> Generated:
    """A challenge a person can still make out but no local reader is sure of: the text
    washed out to a faint, blurred trace (for the confidence gate's hand-over to the model or
    a person)."""
    made = generate(rng)
    img = Image.open(io.BytesIO(made.images["image"])).convert("RGB")
    wash = Image.new("RGB", img.size, hsv(rng, (0.0, 0.15), (0.85, 0.95)))
    img = Image.blend(img, wash, rng.uniform(0.95, 0.96)).filter(ImageFilter.GaussianBlur(2.2))
    return Generated(solution=made.solution, images={"image": png(img)}, view=made.view)


def _wave(rng: random.Random, img: Image.Image) -> Image.Image:
    """Shift each column up or down along a sine wave."""
    amplitude, period, phase = rng.uniform(1.5, 3.0), rng.uniform(45, 90), rng.uniform(0, 6.3)
    out = img.copy()
    for x in range(img.width):
        dy = round(amplitude * math.sin(2 * math.pi * x / period + phase))
        out.paste(img.crop((x, 0, x + 1, img.height)), (x, dy))
    return out


def verify(solution: dict[str, Any], answer: str) -> bool:
    """Case-insensitive; spaces are ignored."""
    return "".join((answer or "").split()).upper() == solution["text"]


def expected_answer(solution: dict[str, Any]) -> str:
    """The characters."""
    return str(solution["text"])
