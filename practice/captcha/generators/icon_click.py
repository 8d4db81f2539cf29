"""Icon click: click three of the icons in the order a hint strip shows them."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image, ImageDraw

from practice.captcha.drawing import (
    SUPERSAMPLE, downsample, hsv, inside, parse_points, place, png, textured_background,
)
from practice.captcha.generators.base import Generated
from practice.captcha.shapes import SHAPE_NAMES, bounds, polygon

WIDTH, HEIGHT = 320, 200
HINT_W, HINT_H = 120, 40
TARGETS = 3
TOLERANCE = 4


def generate(rng: random.Random) -> Generated:
    """5-6 distinct coloured icons on a noisy background; 3 of them, in order, on the hint."""
    count = rng.randint(5, 6)
    names = rng.sample(SHAPE_NAMES, count)
    sizes = [rng.randint(28, 40) for _ in names]
    slots = None
    while slots is None:
        slots = place(rng, [(s + 6, s + 6) for s in sizes], (4, 4, WIDTH - 4, HEIGHT - 4), gap=8)
    img = textured_background(rng, (WIDTH, HEIGHT), light=rng.random() < 0.5, blob_count=26, grain=0.1, dots=150)
    layer = Image.new("RGBA", (WIDTH * SUPERSAMPLE, HEIGHT * SUPERSAMPLE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    k = SUPERSAMPLE
    boxes = []
    for name, size, slot in zip(names, sizes, slots, strict=True):
        cx, cy = (slot[0] + slot[2]) / 2, (slot[1] + slot[3]) / 2
        pts = polygon(name, cx * k, cy * k, size * k, rng.uniform(-15, 15))
        fill = hsv(rng, (0.65, 1.0), (0.7, 1.0))
        draw.polygon(pts, fill=fill, outline=(255, 255, 255), width=2 * k)
        x0, y0, x1, y1 = bounds(pts)
        boxes.append([round(x0 / k), round(y0 / k), round(x1 / k), round(y1 / k)])
    img = Image.alpha_composite(img.convert("RGBA"), downsample(layer, (WIDTH, HEIGHT))).convert("RGB")

    order = rng.sample(range(count), TARGETS)
    return Generated(
        solution={"boxes": [boxes[i] for i in order], "tolerance": TOLERANCE,
                  "icons": [names[i] for i in order]},
        images={"image": png(img), "hint": png(_hint([names[i] for i in order]))},
        view={"width": WIDTH, "height": HEIGHT, "hint_width": HINT_W, "hint_height": HINT_H},
    )


def _hint(names: list[str]) -> Image.Image:
    """Dark silhouettes of the icons to click, left to right, upright."""
    k = SUPERSAMPLE
    big = Image.new("RGBA", (HINT_W * k, HINT_H * k), (255, 255, 255, 255))
    draw = ImageDraw.Draw(big)
    step = HINT_W / len(names)
    for i, name in enumerate(names):
        draw.polygon(polygon(name, (step * i + step / 2) * k, HINT_H / 2 * k, 28 * k), fill=(55, 65, 81))
    return downsample(big, (HINT_W, HINT_H)).convert("RGB")


def verify(solution: dict[str, Any], answer: str) -> bool:
    """Exactly one click per target, in order, each inside its box (+ tolerance)."""
    return clicks_match(solution, answer)


def clicks_match(solution: dict[str, Any], answer: str) -> bool:
    """Shared with text_click: compare "x1,y1;x2,y2;x3,y3" with the boxes in order."""
    points = parse_points(answer)
    boxes = solution["boxes"]
    if points is None or len(points) != len(boxes):
        return False
    return all(inside(p, box, solution["tolerance"]) for p, box in zip(points, boxes, strict=True))


def expected_answer(solution: dict[str, Any]) -> str:
    """The centres of the target boxes, in order."""
    return ";".join(f"{(b[0] + b[2]) // 2},{(b[1] + b[3]) // 2}" for b in solution["boxes"])
