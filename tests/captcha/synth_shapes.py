"""Synthetic CAPTCHAs made of shapes, icons and characters: drag to a target, click icons or
characters in order, rotate to upright. The basics (fonts, backgrounds, text, sliders) are in
`tests.captcha.synth`; like those, these are our own simple drawings.
"""

from __future__ import annotations

import math
import random

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter

from tests.captcha.synth import (CJK_CHARS, CJK_FONTS, LATIN_FONTS, UPPER_DIGITS, Box, _vivid, background,
                                 encode, font, scene)


# ---------------------------------------------------------------- shapes (drag, icons)

SHAPES = ["circle", "triangle", "square", "diamond", "pentagon", "star", "cross", "heart", "crescent",
          "arrow", "bolt", "ring", "drop", "house"]
_POLYGONS = {
    "triangle": [(0.0, -1.0), (0.87, 0.5), (-0.87, 0.5)],
    "square": [(-0.75, -0.75), (0.75, -0.75), (0.75, 0.75), (-0.75, 0.75)],
    "diamond": [(0.0, -1.0), (0.65, 0.0), (0.0, 1.0), (-0.65, 0.0)],
    "cross": [(-0.3, -1), (0.3, -1), (0.3, -0.3), (1, -0.3), (1, 0.3), (0.3, 0.3), (0.3, 1), (-0.3, 1),
              (-0.3, 0.3), (-1, 0.3), (-1, -0.3), (-0.3, -0.3)],
    "arrow": [(-1, -0.25), (0.2, -0.25), (0.2, -0.65), (1, 0), (0.2, 0.65), (0.2, 0.25), (-1, 0.25)],
    "bolt": [(0.25, -1), (-0.55, 0.15), (-0.05, 0.15), (-0.3, 1), (0.55, -0.2), (0.05, -0.2), (0.35, -1)],
    "house": [(0, -1), (0.9, -0.15), (0.6, -0.15), (0.6, 0.9), (-0.6, 0.9), (-0.6, -0.15), (-0.9, -0.15)],
}


def _regular(n: int, inner: float | None = None) -> list[tuple[float, float]]:
    """A regular n-gon, or an n-pointed star when `inner` (the inner radius) is given."""
    count = 2 * n if inner else n
    return [((inner if inner and i % 2 else 1.0) * math.cos(-math.pi / 2 + 2 * math.pi * i / count),
             (inner if inner and i % 2 else 1.0) * math.sin(-math.pi / 2 + 2 * math.pi * i / count))
            for i in range(count)]


def shape_mask(name: str, size: int, angle: float = 0.0) -> Image.Image:
    """An anti-aliased L mask (size×size) of a named shape, turned `angle` degrees CCW."""
    big = size * 4
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    c, r = big / 2, big * 0.46

    def poly(points: list[tuple[float, float]], fill: int = 255) -> None:
        draw.polygon([(c + x * r, c + y * r) for x, y in points], fill=fill)

    if name == "circle":
        draw.ellipse((c - r, c - r, c + r, c + r), fill=255)
    elif name == "ring":
        draw.ellipse((c - r, c - r, c + r, c + r), fill=255)
        draw.ellipse((c - r * 0.55, c - r * 0.55, c + r * 0.55, c + r * 0.55), fill=0)
    elif name == "crescent":
        draw.ellipse((c - r, c - r, c + r, c + r), fill=255)
        draw.ellipse((c - r * 0.45, c - r * 1.05, c + r * 1.35, c + r * 0.75), fill=0)
    elif name == "pentagon":
        poly(_regular(5))
    elif name == "star":
        poly(_regular(5, inner=0.45))
    elif name == "heart":
        draw.ellipse((c - r, c - r * 0.75, c, c + r * 0.15), fill=255)
        draw.ellipse((c, c - r * 0.75, c + r, c + r * 0.15), fill=255)
        poly([(-0.97, -0.15), (0.97, -0.15), (0, 0.95)])
    elif name == "drop":
        draw.ellipse((c - r * 0.7, c - r * 0.2, c + r * 0.7, c + r * 1.0), fill=255)
        poly([(-0.66, 0.25), (0.66, 0.25), (0, -1.0)])
    else:
        poly(_POLYGONS[name])
    mask = mask.rotate(angle, resample=Image.BICUBIC)
    return mask.resize((size, size), Image.LANCZOS)


def _place(rng: random.Random, w: int, h: int, size: int, taken: list[Box], margin: int = 6) -> Box:
    for _ in range(200):
        x, y = rng.randint(margin, w - size - margin), rng.randint(margin, h - size - margin)
        box = (x, y, x + size, y + size)
        if all(box[2] + margin < t[0] or t[2] + margin < box[0] or box[3] + margin < t[1] or t[3] + margin < box[1]
               for t in taken):
            taken.append(box)
            return box
    raise RuntimeError("no room left")


