"""Visual reasoning: count the shapes matching a question ("How many red circles ...?")."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image, ImageDraw

from practice.captcha.drawing import SUPERSAMPLE, downsample, place, png, textured_background
from practice.captcha.generators.base import Generated
from practice.captcha.shapes import polygon

WIDTH, HEIGHT = 320, 200
COLOURS = {
    "red": (214, 40, 40),
    "green": (34, 150, 64),
    "blue": (37, 99, 235),
    "yellow": (240, 196, 20),
}
KINDS = ("circle", "square", "triangle")
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten").split()


def generate(rng: random.Random) -> Generated:
    """6-10 non-overlapping shapes and a question whose answer is at least one."""
    count = rng.randint(6, 10)
    shapes = [(rng.choice(KINDS), rng.choice(tuple(COLOURS)), rng.randint(22, 34)) for _ in range(count)]
    slots = None
    while slots is None:
        slots = place(rng, [(s + 4, s + 4) for _, _, s in shapes], (6, 6, WIDTH - 6, HEIGHT - 6), gap=8)
    img = textured_background(rng, (WIDTH, HEIGHT), light=True, blob_count=10, grain=0.05)
    img = _greyish(img)
    k = SUPERSAMPLE
    layer = Image.new("RGBA", (WIDTH * k, HEIGHT * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for (kind, colour, size), slot in zip(shapes, slots, strict=True):
        cx, cy = (slot[0] + slot[2]) / 2 * k, (slot[1] + slot[3]) / 2 * k
        angle = rng.uniform(-20, 20) if kind != "circle" else 0
        side = size * (0.85 if kind == "square" else 1.0)  # squares look bigger than circles
        rgb = tuple(max(0, min(255, c + rng.randint(-12, 12))) for c in COLOURS[colour])
        draw.polygon(polygon(kind, cx, cy, side * k, angle), fill=rgb, outline=(40, 40, 40), width=k)
    img = Image.alpha_composite(img.convert("RGBA"), downsample(layer, (WIDTH, HEIGHT))).convert("RGB")
    question, answer = _question(rng, shapes)
    return Generated(
        solution={"count": answer},
        images={"image": png(img)},
        view={"width": WIDTH, "height": HEIGHT, "question": question},
    )


def _greyish(img: Image.Image) -> Image.Image:
    """Wash the background out so it never looks like one of the four shape colours."""
    grey = img.convert("L").convert("RGB")
    return Image.blend(grey, img, 0.35)


def _question(rng: random.Random, shapes: list[tuple[str, str, int]]) -> tuple[str, int]:
    """Ask about a colour+kind, a kind or a colour that is present in the picture."""
    kind, colour, _ = rng.choice(shapes)
    form = rng.randrange(3)
    if form == 0:
        n = sum(1 for k, c, _ in shapes if k == kind and c == colour)
        return f"How many {colour} {kind}s are in the picture?", n
    if form == 1:
        return f"How many {kind}s are in the picture?", sum(1 for k, _, _ in shapes if k == kind)
    return f"How many {colour} shapes are in the picture?", sum(1 for _, c, _ in shapes if c == colour)


def verify(solution: dict[str, Any], answer: str) -> bool:
    """A number, in digits or as an English word."""
    text = (answer or "").strip().lower()
    if text in NUMBER_WORDS:
        return NUMBER_WORDS.index(text) == solution["count"]
    return text.isascii() and text.isdigit() and int(text) == solution["count"]


def expected_answer(solution: dict[str, Any]) -> str:
    """The count, in digits."""
    return str(solution["count"])
