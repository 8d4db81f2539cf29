"""A second text-CAPTCHA generator for training: the look most web CAPTCHA libraries share.

`draw(rng) -> (image, text)`: a short code (mostly capitals and digits, 4-7 characters) whose
glyphs fill most of the image height, each glyph distorted on its own (rotation, a random
perspective quad, a vertical offset) and laid out in slots or packed tight, then strokes drawn
through the text (sine waves, Bezier curves, straight lines; often in the ink colour), noise
dots, a ripple of the whole image, a smoothing filter and sometimes JPEG. This is the common
recipe of PHP/Java/Python CAPTCHA libraries in general, written here from that description;
it copies no generator, and the benchmark's third-party generators stay out of it. Only
training fonts are used (`fonts.TRAIN_FONTS`).
"""

from __future__ import annotations

import io
import math
import random
import string

from PIL import Image, ImageDraw, ImageFilter

from scripts.ocr_train.fonts import TRAIN_FONTS
from scripts.ocr_train.styles import Colour, _colour, _font

ALPHABETS = (
    (string.ascii_uppercase + string.digits, 0.6),
    (string.ascii_letters + string.digits, 0.2),
    (string.ascii_lowercase + string.digits, 0.1),
    (string.digits, 0.1),
)


def _text(rng: random.Random) -> str:
    alphabet = rng.choices([a for a, _ in ALPHABETS], [w for _, w in ALPHABETS])[0]
    return "".join(rng.choice(alphabet) for _ in range(rng.choice((4, 4, 5, 5, 6, 6, 7))))


