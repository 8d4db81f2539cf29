"""Rotation: turn a round picture of an outdoor scene back upright.

Variant `ring` (`/captcha/image_rotation?variant=ring`): an upright picture (a scene or an
abstract one: gradient, translucent and solid shapes) shown as a ring around a hole, and its
centre disc turned inside the hole; turning the disc until it fits the ring solves it."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image, ImageDraw

from practice.captcha.drawing import blobs, gradient, hsv, noise, png, textured_background
from practice.captcha.generators.base import Generated

SIZE = 200
SCALE = 3  # the scene is drawn at 3x, rotated, then scaled down
ANGLE = (40, 320)
TOLERANCE = 12


def generate(rng: random.Random) -> Generated:
    """An upright scene rotated counter-clockwise by ``angle``; turning it clockwise fixes it."""
    angle = rng.randint(*ANGLE)
    scene = _scene(rng, SIZE * SCALE).rotate(angle, resample=Image.Resampling.BICUBIC)
    img = scene.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    img = noise(rng, img, 0.04)
    mask = Image.new("L", (SIZE * 4, SIZE * 4), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, SIZE * 4 - 1, SIZE * 4 - 1), fill=255)
    out = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    out.paste(img, (0, 0), mask.resize((SIZE, SIZE), Image.Resampling.LANCZOS))
    return Generated(
        solution={"angle": angle, "tolerance": TOLERANCE},
        images={"image": png(out)},
        view={"size": SIZE},
    )


RING_SIZE = 220
HOLE = 124  # the turned disc's diameter, centred in the ring


def generate_ring(rng: random.Random) -> Generated:
    """An upright picture with a round hole (``ring``), its centre disc turned counter-clockwise
    by ``angle`` (``image``); turning the disc clockwise by ``angle`` fits it back."""
    angle = rng.randint(*ANGLE)
    if rng.random() < 0.5:
        picture = _scene(rng, RING_SIZE * SCALE).resize((RING_SIZE, RING_SIZE), Image.Resampling.LANCZOS)
    else:
        picture = _abstract(rng, RING_SIZE)
    picture = noise(rng, picture, 0.03)
    left = (RING_SIZE - HOLE) // 2
    disc = picture.crop((left, left, left + HOLE, left + HOLE)).rotate(angle, resample=Image.Resampling.BICUBIC)
    ring = picture.convert("RGBA")
    ring.paste((0, 0, 0, 0), (left, left), _round_mask(HOLE))  # the hole shows nothing
    piece = Image.new("RGBA", (HOLE, HOLE), (0, 0, 0, 0))
    piece.paste(disc, (0, 0), _round_mask(HOLE))
    return Generated(
        solution={"angle": angle, "tolerance": TOLERANCE},
        images={"image": png(piece), "ring": png(ring)},
        view={"size": RING_SIZE, "hole": HOLE, "hole_left": left},
    )


def _round_mask(size: int) -> Image.Image:
    mask = Image.new("L", (size * 4, size * 4), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=255)
    return mask.resize((size, size), Image.Resampling.LANCZOS)


def _abstract(rng: random.Random, n: int) -> Image.Image:
    """A gradient under translucent shapes and a few solid ones: no up or down of its own."""
    img = blobs(rng, textured_background(rng, (n, n), light=rng.random() < 0.5, blob_count=10), 6,
                size=(30, 110), alpha=(200, 255), s=(0.5, 0.9), v=(0.4, 0.95))
    draw = ImageDraw.Draw(img)
    for _ in range(rng.randint(2, 4)):
        x0, y0, x1, y1 = (rng.uniform(0, n) for _ in range(4))
        draw.line((x0, y0, x1, y1), fill=hsv(rng, (0.6, 1.0), (0.2, 0.9)), width=rng.randint(3, 7))
    return img


def _scene(rng: random.Random, n: int) -> Image.Image:
    """Sky, sun, clouds, ground and a house and/or tree standing on it."""
    horizon = int(n * rng.uniform(0.58, 0.68))
    sky_top = hsv(rng, (0.55, 0.85), (0.6, 0.85), hue=rng.uniform(0.55, 0.62))
    sky_low = hsv(rng, (0.1, 0.3), (0.92, 1.0), hue=rng.uniform(0.5, 0.6))
    img = Image.new("RGB", (n, n))
    sky = Image.composite(Image.new("RGB", (n, horizon), sky_low), Image.new("RGB", (n, horizon), sky_top),
                          Image.linear_gradient("L").resize((n, horizon)))
    img.paste(sky, (0, 0))
    ground_hue = rng.choice((rng.uniform(0.22, 0.33), rng.uniform(0.08, 0.12)))
    ground = gradient(rng, (n, n - horizon), hsv(rng, (0.5, 0.8), (0.45, 0.7), hue=ground_hue),
                      hsv(rng, (0.5, 0.8), (0.3, 0.5), hue=ground_hue))
    img.paste(ground, (0, horizon))
    draw = ImageDraw.Draw(img)
    u = n / 200  # drawing unit: one pixel of the final image

    sx, sy, sr = rng.uniform(45, 155) * u, rng.uniform(35, 60) * u, rng.uniform(13, 19) * u
    draw.ellipse((sx - sr * 1.5, sy - sr * 1.5, sx + sr * 1.5, sy + sr * 1.5), fill=(255, 240, 170))
    draw.ellipse((sx - sr, sy - sr, sx + sr, sy + sr), fill=(255, 205, 40))
    for _ in range(rng.randint(1, 2)):
        cx, cy = rng.uniform(30, 170) * u, rng.uniform(25, 70) * u
        if abs(cx - sx) < sr + 30 * u:  # keep the sun, the main "up" cue, visible
            cx = (cx + 90 * u) % (150 * u) + 25 * u
            if abs(cx - sx) < sr + 30 * u:
                continue
        for dx, dy, r in ((-10, 2, 8), (0, -3, 11), (11, 2, 8)):
            draw.ellipse(((cx + dx * u) - r * u, (cy + dy * u) - r * u, (cx + dx * u) + r * u, (cy + dy * u) + r * u),
                         fill=(255, 255, 255))

    base = horizon + rng.uniform(6, 16) * u
    kinds = rng.choice((["house"], ["tree"], ["house", "tree"], ["tree", "house"]))
    xs = [rng.uniform(70, 130)] if len(kinds) == 1 else [rng.uniform(50, 72), rng.uniform(128, 150)]
    for kind, x in zip(kinds, xs, strict=True):
        (_house if kind == "house" else _tree)(draw, rng, x * u, base, u)
    return img


def _house(draw: ImageDraw.ImageDraw, rng: random.Random, x: float, base: float, u: float) -> None:
    w, h = rng.uniform(44, 56) * u, rng.uniform(34, 42) * u
    wall = hsv(rng, (0.1, 0.4), (0.8, 0.97))
    roof = hsv(rng, (0.6, 0.9), (0.45, 0.7), hue=rng.choice((0.0, 0.02, 0.6, 0.08)))
    draw.rectangle((x + w / 5, base - h - 31 * u, x + w / 5 + 7 * u, base - h - 8 * u), fill=(120, 60, 50))
    draw.rectangle((x - w / 2, base - h, x + w / 2, base), fill=wall, outline=(70, 60, 50), width=int(u))
    draw.polygon([(x - w / 2 - 6 * u, base - h), (x + w / 2 + 6 * u, base - h), (x, base - h - 28 * u)], fill=roof)
    draw.rectangle((x - 6 * u, base - 20 * u, x + 6 * u, base), fill=(110, 70, 40))
    for side in (-1, 1):
        wx = x + side * w / 3.2
        draw.rectangle((wx - 5 * u, base - h + 8 * u, wx + 5 * u, base - h + 18 * u), fill=(150, 200, 240),
                       outline=(70, 60, 50), width=int(u))


def _tree(draw: ImageDraw.ImageDraw, rng: random.Random, x: float, base: float, u: float) -> None:
    trunk_h = rng.uniform(26, 34) * u
    draw.rectangle((x - 4 * u, base - trunk_h, x + 4 * u, base), fill=(110, 75, 40))
    green = hsv(rng, (0.55, 0.85), (0.4, 0.65), hue=rng.uniform(0.25, 0.36))
    if rng.random() < 0.5:  # round, leafy
        for dx, dy, r in ((0, -30, 20), (-13, -18, 14), (13, -18, 14)):
            draw.ellipse((x + (dx - r) * u, base - trunk_h + (dy - r + 12) * u,
                          x + (dx + r) * u, base - trunk_h + (dy + r + 12) * u), fill=green)
    else:  # conifer
        for i in range(3):
            top = base - trunk_h - (i * 14 + 22) * u
            half = (22 - i * 5) * u
            draw.polygon([(x - half, top + 24 * u), (x + half, top + 24 * u), (x, top)], fill=green)


def applied_error(solution: dict[str, Any], applied: float) -> float:
    """How far from upright the picture is after turning it clockwise by ``applied`` degrees."""
    diff = (applied - solution["angle"]) % 360
    return min(diff, 360 - diff)


def verify(solution: dict[str, Any], answer: str) -> bool:
    """The clockwise angle applied in the page must bring the picture within the tolerance."""
    try:
        applied = float((answer or "").strip())
    except ValueError:
        return False
    if applied != applied or applied in (float("inf"), float("-inf")):
        return False
    return applied_error(solution, applied) <= solution["tolerance"]


def expected_answer(solution: dict[str, Any]) -> str:
    """The clockwise angle (degrees) that makes the picture upright."""
    return str(solution["angle"])
