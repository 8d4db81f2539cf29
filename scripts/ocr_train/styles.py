"""Our own text-CAPTCHA generator for training the recogniser: many looks from one function.

`draw(rng) -> (image, text)` picks, per image, an alphabet and a length (4-8), a background
(plain, gradient, blotches, speckle, stripes; light or dark), per-glyph fonts, sizes,
rotations (up to 65 degrees), shears, colours (sometimes faint against the background),
spacing (from overlapping glyphs to glyphs spread wide apart), hollow or outlined glyphs, a
layout (text filling the image, or a smaller line anywhere in a taller picture with glyphs
bobbing up and down), noise (up to eight lines and arcs through the text, dots, circles, a
grid), a wave or perspective warp, blur and JPEG compression. (The seventh recipe widened the
rotations, spacing, layouts, faint ink and line counts.) Only training fonts are used (`fonts.TRAIN_FONTS`); the
benchmark's third-party generators draw with fonts this never sees.
"""

from __future__ import annotations

import functools
import io
import math
import random
import string

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from scripts.ocr_train.fonts import TRAIN_FONTS


@functools.lru_cache(maxsize=2048)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)

ALPHABETS = (
    (string.ascii_uppercase + string.digits, 0.35),
    (string.ascii_letters + string.digits, 0.30),
    (string.ascii_lowercase + string.digits, 0.15),
    (string.digits, 0.10),
    (string.ascii_letters, 0.10),
)
Colour = tuple[int, int, int]


def pick_text(rng: random.Random) -> str:
    """A random code: an alphabet by weight, a length from 4 to 8."""
    alphabet = rng.choices([a for a, _ in ALPHABETS], [w for _, w in ALPHABETS])[0]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 8)))


def _colour(rng: random.Random, dark: bool) -> Colour:
    lo, hi = (0, 110) if dark else (150, 255)
    return (rng.randint(lo, hi), rng.randint(lo, hi), rng.randint(lo, hi))