def _tight(box: Box, mask: Image.Image) -> Box:
    inner = mask.getbbox() or (0, 0, mask.width, mask.height)
    return (box[0] + inner[0], box[1] + inner[1], box[0] + inner[2], box[1] + inner[3])


# ---------------------------------------------------------------- drag to target


def _contrasting(rng: random.Random, region: Image.Image, options: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """One of `options` that stands out from `region` (a marked target is meant to be seen)."""
    mean = np.asarray(region.convert("RGB"), dtype=float).reshape(-1, 3).mean(axis=0)
    visible = [c for c in options if np.abs(np.array(c) - mean).max() > 90]
    return rng.choice(visible or [max(options, key=lambda c: float(np.abs(np.array(c) - mean).max()))])


def _slot(rng: random.Random, image: Image.Image, mask: Image.Image, pos: tuple[int, int], style: str) -> None:
    """Draw an empty slot of shape `mask`: outline, dashed outline, shadow or pale fill."""
    thin = ImageChops.subtract(mask.filter(ImageFilter.MaxFilter(3)), mask.filter(ImageFilter.MinFilter(3)))
    region = image.crop((pos[0], pos[1], pos[0] + mask.width, pos[1] + mask.height))
    colour = _contrasting(rng, region, [(255, 255, 255), (40, 40, 40), _vivid(rng)])
    if style == "shadow":
        image.paste(Image.new("RGB", mask.size, (20, 20, 20)), pos, mask.point(lambda v: int(v * 0.55)))
    elif style == "pale":
        image.paste(Image.new("RGB", mask.size, (255, 255, 255)), pos, mask.point(lambda v: int(v * 0.6)))
    if style == "dashed":
        arr = np.asarray(thin).copy()
        yy, xx = np.mgrid[0:arr.shape[0], 0:arr.shape[1]]
        arr[((xx + yy) // 6) % 2 == 1] = 0
        thin = Image.fromarray(arr)
    if style != "pale" or rng.random() < 0.5:
        image.paste(Image.new("RGB", mask.size, colour), pos, thin)


def drag_sample(rng: random.Random, with_item: bool = True) -> tuple[bytes, bytes | None, Box]:
    """(scene, item image or None, target box). With an item: slots of several shapes, the
    target the item's shape at a slightly different scale. Without: one ring or outlined target
    among solid clutter."""
    w, h = rng.randint(300, 380), rng.randint(170, 230)
    image = background(rng, w, h)
    taken: list[Box] = []
    size = rng.randint(40, 60)
    if with_item:
        names = rng.sample(SHAPES, rng.randint(2, 4))
        style = rng.choice(["outline", "dashed", "shadow", "pale"])
        angle = rng.choice([0, 0, rng.uniform(-20, 20)])
        target: Box = (0, 0, 0, 0)
        for k, name in enumerate(names):
            slot_size = int(size * rng.uniform(0.9, 1.15)) if k == 0 else rng.randint(36, 62)
            mask = shape_mask(name, slot_size, angle if k == 0 else rng.uniform(0, 360))
            box = _place(rng, w, h, slot_size, taken)
            _slot(rng, image, mask, box[:2], style)
            if k == 0:
                target = _tight(box, mask)
        item_mask = shape_mask(names[0], size, angle)
        item = Image.new("RGBA", (size + 8, size + 8))
        item.paste(Image.new("RGBA", item_mask.size, (*_vivid(rng), 255)), (4, 4), item_mask)
        return encode(image, "JPEG", 88), encode(item), target
    for _ in range(rng.randint(2, 5)):  # solid clutter
        name = rng.choice([n for n in SHAPES if n != "ring"])
        s = rng.randint(20, 50)
        mask = shape_mask(name, s, rng.uniform(0, 360))
        box = _place(rng, w, h, s, taken)
        image.paste(Image.new("RGB", mask.size, _vivid(rng)), box[:2], mask)
    box = _place(rng, w, h, size, taken)
    draw = ImageDraw.Draw(image)
    colour = _contrasting(rng, image.crop(box), [(255, 255, 255), (230, 40, 40), (30, 30, 30), _vivid(rng)])
    kind = rng.choice(["ring", "double", "dashed", "square"])
    x0, y0, x1, y1 = box
    if kind == "square":
        draw.rounded_rectangle(box, radius=6, outline=colour, width=3)
    else:
        draw.ellipse(box, outline=colour, width=3)
    if kind == "double":
        draw.ellipse((x0 + 9, y0 + 9, x1 - 9, y1 - 9), outline=colour, width=2)
    if kind == "dashed":
        for a in range(0, 360, 30):
            draw.arc(box, a, a + 12, fill=image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)), width=4)
    return encode(image, "JPEG", 88), None, box


# ---------------------------------------------------------------- click the icons in order


def icon_click_sample(rng: random.Random) -> tuple[bytes, bytes, list[Box]]:
    """(picture, hint strip, box of each hinted icon in hint order). The picture holds the
    hinted icons turned and scaled at random plus a distractor or two; the hint strip shows
    them upright, small and in one colour."""
    w, h = rng.randint(300, 360), rng.randint(180, 230)
    image = background(rng, w, h)
    count = rng.randint(3, 4)
    names = rng.sample(SHAPES, count + rng.randint(0, 2))
    style = rng.choice(["vivid", "outlined", "white", "dark"])
    taken: list[Box] = []
    boxes: list[Box] = []
    for name in names:
        size = rng.randint(34, 50)
        mask = shape_mask(name, size, rng.uniform(0, 360))
        box = _place(rng, w, h, size, taken)
        fill = {"vivid": _vivid(rng), "outlined": _vivid(rng), "white": (250, 250, 250), "dark": (35, 35, 45)}[style]
        if style in ("outlined", "white"):  # a dark halo keeps the icon readable on any ground
            halo = mask.filter(ImageFilter.MaxFilter(5))
            image.paste(Image.new("RGB", mask.size, (30, 30, 30)), box[:2], halo.point(lambda v: int(v * 0.8)))
        image.paste(Image.new("RGB", mask.size, fill), box[:2], mask)
        boxes.append(_tight(box, mask))
    order = list(range(count))
    rng.shuffle(order)
    cell = rng.randint(26, 36)
    hint = Image.new("RGB", (cell * count + 8, cell + 8), rng.choice([(255, 255, 255), (240, 240, 240), (60, 60, 60)]))
    ink = (250, 250, 250) if hint.getpixel((0, 0))[0] < 128 else rng.choice([(20, 20, 20), (90, 90, 90), _vivid(rng)])
    for slot, k in enumerate(order):
        mask = shape_mask(names[k], cell - 4)
        hint.paste(Image.new("RGB", mask.size, ink), (6 + slot * cell, 6), mask)
    return encode(image, "JPEG", 90), encode(hint), [boxes[k] for k in order]


# ---------------------------------------------------------------- click the characters in order


def text_click_sample(rng: random.Random, script: str = "cjk") -> tuple[bytes, list[str], list[Box]]:
    """(picture, characters to click in order, their boxes). Characters are drawn turned,
    in several fonts and colours, with one or two unasked characters among them."""
    w, h = rng.randint(300, 360), rng.randint(180, 230)
    image = background(rng, w, h)
    alphabet = CJK_CHARS if script == "cjk" else UPPER_DIGITS.rstrip("0123456789")
    fonts = CJK_FONTS if script == "cjk" else LATIN_FONTS
    chars = rng.sample(alphabet, rng.randint(4, 5))
    taken: list[Box] = []
    boxes: list[Box] = []
    for ch in chars:
        size = rng.randint(28, 40)
        glyph = Image.new("L", (size * 2, size * 2), 0)
        ImageDraw.Draw(glyph).text((size // 2, size // 3), ch, font=font(rng.choice(fonts) if fonts else None, size),
                                   fill=255)
        glyph = glyph.rotate(rng.uniform(-35, 35), resample=Image.BICUBIC)
        glyph = glyph.crop(glyph.getbbox())
        side = max(glyph.size)
        box = _place(rng, w, h, side, taken)
        pos = (box[0] + (side - glyph.width) // 2, box[1] + (side - glyph.height) // 2)
        colour = _contrasting(rng, image.crop(box), [_vivid(rng), (20, 20, 20), (250, 250, 250)])
        if rng.random() < 0.4:  # an outline in the opposite tone
            rim = glyph.filter(ImageFilter.MaxFilter(3))
            image.paste(Image.new("RGB", glyph.size, tuple(255 - c for c in colour)), pos, rim)
        image.paste(Image.new("RGB", glyph.size, colour), pos, glyph)
        boxes.append((pos[0], pos[1], pos[0] + glyph.width, pos[1] + glyph.height))
    asked = rng.sample(range(len(chars)), rng.randint(3, min(4, len(chars))))
    return encode(image, "JPEG", 90), [chars[k] for k in asked], [boxes[k] for k in asked]


# ---------------------------------------------------------------- rotate to upright


def rotation_sample(rng: random.Random) -> tuple[bytes, float]:
    """(round picture turned counter-clockwise by θ, θ): rotating the picture θ degrees
    clockwise makes it upright. Outside the circle: white, grey or transparent."""
    size = rng.randint(160, 260)
    upright = scene(rng, size, size)
    angle = rng.uniform(0, 360)
    turned = upright.rotate(angle, resample=Image.BICUBIC)
    circle = Image.new("L", (size, size), 0)
    ImageDraw.Draw(circle).ellipse((1, 1, size - 2, size - 2), fill=255)
    outside = rng.choice(["white", "grey", "transparent"])
    if outside == "transparent":
        out = turned.convert("RGBA")
        out.putalpha(circle)
        return encode(out), angle
    ground = Image.new("RGB", (size, size), (255, 255, 255) if outside == "white" else (200, 200, 205))
    ground.paste(turned, (0, 0), circle)
    return encode(ground, rng.choice(["PNG", "JPEG"])), angle
