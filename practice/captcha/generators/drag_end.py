"""Drag-to-the-marked-end: move a small object onto its outline (a "slot" of the same shape)
drawn in the scene; sometimes a decoy outline of another shape is drawn too, so the shape matters.
This is the VenusBench-CAPTCHA drag_end kind: the end point is marked in the picture."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from practice.captcha.drawing import SUPERSAMPLE, downsample, hsv, png, textured_background
from practice.captcha.generators.base import Generated
from practice.captcha.shapes import polygon

WIDTH, HEIGHT = 320, 200
ITEM = 40  # the draggable object's image is ITEM x ITEM

RADIUS = 12  # acceptance radius around the outline's centre (px)
INSTRUCTIONS = ("Drag the {item} onto its outline", "Drag the {item} to the matching shape",
                "Move the {item} into its slot")

Draw = ImageDraw.ImageDraw


def generate(rng: random.Random) -> Generated:
    """Scene with the object's outline (and maybe a decoy outline), plus the object's own image."""
    item = rng.choice(list(OBJECTS))
    instruction = rng.choice(INSTRUCTIONS).format(item=item)
    scene = textured_background(rng, (WIDTH, HEIGHT), light=True, blob_count=18, grain=0.06, dots=60)
    tx, ty = rng.randint(130, WIDTH - 30), rng.randint(30, HEIGHT - 30)
    scene = scene.convert("RGBA")
    _slot(scene, rng, item, tx, ty)
    if rng.random() < 0.6:  # a decoy of another shape, so the shape matters
        for _ in range(100):
            dx, dy = rng.randint(100, WIDTH - 30), rng.randint(30, HEIGHT - 30)
            if math.dist((dx, dy), (tx, ty)) > 60:
                _slot(scene, rng, rng.choice([name for name in OBJECTS if name != item]), dx, dy)
                break
    scene = scene.convert("RGB")

    big = Image.new("RGBA", (ITEM * SUPERSAMPLE,) * 2, (0, 0, 0, 0))
    OBJECTS[item](ImageDraw.Draw(big), rng, ITEM * SUPERSAMPLE)
    start = (rng.randint(6, 40), rng.randint(8, HEIGHT - ITEM - 8))
    return Generated(
        solution={"target": [tx, ty], "radius": RADIUS, "item_size": ITEM, "item_start": list(start)},
        images={"scene": png(scene), "item": png(downsample(big, (ITEM, ITEM)))},
        view={"width": WIDTH, "height": HEIGHT, "instruction": instruction,
              "item_size": ITEM, "item_x": start[0], "item_y": start[1]},
    )


def _slot(scene: Image.Image, rng: random.Random, item: str, cx: int, cy: int) -> None:
    """Draw the outline of an object's silhouette centred on (cx, cy): a shaded, outlined slot."""
    big = Image.new("RGBA", (ITEM * SUPERSAMPLE,) * 2, (0, 0, 0, 0))
    OBJECTS[item](ImageDraw.Draw(big), rng, ITEM * SUPERSAMPLE)
    alpha = downsample(big, (ITEM, ITEM)).getchannel("A").point(lambda a: 255 if a > 100 else 0)
    edge = ImageChops.subtract(alpha.filter(ImageFilter.MaxFilter(3)), alpha.filter(ImageFilter.MinFilter(3)))
    shade = rng.randint(20, 70)
    layer = Image.new("RGBA", (ITEM, ITEM), (shade, shade, shade, 0))
    layer.putalpha(alpha.point(lambda a: int(a * rng.uniform(0.25, 0.4))))
    outline = Image.new("RGBA", (ITEM, ITEM), (shade, shade, shade, 230))
    layer = Image.composite(outline, layer, edge)
    scene.alpha_composite(layer, (cx - ITEM // 2, cy - ITEM // 2))


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