def _background(rng: random.Random, w: int, h: int, dark: bool) -> Image.Image:
    kind = rng.choice(("plain", "plain", "gradient", "blotches", "speckle", "stripes"))
    base = _colour(rng, dark)
    img = Image.new("RGB", (w, h), base)
    draw = ImageDraw.Draw(img)
    if kind == "gradient":
        other = _colour(rng, dark)
        for x in range(w):
            t = x / max(1, w - 1)
            draw.line([(x, 0), (x, h)], fill=tuple(round(a + (b - a) * t) for a, b in zip(base, other)))
    elif kind == "blotches":
        for _ in range(rng.randint(4, 12)):
            x, y, r = rng.randint(0, w), rng.randint(0, h), rng.randint(h // 4, h)
            draw.ellipse((x - r, y - r, x + r, y + r), fill=_colour(rng, dark))
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(2, 6)))
    elif kind == "speckle":
        for _ in range(w * h // rng.randint(3, 8)):
            draw.point((rng.randrange(w), rng.randrange(h)), fill=_colour(rng, dark))
    elif kind == "stripes":
        step = rng.randint(3, 9)
        for x in range(-h, w, step):
            draw.line([(x, 0), (x + h, h)], fill=_colour(rng, dark), width=1)
    return img


def _glyph(rng: random.Random, char: str, font: ImageFont.FreeTypeFont, style: dict) -> Image.Image:
    """A glyph mask ("L"), rotated and sheared, cropped to its ink."""
    size = font.size
    tile = Image.new("L", (size * 2, size * 2), 0)
    draw = ImageDraw.Draw(tile)
    if style["hollow"]:
        draw.text((size, size), char, font=font, fill=0, anchor="mm", stroke_width=max(1, size // 16),
                  stroke_fill=255)
    else:
        draw.text((size, size), char, font=font, fill=255, anchor="mm")
    if style["shear"]:
        k = rng.uniform(-0.35, 0.35)
        tile = tile.transform(tile.size, Image.Transform.AFFINE, (1, k, -k * size, 0, 1, 0), Image.Resampling.BILINEAR)
    tile = tile.rotate(rng.uniform(-style["rotate"], style["rotate"]), resample=Image.Resampling.BICUBIC)
    if style["scale_y"] != 1.0:
        tile = tile.resize((tile.width, max(1, round(tile.height * style["scale_y"]))))
    box = tile.getbbox()
    return tile.crop(box) if box else tile


def _style(rng: random.Random) -> dict:
    return {
        "dark": rng.random() < 0.15,
        "font_per_glyph": rng.random() < 0.35,
        "colour_per_glyph": rng.random() < 0.5,
        "hollow": rng.random() < 0.08,
        "shear": rng.random() < 0.3,
        "rotate": rng.choice((0, 8, 15, 25, 35, 50, 65)),
        "scale_y": rng.choice((1.0, 1.0, 1.0, 0.8, 1.2)),
        "spacing": rng.choice((-0.25, -0.12, 0.0, 0.0, 0.1, 0.25, 0.5, 0.9)),
        "jitter_y": rng.uniform(0, 0.18),
        "loose": rng.random() < 0.2,  # a smaller line of text anywhere in a taller picture
        "faint": rng.random() < 0.1,  # ink close to the background's colour
    }


def _text_layer(rng: random.Random, text: str, h: int, style: dict) -> tuple[list, float, float]:
    """The glyph masks for a text `h` pixels high: (glyphs with widths, total width, gap between)."""
    font_path = rng.choice(TRAIN_FONTS)
    size = round(h * rng.uniform(0.55, 0.95))
    glyphs = []
    for char in text:
        path = rng.choice(TRAIN_FONTS) if style["font_per_glyph"] else font_path
        gsize = max(10, round(size * rng.uniform(0.85, 1.15)))
        glyphs.append(_glyph(rng, char, _font(path, gsize), style))
    widths = [g.width for g in glyphs]
    gap = style["spacing"] * size
    total = sum(widths) + gap * (len(glyphs) - 1)
    return list(zip(glyphs, widths)), total, gap


def _noise(rng: random.Random, img: Image.Image, ink: Colour, dark: bool) -> None:
    draw = ImageDraw.Draw(img)
    w, h = img.size
    for _ in range(rng.choice((0, 0, 1, 2, 3, 5, 8))):
        colour = ink if rng.random() < 0.4 else _colour(rng, not dark)
        width = rng.choice((1, 1, 2, 3))
        if rng.random() < 0.5:
            draw.line([(rng.randint(0, w // 4), rng.randint(0, h)), (rng.randint(3 * w // 4, w), rng.randint(0, h))],
                      fill=colour, width=width)
        else:
            x, y, r = rng.randint(-w // 2, w // 2), rng.randint(-h, h // 2), rng.randint(w // 2, w)
            draw.arc((x, y, x + r * 2, y + r), rng.randint(0, 180), rng.randint(180, 360), fill=colour, width=width)
    for _ in range(rng.choice((0, 0, 30, 100, 300))):
        draw.point((rng.randrange(w), rng.randrange(h)), fill=_colour(rng, not dark) if rng.random() < 0.5 else ink)
    for _ in range(rng.choice((0, 0, 0, 5, 15))):
        x, y, r = rng.randrange(w), rng.randrange(h), rng.randint(1, max(2, h // 10))
        draw.ellipse((x - r, y - r, x + r, y + r), outline=_colour(rng, not dark))
    if rng.random() < 0.05:
        step = rng.randint(6, 14)
        for x in range(0, w, step):
            draw.line([(x, 0), (x, h)], fill=_colour(rng, not dark))
        for y in range(0, h, step):
            draw.line([(0, y), (w, y)], fill=_colour(rng, not dark))


def _warp(rng: random.Random, img: Image.Image) -> Image.Image:
    kind = rng.choice(("none", "none", "wave", "wave", "perspective"))
    w, h = img.size
    if kind == "wave":
        amp, period, phase = rng.uniform(1, h * 0.08), rng.uniform(w * 0.3, w * 1.2), rng.uniform(0, 6.3)
        out = img.copy()
        for x in range(w):
            out.paste(img.crop((x, 0, x + 1, h)), (x, round(amp * math.sin(2 * math.pi * x / period + phase))))
        return out
    if kind == "perspective":
        d = [rng.uniform(-0.08, 0.08) * s for s in (w, h, w, h, w, h, w, h)]
        quad = (d[0], d[1], d[2], h + d[3], w + d[4], h + d[5], w + d[6], d[7])
        return img.transform(img.size, Image.Transform.QUAD, quad, Image.Resampling.BILINEAR)
    return img


def _finish(rng: random.Random, img: Image.Image) -> Image.Image:
    if rng.random() < 0.25:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.1)))
    if rng.random() < 0.3:
        out = io.BytesIO()
        img.save(out, "JPEG", quality=rng.randint(25, 85))
        img = Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    return img


def draw(rng: random.Random) -> tuple[Image.Image, str]:
    """One training CAPTCHA and its text."""
    text = pick_text(rng)
    style = _style(rng)
    line = rng.randint(32, 90)  # the text line's height
    placed, total, gap = _text_layer(rng, text, line, style)
    h = round(line * rng.uniform(1.4, 2.6)) if style["loose"] else line
    top = rng.uniform(0.1, 0.9) * (h - line)
    jitter = style["jitter_y"] + (rng.uniform(0.1, 0.3) if style["loose"] else 0.0)
    w = max(round(total + rng.uniform(0.1, 0.6) * line), round(h * rng.uniform(2.0, 4.5)))
    img = _background(rng, w, h, style["dark"])
    paper = img.getpixel((w // 2, h // 2))
    ink = _colour(rng, not style["dark"])
    x = (w - total) / 2 + rng.uniform(-0.1, 0.1) * (w - total)
    for glyph, width in placed:
        colour = _colour(rng, not style["dark"]) if style["colour_per_glyph"] else ink
        if style["faint"]:
            t = rng.uniform(0.3, 0.55)
            colour = tuple(round(c * (1 - t) + p * t) for c, p in zip(colour, paper, strict=True))
        y = top + (line - glyph.height) / 2 + rng.uniform(-1, 1) * jitter * line
        img.paste(Image.new("RGB", glyph.size, colour), (round(x), round(y)), glyph)
        x += width + gap
    _noise(rng, img, ink, style["dark"])
    return _finish(rng, _warp(rng, img)), text
