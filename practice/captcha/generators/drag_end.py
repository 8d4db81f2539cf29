"""Drag-to-target: move a small object onto the target drawn in the scene."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from practice.captcha.drawing import SUPERSAMPLE, downsample, hsv, png, textured_background
from practice.captcha.generators.base import Generated
from practice.captcha.shapes import polygon

WIDTH, HEIGHT = 320, 200
ITEM = 40  # the draggable object's image is ITEM x ITEM

# object, target, instruction, acceptance radius around the target's centre (px)
PAIRS = (
    ("ball", "basket", "Drag the ball into the basket", 24),
    ("apple", "plate", "Drag the apple onto the plate", 24),
    ("star", "ring", "Drag the star into the ring", 22),
)

Draw = ImageDraw.ImageDraw


def generate(rng: random.Random) -> Generated:
    """Scene with the target (and maybe a decoy target), plus the object's own image."""
    item, target, instruction, radius = rng.choice(PAIRS)
    scene = textured_background(rng, (WIDTH, HEIGHT), light=True, blob_count=18, grain=0.06, dots=60)
    tx, ty = rng.randint(150, WIDTH - 45), rng.randint(50, HEIGHT - 45)
    layer = Image.new("RGBA", (WIDTH * SUPERSAMPLE, HEIGHT * SUPERSAMPLE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    TARGETS[target](draw, rng, tx * SUPERSAMPLE, ty * SUPERSAMPLE)
    if rng.random() < 0.6:  # a decoy of another kind, so the instruction matters
        for _ in range(100):
            dx, dy = rng.randint(100, WIDTH - 45), rng.randint(45, HEIGHT - 45)
            if math.dist((dx, dy), (tx, ty)) > 95:
                decoy = rng.choice([name for name in TARGETS if name != target])
                TARGETS[decoy](draw, rng, dx * SUPERSAMPLE, dy * SUPERSAMPLE)
                break
    scene = Image.alpha_composite(scene.convert("RGBA"), downsample(layer, (WIDTH, HEIGHT))).convert("RGB")

    big = Image.new("RGBA", (ITEM * SUPERSAMPLE,) * 2, (0, 0, 0, 0))
    OBJECTS[item](ImageDraw.Draw(big), rng, ITEM * SUPERSAMPLE)
    start = (rng.randint(6, 40), rng.randint(8, HEIGHT - ITEM - 8))
    return Generated(
        solution={"target": [tx, ty], "radius": radius, "item_size": ITEM, "item_start": list(start)},
        images={"scene": png(scene), "item": png(downsample(big, (ITEM, ITEM)))},
        view={"width": WIDTH, "height": HEIGHT, "instruction": instruction,
              "item_size": ITEM, "item_x": start[0], "item_y": start[1]},
    )


# --- targets, drawn centred on (cx, cy) at SUPERSAMPLE scale ------------------------------


def _basket(draw: Draw, rng: random.Random, cx: float, cy: float) -> None:
    k = SUPERSAMPLE
    brown = hsv(rng, (0.55, 0.75), (0.45, 0.65), hue=rng.uniform(0.06, 0.1))
    dark = tuple(int(c * 0.6) for c in brown)
    top, bottom = cy - 14 * k, cy + 22 * k
    draw.arc((cx - 26 * k, cy - 44 * k, cx + 26 * k, cy - 2 * k), 180, 360, fill=dark, width=4 * k)
    body = [(cx - 34 * k, top), (cx + 34 * k, top), (cx + 25 * k, bottom), (cx - 25 * k, bottom)]
    draw.polygon(body, fill=brown, outline=dark, width=2 * k)
    for i in range(1, 4):
        y = top + (bottom - top) * i / 4
        draw.line([(cx - 34 * k + 9 * k * i / 4, y), (cx + 34 * k - 9 * k * i / 4, y)], fill=dark, width=k)
    for i in range(-3, 4):
        draw.line([(cx + i * 9.5 * k, top), (cx + i * 7 * k, bottom)], fill=dark, width=k)
    draw.rounded_rectangle((cx - 37 * k, top - 5 * k, cx + 37 * k, top + 3 * k), radius=3 * k, fill=dark)


def _plate(draw: Draw, rng: random.Random, cx: float, cy: float) -> None:
    k = SUPERSAMPLE
    rim = hsv(rng, (0.2, 0.5), (0.55, 0.8))
    draw.ellipse((cx - 38 * k, cy - 16 * k, cx + 40 * k, cy + 22 * k), fill=(90, 90, 90, 90))
    draw.ellipse((cx - 40 * k, cy - 20 * k, cx + 40 * k, cy + 20 * k), fill=(250, 250, 248), outline=rim, width=3 * k)
    draw.ellipse((cx - 26 * k, cy - 12 * k, cx + 26 * k, cy + 12 * k), fill=(236, 236, 232), outline=rim, width=k)


def _ring(draw: Draw, rng: random.Random, cx: float, cy: float) -> None:
    k = SUPERSAMPLE
    colour = hsv(rng, (0.7, 1.0), (0.55, 0.85))
    draw.ellipse((cx - 31 * k, cy - 31 * k, cx + 31 * k, cy + 31 * k), fill=(*colour, 40), outline=colour, width=5 * k)
    for i in range(0, 360, 30):
        a = math.radians(i)
        x, y = cx + 22 * k * math.cos(a), cy + 22 * k * math.sin(a)
        draw.ellipse((x - 1.5 * k, y - 1.5 * k, x + 1.5 * k, y + 1.5 * k), fill=colour)


TARGETS: dict[str, Callable[[Draw, random.Random, float, float], None]] = {
    "basket": _basket, "plate": _plate, "ring": _ring,
}


# --- objects, drawn to fill a size x size canvas ------------------------------------------


def _ball(draw: Draw, rng: random.Random, size: int) -> None:
    m = size * 0.08
    box = (m, m, size - m, size - m)
    start = rng.randint(0, 59)
    colours = [hsv(rng, (0.7, 1), (0.8, 1), hue=h) for h in (0.0, 0.15, 0.6)]
    for i in range(6):
        draw.pieslice(box, start + 60 * i, start + 60 * (i + 1), fill=colours[i % 3] if i % 2 == 0 else (250, 250, 250))
    draw.ellipse(box, outline=(60, 60, 60), width=max(2, size // 40))


def _apple(draw: Draw, rng: random.Random, size: int) -> None:
    s = size / 40
    red = hsv(rng, (0.75, 0.95), (0.75, 0.95), hue=rng.uniform(0.98, 1.0))
    draw.ellipse((5 * s, 10 * s, 23 * s, 37 * s), fill=red)
    draw.ellipse((17 * s, 10 * s, 35 * s, 37 * s), fill=red)
    draw.line([(20 * s, 13 * s), (21 * s, 3 * s)], fill=(100, 60, 20), width=int(3 * s))
    draw.ellipse((22 * s, 3 * s, 32 * s, 9 * s), fill=(60, 160, 60))
    draw.ellipse((9 * s, 15 * s, 14 * s, 22 * s), fill=(255, 255, 255, 150))


def _star(draw: Draw, rng: random.Random, size: int) -> None:
    pts = polygon("star", size / 2, size / 2 + size * 0.03, size * 0.92, rng.uniform(-12, 12))
    draw.polygon(pts, fill=hsv(rng, (0.8, 1), (0.95, 1), hue=rng.uniform(0.12, 0.15)),
                 outline=(190, 110, 0), width=max(2, size // 40))


OBJECTS: dict[str, Callable[[Draw, random.Random, int], None]] = {
    "ball": _ball, "apple": _apple, "star": _star,
}


def verify(solution: dict[str, Any], answer: str) -> bool:
    """The object's centre ("x,y" in scene pixels) must be within the target's radius."""
    try:
        x, y = (float(v) for v in (answer or "").split(","))
    except ValueError:
        return False
    return math.dist((x, y), solution["target"]) <= solution["radius"]


def expected_answer(solution: dict[str, Any]) -> str:
    """The target's centre."""
    x, y = solution["target"]
    return f"{x},{y}"