def _background(rng: random.Random, w: int, h: int) -> Image.Image:
    kind = rng.choice(("plain", "plain", "noise", "gradient"))
    base = _colour(rng, dark=False)
    if kind == "noise":  # coarse random pastel cells, smoothed
        cell = rng.randint(2, 8)
        small = Image.new("RGB", (max(1, w // cell), max(1, h // cell)))
        small.putdata([_colour(rng, dark=False) for _ in range(small.width * small.height)])
        return small.resize((w, h), Image.Resampling.BILINEAR)
    img = Image.new("RGB", (w, h), base)
    if kind == "gradient":
        other, draw = _colour(rng, dark=False), ImageDraw.Draw(img)
        for y in range(h):
            t = y / max(1, h - 1)
            draw.line([(0, y), (w, y)], fill=tuple(round(a + (b - a) * t) for a, b in zip(base, other)))
    return img


def _glyph(rng: random.Random, char: str, path: str, size: int, bold: bool) -> Image.Image:
    """One glyph mask, rotated and pulled into a random quadrilateral, cropped to its ink."""
    font = _font(path, size)
    tile = Image.new("L", (size * 2, size * 2), 0)
    ImageDraw.Draw(tile).text((size, size), char, font=font, fill=255, anchor="mm",
                              stroke_width=max(1, size // 24) if bold else 0, stroke_fill=255)
    tile = tile.rotate(rng.uniform(-30, 30), resample=Image.Resampling.BICUBIC)
    box = tile.getbbox()
    if not box:
        return tile
    tile = tile.crop(box)
    w, h = tile.size
    d = [rng.uniform(-0.12, 0.12) * s for s in (w, h, w, h, w, h, w, h)]
    quad = (d[0], d[1], d[2], h + d[3], w + d[4], h + d[5], w + d[6], d[7])
    pad = Image.new("L", (w, h), 0)
    pad.paste(tile.transform((w, h), Image.Transform.QUAD, quad, Image.Resampling.BILINEAR))
    box = pad.getbbox()
    return pad.crop(box) if box else pad


def _strokes(rng: random.Random, img: Image.Image, ink: Colour, top: int, bottom: int) -> None:
    """Lines and curves across the text band."""
    draw = ImageDraw.Draw(img)
    w, _ = img.size
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        colour = ink if rng.random() < 0.6 else _colour(rng, dark=True)
        width = rng.choice((1, 2, 2, 3, 4))
        kind = rng.choice(("sine", "bezier", "line"))
        if kind == "line":
            draw.line([(rng.randint(0, w // 5), rng.randint(top, bottom)),
                       (rng.randint(4 * w // 5, w), rng.randint(top, bottom))], fill=colour, width=width)
            continue
        x0, x1 = rng.randint(0, w // 4), rng.randint(3 * w // 4, w)
        if kind == "sine":
            amp, period, phase = rng.uniform(2, (bottom - top) / 2), rng.uniform(w * 0.3, w * 1.5), rng.uniform(0, 6.3)
            mid = rng.uniform(top, bottom)
            points = [(x, mid + amp * math.sin(2 * math.pi * x / period + phase)) for x in range(x0, x1, 2)]
        else:
            ctrl = [(x0, rng.uniform(top, bottom)), (rng.uniform(x0, x1), rng.uniform(top - 10, bottom + 10)),
                    (rng.uniform(x0, x1), rng.uniform(top - 10, bottom + 10)), (x1, rng.uniform(top, bottom))]
            points = [_bezier(ctrl, t / 40) for t in range(41)]
        draw.line(points, fill=colour, width=width, joint="curve")


def _bezier(ctrl: list[tuple[float, float]], t: float) -> tuple[float, float]:
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = ctrl
    u = 1 - t
    return (u ** 3 * ax + 3 * u * u * t * bx + 3 * u * t * t * cx + t ** 3 * dx,
            u ** 3 * ay + 3 * u * u * t * by + 3 * u * t * t * cy + t ** 3 * dy)


def _ripple(rng: random.Random, img: Image.Image) -> Image.Image:
    """Shift columns (and sometimes rows) along sine waves."""
    w, h = img.size
    out = img
    if rng.random() < 0.6:
        amp, period, phase = rng.uniform(1, h * 0.1), rng.uniform(w * 0.25, w), rng.uniform(0, 6.3)
        src, out = out, out.copy()
        for x in range(w):
            out.paste(src.crop((x, 0, x + 1, h)), (x, round(amp * math.sin(2 * math.pi * x / period + phase))))
    if rng.random() < 0.3:
        amp, period, phase = rng.uniform(1, h * 0.08), rng.uniform(h * 0.5, h * 2), rng.uniform(0, 6.3)
        src, out = out, out.copy()
        for y in range(h):
            out.paste(src.crop((0, y, w, y + 1)), (round(amp * math.sin(2 * math.pi * y / period + phase)), y))
    return out


def draw(rng: random.Random) -> tuple[Image.Image, str]:
    """One CAPTCHA in the common library style and its text."""
    text = _text(rng)
    h = rng.randint(36, 80)
    font_path, per_glyph, bold = rng.choice(TRAIN_FONTS), rng.random() < 0.3, rng.random() < 0.3
    size = round(h * rng.uniform(0.7, 1.0))
    glyphs = [_glyph(rng, c, rng.choice(TRAIN_FONTS) if per_glyph else font_path,
                     max(12, round(size * rng.uniform(0.85, 1.1))), bold) for c in text]
    slots = rng.random() < 0.5
    gap = rng.uniform(-0.15, 0.1) * size
    packed = sum(g.width for g in glyphs) + gap * (len(glyphs) - 1)
    w = max(round(packed + rng.uniform(0.2, 0.8) * h), round(h * rng.uniform(2.2, 4.0)))
    img = _background(rng, w, h)
    ink, per_colour = _colour(rng, dark=True), rng.random() < 0.5
    margin = rng.uniform(0.03, 0.1) * w
    slot_w = (w - 2 * margin) / len(glyphs)
    x = margin if slots else (w - packed) / 2
    for i, glyph in enumerate(glyphs):
        colour = _colour(rng, dark=True) if per_colour else ink
        left = margin + slot_w * (i + 0.5) - glyph.width / 2 + rng.uniform(-0.15, 0.15) * slot_w if slots else x
        y = (h - glyph.height) / 2 + rng.uniform(-0.15, 0.15) * h
        img.paste(Image.new("RGB", glyph.size, colour), (round(left), round(y)), glyph)
        x += glyph.width + gap
    _strokes(rng, img, ink, round(h * 0.25), round(h * 0.75))
    dots = ImageDraw.Draw(img)
    for _ in range(int(w * h * rng.choice((0, 0.01, 0.03, 0.08)))):
        dots.point((rng.randrange(w), rng.randrange(h)), fill=ink if rng.random() < 0.5 else _colour(rng, dark=True))
    img = _ripple(rng, img)
    if rng.random() < 0.75:
        img = img.filter(rng.choice((ImageFilter.SMOOTH, ImageFilter.SMOOTH_MORE, ImageFilter.GaussianBlur(0.6))))
    if rng.random() < 0.3:
        out = io.BytesIO()
        img.save(out, "JPEG", quality=rng.randint(30, 90))
        img = Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    return img, text
