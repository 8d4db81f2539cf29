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


def slider_sample(rng: random.Random, *, twin_decoys: int = 0) -> SliderCase:
    """A background with a puzzle-shaped hole and the matching piece (with or without a
    transparent strip around it, or on an opaque plain backing). `twin_decoys` adds that many
    decoy holes of the piece's own shape and size, marked like the true one."""
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
    taken = [gx]
    for _ in range(twin_decoys):
        for _try in range(20):
            dx, dy = rng.randint(0, w - pw), rng.randint(0, h - ph)
            if all(abs(dx - x) > pw + 4 for x in taken):
                _render_gap(rng, bg, mask, (dx, dy))
                taken.append(dx)
                break
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


def slider_crop_sample(rng: random.Random, *, frame: int = 0, twin_decoys: int = 0) -> SliderCase:
    """A rectangular hole and its piece cut straight out of the picture: an opaque rectangle with
    no backing and no transparency (its border is the picture, not one colour). `frame`: a light
    frame that wide drawn over the hole's own edge (inside it); `twin_decoys`: that many holes of
    the same size elsewhere, marked and framed the same way."""
    w, h = rng.randint(260, 360), rng.randint(150, 200)
    bg = background(rng, w, h, rng.choice(["scene", "scene", "blobs", "noise", "gradient"]))
    pw, ph = rng.randint(38, 60), rng.randint(38, 60)
    gx, gy = rng.randint(pw + 10, w - pw - 4), rng.randint(4, h - ph - 4)
    piece = bg.crop((gx, gy, gx + pw, gy + ph)).convert("RGB")
    holes = [(gx, gy)]
    for _ in range(twin_decoys):
        for _try in range(20):
            dx, dy = rng.randint(0, w - pw), rng.randint(0, h - ph)
            if all(abs(dx - x) > pw + 4 for x, _ in holes):
                holes.append((dx, dy))
                break
    for x, y in holes:
        _render_gap(rng, bg, Image.new("L", (pw, ph), 255), (x, y))
        if frame:
            ImageDraw.Draw(bg).rectangle((x, y, x + pw - 1, y + ph - 1), outline=_colour(rng, 235, 255), width=frame)
    return SliderCase(encode(bg, rng.choice(["PNG", "JPEG"])), encode(piece), gx, gx + pw // 2, 0)


def slider_pair_sample(rng: random.Random) -> tuple[bytes, bytes, int]:
    """(background with a hole, the same background without it, x of the hole's left edge)."""
    w, h = rng.randint(260, 360), rng.randint(150, 200)
    clean = background(rng, w, h, rng.choice(["scene", "blobs", "noise"]))
    holed = clean.copy()
    mask = _piece_mask(rng, rng.randint(38, 56))
    gx, gy = rng.randint(mask.width + 10, w - mask.width - 4), rng.randint(4, h - mask.height - 4)
    _render_gap(rng, holed, mask, (gx, gy))
    return encode(holed, "JPEG", 90), encode(clean, "JPEG", 90), gx
