"""Small synthetic CAPTCHA generators for the solver tests.

Each generator takes a `random.Random` and returns the image bytes plus the ground truth, in
image pixels. Every generator mixes several styles (fonts, sizes, colours, backgrounds, noise,
shapes, rotations) so the tests measure the solvers on varied input rather than on one look.
These are our own simple drawings; they are not copies of any real CAPTCHA product.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

Box = tuple[int, int, int, int]  # left, top, right, bottom

_LATIN_FONT_CANDIDATES = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansMono-Bold.ttf",
]
_CJK_FONT_CANDIDATES = [
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
]
LATIN_FONTS = [p for p in _LATIN_FONT_CANDIDATES if Path(p).exists()]
CJK_FONTS = [p for p in _CJK_FONT_CANDIDATES if Path(p).exists()]
# Common characters seen in click-the-characters CAPTCHAs.
CJK_CHARS = "天地人和山水火木金土日月风云雨雪花草鸟鱼马牛羊虎龙春夏秋冬东南西北大小上下左右中国家学生书电车门开心手口耳目田力王白黑红"
UPPER_DIGITS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def font(path: str | None, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A TrueType font, or Pillow's built-in scalable font when none is installed."""
    if path:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def latin_font(rng: random.Random, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return font(rng.choice(LATIN_FONTS) if LATIN_FONTS else None, size)


def encode(image: Image.Image, fmt: str = "PNG", quality: int = 90) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(out, "JPEG", quality=quality)
    else:
        image.save(out, "PNG")
    return out.getvalue()


def _colour(rng: random.Random, lo: int = 0, hi: int = 255) -> tuple[int, int, int]:
    return (rng.randint(lo, hi), rng.randint(lo, hi), rng.randint(lo, hi))


def _vivid(rng: random.Random) -> tuple[int, int, int]:
    """A saturated colour: one channel high, one low, one anywhere."""
    channels = [rng.randint(170, 255), rng.randint(0, 70), rng.randint(0, 255)]
    rng.shuffle(channels)
    return (channels[0], channels[1], channels[2])


# ---------------------------------------------------------------- backgrounds


def background(rng: random.Random, w: int, h: int, style: str | None = None, *, light: bool = True) -> Image.Image:
    """A plain, gradient, blotchy, noisy or scenic background (light or dark tones)."""
    style = style or rng.choice(["flat", "gradient", "blobs", "noise", "scene"])
    lo, hi = (170, 255) if light else (20, 110)
    if style == "scene":
        return scene(rng, w, h)
    if style == "flat":
        image = Image.new("RGB", (w, h), _colour(rng, lo, hi))
    else:
        a, b = np.array(_colour(rng, lo, hi), float), np.array(_colour(rng, lo, hi), float)
        angle = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w]
        t = (xx * math.cos(angle) + yy * math.sin(angle)) / (w + h) + 0.5
        arr = a[None, None] * (1 - t[..., None]) + b[None, None] * t[..., None]
        image = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    if style == "blobs":
        for _ in range(rng.randint(6, 14)):
            x, y, r = rng.randint(0, w), rng.randint(0, h), rng.randint(8, max(12, h // 3))
            draw.ellipse((x - r, y - r, x + r, y + r), fill=_colour(rng, lo, hi))
        image = image.filter(ImageFilter.GaussianBlur(rng.uniform(2, 6)))
    if style == "noise":
        arr = np.asarray(image, dtype=np.int16)
        noise = np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(6, 18), arr.shape)
        image = Image.fromarray(np.clip(arr + noise, 0, 255).astype(np.uint8))
    return image


def scene(rng: random.Random, w: int, h: int) -> Image.Image:
    """A rough outdoor picture: sky (and clouds or sun) above a horizon, land or water below,
    with hills, trees or buildings. Used where the tests need natural-looking content."""
    sky_top = np.array(rng.choice([(70, 130, 220), (110, 160, 230), (40, 90, 180), (150, 190, 235), (235, 170, 120)]))
    sky_low = np.clip(sky_top + rng.randint(40, 90), 0, 255)
    ground_a = np.array(rng.choice([(60, 120, 50), (110, 140, 60), (120, 95, 60), (40, 80, 120), (150, 130, 90)]))
    ground_b = np.clip(ground_a - rng.randint(20, 50), 0, 255)
    horizon = int(h * rng.uniform(0.4, 0.65))
    yy = np.arange(h, dtype=float)[:, None, None]
    sky = sky_top + (sky_low - sky_top) * np.clip(yy / max(horizon, 1), 0, 1)
    ground = ground_a + (ground_b - ground_a) * np.clip((yy - horizon) / max(h - horizon, 1), 0, 1)
    arr = np.where(yy < horizon, sky, ground) * np.ones((1, w, 1))
    image = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    if rng.random() < 0.4:
        x, y, r = rng.randint(0, w), rng.randint(0, horizon // 2), rng.randint(8, max(10, h // 10))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(255, 245, 200))
    for _ in range(rng.randint(0, 4)):
        x, y = rng.randint(0, w), rng.randint(0, max(1, horizon - 20))
        rw, rh = rng.randint(w // 12, w // 4), rng.randint(h // 30 + 3, h // 10 + 4)
        draw.ellipse((x - rw, y - rh, x + rw, y + rh), fill=(245, 245, 250))
    for _ in range(rng.randint(1, 3)):  # hills on the horizon
        colour = tuple(int(c) for c in np.clip(ground_a + rng.randint(-40, 30), 0, 255))
        peak = horizon - rng.randint(h // 12, h // 4)
        xs = sorted(rng.randint(-w // 4, w + w // 4) for _ in range(2))
        mid = rng.randint(xs[0], xs[1])
        draw.polygon([(xs[0], horizon), (mid, peak), (xs[1], horizon)], fill=colour)
    for _ in range(rng.randint(2, 7)):  # trees and buildings stand on the ground
        x, base = rng.randint(0, w), rng.randint(horizon, h)
        size = rng.randint(h // 10, h // 4) * (0.5 + (base - horizon) / max(h - horizon, 1))
        if rng.random() < 0.5:
            trunk = max(2, int(size / 8))
            draw.rectangle((x - trunk, base - size, x + trunk, base), fill=(90, 60, 30))
            cr = size / 2.5
            draw.ellipse((x - cr, base - size - cr, x + cr, base - size + cr), fill=(30, rng.randint(90, 150), 40))
        else:
            bw = max(8.0, size * rng.uniform(0.4, 0.9))
            draw.rectangle((x, base - size, x + bw, base), fill=_colour(rng, 90, 200))
            for wy in np.arange(base - size + 4, base - 6, max(6, size / 6)):
                draw.rectangle((x + 3, wy, x + bw - 3, wy + 3), fill=(60, 70, 90))
    arr = np.asarray(image, dtype=np.int16)
    noise = np.random.default_rng(rng.randint(0, 2**31)).normal(0, 4, arr.shape)
    return Image.fromarray(np.clip(arr + noise, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.7))


def _noise_marks(rng: random.Random, image: Image.Image, lines: int, dots: int) -> None:
    draw = ImageDraw.Draw(image)
    w, h = image.size
    for _ in range(lines):
        points = [(rng.randint(0, w), rng.randint(0, h)) for _ in range(rng.randint(2, 4))]
        draw.line(points, fill=_colour(rng, 60, 200), width=rng.randint(1, 2))
    for _ in range(dots):
        x, y = rng.randint(0, w - 1), rng.randint(0, h - 1)
        draw.point((x, y), fill=_colour(rng, 0, 255))


def _warp(rng: random.Random, image: Image.Image, amplitude: float) -> Image.Image:
    """A gentle sine wave along x (a light distortion)."""
    arr = np.asarray(image)
    h, w = arr.shape[:2]
    period, phase = rng.uniform(40, 90), rng.uniform(0, 2 * math.pi)
    out = np.empty_like(arr)
    for x in range(w):
        shift = int(round(amplitude * math.sin(2 * math.pi * x / period + phase)))
        out[:, x] = np.roll(arr[:, x], shift, axis=0)
    return Image.fromarray(out)


# ---------------------------------------------------------------- OCR


OCR_STYLES = ("plain", "noisy", "rotated", "wavy", "dark", "crowded")


def ocr_sample(rng: random.Random, style: str | None = None, alphabet: str = UPPER_DIGITS) -> tuple[bytes, str]:
    """4–6 characters of `alphabet` (upper-case letters and digits), lightly distorted;
    returns (image, text)."""
    style = style or rng.choice(OCR_STYLES)
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 6)))
    size = rng.randint(28, 40)
    w, h = int(len(text) * size * 0.8 + 30), int(size * 1.7)
    image = background(rng, w, h, rng.choice(["flat", "gradient", "noise"]), light=style != "dark")
    fnt = latin_font(rng, size)
    colour = _colour(rng, 200, 255) if style == "dark" else _colour(rng, 0, 110)
    x = rng.randint(6, 14)
    for ch in text:
        glyph = Image.new("L", (size * 2, size * 2), 0)
        ImageDraw.Draw(glyph).text((size // 2, size // 3), ch, font=fnt, fill=255)
        if style in ("rotated", "noisy", "crowded"):
            glyph = glyph.rotate(rng.uniform(-15, 15), resample=Image.BILINEAR)
        box = glyph.getbbox() or (0, 0, 1, 1)
        glyph = glyph.crop(box)
        y = (h - glyph.height) // 2 + rng.randint(-3, 3)
        image.paste(Image.new("RGB", glyph.size, colour), (x, max(0, y)), glyph)
        x += glyph.width + (rng.randint(-4, 0) if style == "crowded" else rng.randint(1, 6))
    if style == "crowded":  # lines in the text's own colour, through the text
        draw = ImageDraw.Draw(image)
        for _ in range(2):
            draw.line([(0, rng.randint(h // 3, 2 * h // 3)), (w, rng.randint(h // 3, 2 * h // 3))], fill=colour, width=2)
    if style == "noisy":
        _noise_marks(rng, image, lines=rng.randint(1, 3), dots=rng.randint(40, 120))
    if style == "wavy":
        image = _warp(rng, image, rng.uniform(1.5, 3.0))
    return encode(image, rng.choice(["PNG", "JPEG"])), text


def arithmetic_sample(rng: random.Random) -> tuple[bytes, str]:
    """An image of "a op b = ?" with single-digit operands; returns (image, answer)."""
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    op = rng.choice("+-x")
    if op == "-" and b > a:
        a, b = b, a
    answer = {"+": a + b, "-": a - b, "x": a * b}[op]
    text = f"{a}{op}{b}=?"
    size = rng.randint(28, 38)
    image = background(rng, int(len(text) * size * 0.75 + 24), int(size * 1.6), rng.choice(["flat", "gradient"]))
    draw = ImageDraw.Draw(image)
    draw.text((10, size * 0.25), text, font=latin_font(rng, size), fill=_colour(rng, 0, 90))
    _noise_marks(rng, image, lines=rng.randint(0, 1), dots=rng.randint(0, 40))
    return encode(image), str(answer)


# ---------------------------------------------------------------- slider puzzles


@dataclass(frozen=True)
class SliderCase:
    background: bytes
    piece: bytes
    gap_left: int  # x of the gap's left edge in the background
    gap_centre: int
    piece_left: int  # x offset of the piece's visible part inside the piece image


def _piece_mask(rng: random.Random, size: int) -> Image.Image:
    """A jigsaw piece, rounded square, circle or shield, as an L mask with a 1-px margin."""
    kind = rng.choice(["jigsaw", "jigsaw", "rounded", "circle", "shield"])
    knob = size // 5 if kind == "jigsaw" else 0
    full = size + 2 * knob + 2
    mask = Image.new("L", (full, full), 0)
    draw = ImageDraw.Draw(mask)
    lo, hi = knob + 1, knob + 1 + size
    if kind == "circle":
        draw.ellipse((lo, lo, hi, hi), fill=255)
    elif kind == "shield":
        draw.polygon([(lo, lo), (hi, lo), (hi, lo + size * 0.6), ((lo + hi) / 2, hi), (lo, lo + size * 0.6)], fill=255)
    else:
        draw.rounded_rectangle((lo, lo, hi, hi), radius=size // 6 if kind == "rounded" else 2, fill=255)
    if kind == "jigsaw":
        mid = (lo + hi) / 2
        for side in rng.sample(["top", "right", "bottom", "left"], rng.randint(1, 3)):
            cx, cy = {"top": (mid, lo), "right": (hi, mid), "bottom": (mid, hi), "left": (lo, mid)}[side]
            draw.ellipse((cx - knob, cy - knob, cx + knob, cy + knob), fill=255 if rng.random() < 0.7 else 0)
    return mask.crop(mask.getbbox())


def _render_gap(rng: random.Random, bg: Image.Image, mask: Image.Image, pos: tuple[int, int]) -> None:
    """Mark a hole of shape `mask` at `pos`: darkened, whitened, filled grey, with or without rim."""
    style = rng.choice(["dark", "light", "grey", "shadow"])
    region = bg.crop((pos[0], pos[1], pos[0] + mask.width, pos[1] + mask.height))
    if style == "dark":
        marked = Image.eval(region, lambda v: int(v * rng.uniform(0.3, 0.55)))
    elif style == "light":
        marked = Image.blend(region, Image.new("RGB", region.size, (255, 255, 255)), rng.uniform(0.5, 0.75))
    elif style == "grey":
        marked = Image.blend(region, Image.new("RGB", region.size, _colour(rng, 60, 160)), rng.uniform(0.7, 0.9))
    else:
        marked = Image.blend(region, Image.new("RGB", region.size, (0, 0, 0)), rng.uniform(0.5, 0.7))
    bg.paste(marked, pos, mask)
    if rng.random() < 0.6:  # a thin rim around the hole
        rim = ImageChops.subtract(mask.filter(ImageFilter.MaxFilter(3)), mask.filter(ImageFilter.MinFilter(3)))
        bg.paste(Image.new("RGB", mask.size, _colour(rng, 200, 255)), pos, rim.point(lambda v: int(v * 0.7)))


def slider_sample(rng: random.Random) -> SliderCase:
    """A background with a puzzle-shaped hole and the matching piece (with or without a
    transparent strip around it, or on an opaque plain backing)."""
    w, h = rng.randint(260, 360), rng.randint(150, 200)
    bg = background(rng, w, h, rng.choice(["scene", "scene", "blobs", "noise", "gradient"]))
    mask = _piece_mask(rng, rng.randint(38, 56))
    pw, ph = mask.size
    gx, gy = rng.randint(pw + 10, w - pw - 4), rng.randint(4, h - ph - 4)
    piece = Image.new("RGBA", (pw, ph))
    piece.paste(bg.crop((gx, gy, gx + pw, gy + ph)), (0, 0), mask)
    edge = ImageChops.subtract(mask, mask.filter(ImageFilter.MinFilter(3)))
    piece.paste(Image.new("RGBA", (pw, ph), (*_colour(rng, 220, 255), 255)), (0, 0), edge)
    if rng.random() < 0.35:  # a decoy hole elsewhere, of another shape or size
        decoy = _piece_mask(rng, rng.choice([pw - 12, pw + 10]))
        dx, dy = rng.randint(0, w - decoy.width), rng.randint(0, h - decoy.height)
        if abs(dx - gx) > pw:
            _render_gap(rng, bg, decoy, (dx, dy))
    _render_gap(rng, bg, mask, (gx, gy))
    layout = rng.choice(["tight", "strip", "strip", "opaque"])
    offset = 0
    if layout == "strip":  # full-height transparent strip, the piece at the hole's height
        offset = rng.randint(0, 8)
        strip = Image.new("RGBA", (pw + offset + rng.randint(0, 8), h))
        strip.paste(piece, (offset, gy), piece)
        piece_bytes = encode(strip)
    elif layout == "opaque":  # no alpha: the piece on a plain backing
        offset = rng.randint(2, 8)
        backing = Image.new("RGB", (pw + 2 * offset, ph + 2 * offset), _colour(rng, 230, 255))
        backing.paste(piece, (offset, offset), piece)
        piece_bytes = encode(backing)
    else:
        piece_bytes = encode(piece)
    return SliderCase(encode(bg, "JPEG", rng.randint(70, 92)), piece_bytes, gx, gx + pw // 2, offset)


def slider_pair_sample(rng: random.Random) -> tuple[bytes, bytes, int]:
    """(background with a hole, the same background without it, x of the hole's left edge)."""
    w, h = rng.randint(260, 360), rng.randint(150, 200)
    clean = background(rng, w, h, rng.choice(["scene", "blobs", "noise"]))
    holed = clean.copy()
    mask = _piece_mask(rng, rng.randint(38, 56))
    gx, gy = rng.randint(mask.width + 10, w - mask.width - 4), rng.randint(4, h - mask.height - 4)
    _render_gap(rng, holed, mask, (gx, gy))
    return encode(holed, "JPEG", 90), encode(clean, "JPEG", 90), gx


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
