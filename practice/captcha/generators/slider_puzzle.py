"""Jigsaw slider: slide the cut-out piece along its row until it fills the gap."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from practice.captcha.drawing import blobs, gradient, hsv, noise, outline_ring, png
from practice.captcha.generators.base import Generated

WIDTH, HEIGHT = 300, 150
PIECE = 50  # the piece image is PIECE x PIECE: a 40 px body plus tabs
GAP_X = (70, WIDTH - PIECE)  # [70, 250]: left edge of the piece image when it sits in the gap
TOLERANCE = 5


def generate(rng: random.Random) -> Generated:
    """Texture, jigsaw mask, darkened outlined gap, and the matching piece."""
    bg = _scenery(rng)
    mask = _jigsaw_mask(rng)
    gap_x = rng.randint(*GAP_X)
    y = rng.randint(4, HEIGHT - PIECE - 4)
    region = bg.crop((gap_x, y, gap_x + PIECE, y + PIECE))

    piece = Image.new("RGBA", (PIECE, PIECE), (0, 0, 0, 0))
    piece.paste(ImageEnhance.Brightness(region).enhance(1.08), (0, 0), mask)
    ring = outline_ring(mask, 1)
    piece.paste(Image.new("RGBA", (PIECE, PIECE), (255, 255, 255, 230)), (0, 0), ring)

    shade = ImageEnhance.Brightness(region).enhance(rng.uniform(0.35, 0.5))
    bg.paste(shade, (gap_x, y), mask)
    bg.paste(Image.new("RGB", (PIECE, PIECE), (245, 245, 245)), (gap_x, y), ring.point(lambda p: p * 7 // 10))
    return Generated(
        solution={"gap_x": gap_x, "piece_y": y, "tolerance": TOLERANCE},
        images={"background": png(bg), "piece": png(piece)},
        view={"width": WIDTH, "height": HEIGHT, "piece_size": PIECE, "piece_y": y, "max_offset": WIDTH - PIECE},
    )


def _scenery(rng: random.Random) -> Image.Image:
    """A busy, colourful texture so the gap is found by shape, not by a blank spot."""
    img = gradient(rng, (WIDTH, HEIGHT), hsv(rng, (0.3, 0.7), (0.5, 0.9)), hsv(rng, (0.3, 0.7), (0.5, 0.9)))
    img = blobs(rng, img, rng.randint(16, 24), size=(20, 110), alpha=(90, 200), s=(0.3, 0.9), v=(0.3, 1.0))
    img = blobs(rng, img, rng.randint(20, 30), size=(4, 16), alpha=(120, 230), s=(0.2, 0.9), v=(0.2, 1.0))
    return noise(rng, img.filter(ImageFilter.GaussianBlur(0.8)), 0.07)


def _jigsaw_mask(rng: random.Random) -> Image.Image:
    """A 40 px square body with a tab or notch on the top and right, maybe notches left/bottom."""
    s = 4  # drawn at 4x for smooth edges
    big = Image.new("L", (PIECE * s, PIECE * s), 0)
    draw = ImageDraw.Draw(big)
    body = (1, 9, 41, 49)
    draw.rectangle(tuple(v * s for v in body), fill=255)
    r = 7
    sides = {"top": (21, 9), "right": (41, 29), "left": (1, 29), "bottom": (21, 49)}
    for side, (cx, cy) in sides.items():
        if side in ("top", "right"):
            fill = 255 if rng.random() < 0.7 else 0
        elif rng.random() < 0.4:
            fill = 0
        else:
            continue
        # A tab sits outside the body (centre pushed out), a notch inside (pushed in).
        push = 2 if fill else -3
        dx = {"top": 0, "right": push, "left": -push, "bottom": 0}[side]
        dy = {"top": -push, "right": 0, "left": 0, "bottom": push}[side]
        draw.ellipse(((cx + dx - r) * s, (cy + dy - r) * s, (cx + dx + r) * s, (cy + dy + r) * s), fill=fill)
    return big.resize((PIECE, PIECE), Image.Resampling.LANCZOS)


def verify(solution: dict[str, Any], answer: str) -> bool:
    """The piece's offset (px) must be within the tolerance of the gap."""
    try:
        offset = float((answer or "").strip())
    except ValueError:
        return False
    return abs(offset - solution["gap_x"]) <= solution["tolerance"]


def expected_answer(solution: dict[str, Any]) -> str:
    """The gap's x: the distance to drag the handle (and piece)."""
    return str(solution["gap_x"])
