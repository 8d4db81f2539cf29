"""Rotation widgets with an upright reference, drawn here for the solver's tests and tuning.

Pictures of several kinds (coloured blobs, polygons and lines, smooth colour noise, textured
stripes with shapes, a landscape scene), shown two ways:
- `ring`: an upright picture with a hole, the turned centre disc laid over it (the hole is
  blank, grey, blurred or still shows the picture; the piece may have a drawn rim, the hole a
  shadow);
- `thumb`: a small turned disc of the whole upright picture next to it.
The piece may be brightened or darkened, and either image JPEG-compressed. Our own drawings.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from tests.captcha.synth import scene

KINDS = ("blobs", "polygons", "noise", "stripes", "scene")


@dataclass(frozen=True)
class RotationCase:
    reference: bytes
    piece: bytes
    angle: float  # degrees the piece must turn clockwise to line up
    layout: str
    kind: str
    scale: float  # reference pixels per piece pixel when the piece sits over the hole


def _colour(rng: random.Random) -> tuple[int, int, int]:
    return tuple(rng.randint(0, 255) for _ in range(3))  # type: ignore[return-value]


def picture(rng: random.Random, size: int, kind: str) -> Image.Image:
    """An upright picture of `kind`, size × size RGB."""
    if kind == "scene":
        return scene(rng, size, size).convert("RGB")
    if kind == "noise":
        cells = rng.randint(3, 7)
        small = np.array([[_colour(rng) for _ in range(cells)] for _ in range(cells)], dtype=np.uint8)
        return Image.fromarray(small).resize((size, size), Image.Resampling.BICUBIC)
    img = Image.new("RGB", (size, size), _colour(rng))
    draw = ImageDraw.Draw(img)
    if kind == "stripes":
        step, width = rng.randint(8, 20), rng.randint(3, 8)
        tilt = rng.uniform(0, math.pi)
        for k in range(-size, 2 * size, step):
            dx, dy = math.cos(tilt) * 2 * size, math.sin(tilt) * 2 * size
            draw.line((k - dx, k + dy, k + dx, k - dy), fill=_colour(rng), width=width)
    for _ in range(rng.randint(5, 12)):
        x, y, r = rng.uniform(0, size), rng.uniform(0, size), rng.uniform(size * 0.05, size * 0.25)
        if kind == "blobs" or (kind == "stripes" and rng.random() < 0.5):
            draw.ellipse((x - r, y - r * rng.uniform(0.5, 1.0), x + r, y + r), fill=_colour(rng))
        elif kind == "polygons" or kind == "stripes":
            points = [(x + r * math.cos(a), y + r * math.sin(a))
                      for a in sorted(rng.uniform(0, 2 * math.pi) for _ in range(rng.randint(3, 6)))]
            draw.polygon(points, fill=_colour(rng))
        if kind == "polygons" and rng.random() < 0.5:
            draw.line((rng.uniform(0, size), rng.uniform(0, size), rng.uniform(0, size), rng.uniform(0, size)),
                      fill=_colour(rng), width=rng.randint(2, 6))
    return img


def _encode(img: Image.Image, rng: random.Random, *, jpeg: bool) -> bytes:
    out = io.BytesIO()
    if jpeg and img.mode == "RGB":
        img.save(out, "JPEG", quality=rng.randint(55, 90))
    else:
        img.save(out, "PNG")
    return out.getvalue()


def _disc_mask(size: int) -> Image.Image:
    big = Image.new("L", (size * 4, size * 4), 0)
    ImageDraw.Draw(big).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=255)
    return big.resize((size, size), Image.Resampling.LANCZOS)


def _piece(rng: random.Random, disc: Image.Image, angle: float) -> Image.Image:
    """The disc turned counter-clockwise by `angle`, maybe re-lit, maybe rimmed, cut round (RGBA)."""
    size = disc.width
    turned = disc.rotate(angle, resample=Image.Resampling.BICUBIC)
    if rng.random() < 0.5:
        turned = ImageEnhance.Brightness(turned).enhance(rng.uniform(0.75, 1.3))
    if rng.random() < 0.4:
        width = rng.randint(2, max(2, size // 30))
        ImageDraw.Draw(turned).ellipse((0, 0, size - 1, size - 1), outline=rng.choice(((255, 255, 255), (40, 40, 40))),
                                       width=width)
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    out.paste(turned, (0, 0), _disc_mask(size))
    return out


def rotation_case(rng: random.Random, *, kind: str | None = None, layout: str | None = None) -> RotationCase:
    """One challenge: see the module doc."""
    kind = kind or rng.choice(KINDS)
    layout = layout or rng.choice(("ring", "ring", "thumb"))
    size = rng.randint(200, 320)
    upright = picture(rng, size, kind)
    angle = rng.uniform(0, 360)
    jpeg = rng.random() < 0.7
    if layout == "thumb":
        small = rng.randint(int(size * 0.35), int(size * 0.6))
        piece = _piece(rng, upright.resize((small, small), Image.Resampling.LANCZOS), angle)
        return RotationCase(_encode(upright, rng, jpeg=jpeg), _encode(piece, rng, jpeg=False), angle, layout, kind, 1.0)
    hole = rng.randint(int(size * 0.45), int(size * 0.65)) // 2 * 2
    left = (size - hole) // 2
    disc = upright.crop((left, left, left + hole, left + hole))
    reference = upright.copy()
    fill = rng.choice(("blank", "grey", "blur", "shown"))
    cover = {"blank": Image.new("RGB", (hole, hole), (255, 255, 255)),
             "grey": Image.new("RGB", (hole, hole), (128, 128, 128)),
             "blur": disc.filter(ImageFilter.GaussianBlur(hole / 6)), "shown": disc}[fill]
    reference.paste(cover, (left, left), _disc_mask(hole))
    if rng.random() < 0.5:  # a soft shadow around the hole
        shade = Image.new("L", (size, size), 0)
        ImageDraw.Draw(shade).ellipse((left - 4, left - 4, left + hole + 4, left + hole + 4), outline=110, width=5)
        reference = Image.composite(Image.new("RGB", (size, size), (0, 0, 0)), reference,
                                    shade.filter(ImageFilter.GaussianBlur(2)))
    piece = _piece(rng, disc, angle)
    return RotationCase(_encode(reference, rng, jpeg=jpeg), _encode(piece, rng, jpeg=False), angle, layout, kind, 1.0)
