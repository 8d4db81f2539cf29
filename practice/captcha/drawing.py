"""Drawing helpers shared by the generators (Pillow only: gradients, texture, noise, layout)."""

from __future__ import annotations

import colorsys
import io
import math
import random
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter

Colour = tuple[int, int, int]
Box = tuple[int, int, int, int]

SUPERSAMPLE = 3  # shapes are drawn at 3x and scaled down, for smooth (antialiased) edges


def png(img: Image.Image) -> bytes:
    """Encode an image as PNG bytes."""
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def hsv(rng: random.Random, s: tuple[float, float], v: tuple[float, float], hue: float | None = None) -> Colour:
    """A colour with random hue (unless given) and saturation/value in the given ranges."""
    h = rng.random() if hue is None else hue
    r, g, b = colorsys.hsv_to_rgb(h, rng.uniform(*s), rng.uniform(*v))
    return int(r * 255), int(g * 255), int(b * 255)


def gradient(rng: random.Random, size: tuple[int, int], c1: Colour, c2: Colour) -> Image.Image:
    """A linear gradient from c1 to c2: vertical, horizontal or diagonal, either way round."""
    w, h = size
    vertical = Image.linear_gradient("L").resize(size)
    horizontal = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize(size)
    mask = rng.choice(
        [vertical, horizontal, ImageChops.add(vertical, horizontal, scale=2.0)]
    )
    if rng.random() < 0.5:
        mask = ImageChops.invert(mask)
    return Image.composite(Image.new("RGB", (w, h), c2), Image.new("RGB", (w, h), c1), mask)


def blobs(
    rng: random.Random,
    img: Image.Image,
    count: int,
    *,
    size: tuple[int, int] = (12, 70),
    alpha: tuple[int, int] = (40, 120),
    s: tuple[float, float] = (0.3, 0.8),
    v: tuple[float, float] = (0.5, 1.0),
) -> Image.Image:
    """Overlay translucent ellipses, rectangles and triangles (texture, not content)."""
    w, h = img.size
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for _ in range(count):
        r = rng.randint(*size) / 2
        cx, cy = rng.uniform(-r / 2, w + r / 2), rng.uniform(-r / 2, h + r / 2)
        fill = (*hsv(rng, s, v), rng.randint(*alpha))
        kind = rng.randrange(3)
        if kind == 0:
            draw.ellipse((cx - r, cy - r * rng.uniform(0.5, 1), cx + r, cy + r), fill=fill)
        elif kind == 1:
            draw.rectangle((cx - r, cy - r * rng.uniform(0.4, 1), cx + r, cy + r), fill=fill)
        else:
            pts = [(cx + r * math.cos(a), cy + r * math.sin(a))
                   for a in (rng.uniform(0, 2 * math.pi) for _ in range(3))]
            draw.polygon(pts, fill=fill)
    return Image.alpha_composite(img.convert("RGBA"), layer).convert("RGB")


def noise(rng: random.Random, img: Image.Image, strength: float = 0.08, dots: int = 0) -> Image.Image:
    """Blend in gaussian grain and sprinkle ``dots`` random single-pixel dots.

    The grain is drawn from ``rng``'s state without advancing it, so a seed always gives the same
    picture (Pillow's ``effect_noise`` draws from the C library's generator, whose state is what
    the process drew before: the recogniser's training shards differed from run to run)."""
    w, h = img.size
    values = np.random.default_rng(rng.getstate()[1]).normal(128.0, 64.0, (h, w))
    grain = Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), "L").convert("RGB")
    out = Image.blend(img, grain, strength)
    if dots:
        draw = ImageDraw.Draw(out)
        for _ in range(dots):
            draw.point((rng.randrange(w), rng.randrange(h)), fill=hsv(rng, (0, 1), (0, 1)))
    return out


def textured_background(
    rng: random.Random, size: tuple[int, int], *, light: bool = True, blob_count: int = 14,
    grain: float = 0.08, dots: int = 0,
) -> Image.Image:
    """Gradient + translucent shapes + grain: a typical CAPTCHA background."""
    v = (0.8, 0.98) if light else (0.35, 0.7)
    s = (0.1, 0.35) if light else (0.3, 0.7)
    img = gradient(rng, size, hsv(rng, s, v), hsv(rng, s, v))
    img = blobs(rng, img, blob_count, s=s, v=v)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    return noise(rng, img, grain, dots)


def overlaps(a: Sequence[float], b: Sequence[float], gap: float = 0) -> bool:
    """Whether two (x0, y0, x1, y1) boxes come closer than ``gap``."""
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


def place(
    rng: random.Random, sizes: Sequence[tuple[int, int]], area: Box, gap: int, tries: int = 500
) -> list[Box] | None:
    """Non-overlapping random boxes of the given sizes inside ``area``; None when it fails."""
    boxes: list[Box] = []
    x0, y0, x1, y1 = area
    for w, h in sizes:
        for _ in range(tries):
            x, y = rng.randint(x0, x1 - w), rng.randint(y0, y1 - h)
            box = (x, y, x + w, y + h)
            if not any(overlaps(box, other, gap) for other in boxes):
                boxes.append(box)
                break
        else:
            return None
    return boxes


def downsample(layer: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Scale a supersampled layer down to ``size`` with a high-quality filter."""
    return layer.resize(size, Image.Resampling.LANCZOS)


def outline_ring(mask: Image.Image, width: int = 1) -> Image.Image:
    """The border band of an L mask (dilated minus eroded)."""
    k = 2 * width + 1
    return ImageChops.subtract(mask.filter(ImageFilter.MaxFilter(k)), mask.filter(ImageFilter.MinFilter(k)))


def parse_points(answer: str) -> list[tuple[float, float]] | None:
    """Parse "x1,y1;x2,y2;..." into points; None if malformed."""
    points = []
    for part in (answer or "").strip().split(";"):
        if not part.strip():
            continue
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            return None
        if not (math.isfinite(x) and math.isfinite(y)):
            return None
        points.append((x, y))
    return points


def inside(point: tuple[float, float], box: Sequence[float], tolerance: float) -> bool:
    """Whether a point lies in a box grown by ``tolerance`` on every side."""
    x, y = point
    return box[0] - tolerance <= x <= box[2] + tolerance and box[1] - tolerance <= y <= box[3] + tolerance
