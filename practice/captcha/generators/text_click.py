"""Chinese character click: click the characters named in the hint, in order."""

from __future__ import annotations

import colorsys
import random
from typing import Any

from PIL import Image, ImageDraw, ImageFilter, ImageStat

from practice.captcha.drawing import hsv, place, png, textured_background
from practice.captcha.fonts import cjk_font
from practice.captcha.generators.base import Generated
from practice.captcha.generators.icon_click import clicks_match
from practice.captcha.generators.icon_click import expected_answer as _centres

WIDTH, HEIGHT = 320, 200
TARGETS = 3
TOLERANCE = 4
# About a hundred common characters, all clearly distinct at 30-40 px.
POOL = tuple(dict.fromkeys(
    "春夏秋冬风花雪月山水天地日星云雨田林木火土金石江河湖海人口手心耳目"
    "大小上下左右中东西南北前后高长明光开关生白红黄青绿黑马牛羊鸟鱼虫米"
    "茶果门车船书笔画家国学文字语音乐电飞竹草树叶面包房百千万方正美好新福"
))


def generate(rng: random.Random) -> Generated:
    """4-5 rotated, coloured characters on a textured background, without overlaps."""
    chars = rng.sample(POOL, rng.randint(4, 5))
    tiles = [_glyph(rng, char) for char in chars]
    slots = None
    while slots is None:
        slots = place(rng, [t.size for t, _ in tiles], (4, 4, WIDTH - 4, HEIGHT - 4), gap=6)
    img = textured_background(rng, (WIDTH, HEIGHT), light=True, blob_count=22, grain=0.08, dots=120)
    boxes = []
    for (glyph, halo), slot in zip(tiles, slots, strict=True):
        colour = _contrasting(rng, img.crop(slot))
        img.paste(Image.new("RGB", glyph.size, (255, 255, 255)), slot[:2], halo)
        img.paste(Image.new("RGB", glyph.size, colour), slot[:2], glyph)
        x0, y0, x1, y1 = glyph.getbbox() or (0, 0, *glyph.size)
        boxes.append([slot[0] + x0, slot[1] + y0, slot[0] + x1, slot[1] + y1])
    order = rng.sample(range(len(chars)), TARGETS)
    hint = [chars[i] for i in order]
    return Generated(
        solution={"boxes": [boxes[i] for i in order], "tolerance": TOLERANCE, "chars": hint},
        images={"image": png(img)},
        view={"width": WIDTH, "height": HEIGHT,
              "instruction": "请依次点击：" + "".join(f"「{c}」" for c in hint)},
    )


def _contrasting(rng: random.Random, region: Image.Image) -> tuple[int, int, int]:
    """A saturated, darkish colour whose hue is far from the background's under the glyph."""
    r, g, b = (c / 255 for c in ImageStat.Stat(region).mean[:3])
    bg_hue = colorsys.rgb_to_hsv(r, g, b)[0]
    while True:
        hue = rng.random()
        if min(abs(hue - bg_hue), 1 - abs(hue - bg_hue)) >= 0.25:
            return hsv(rng, (0.7, 1.0), (0.3, 0.6), hue=hue)


def _glyph(rng: random.Random, char: str) -> tuple[Image.Image, Image.Image]:
    """The character's mask, rotated up to 30 degrees either way, and a 1 px halo mask."""
    size = rng.randint(30, 40)
    tile = Image.new("L", (size * 2, size * 2), 0)
    ImageDraw.Draw(tile).text((size, size), char, font=cjk_font(size), fill=255, anchor="mm")
    tile = tile.rotate(rng.uniform(-30, 30), resample=Image.Resampling.BICUBIC)
    x0, y0, x1, y1 = tile.getbbox() or (0, 0, *tile.size)
    glyph = tile.crop((x0 - 2, y0 - 2, x1 + 2, y1 + 2))
    return glyph, glyph.filter(ImageFilter.MaxFilter(3))


def verify(solution: dict[str, Any], answer: str) -> bool:
    """Exactly one click per character, in order, each inside its box (+ tolerance)."""
    return clicks_match(solution, answer)


def expected_answer(solution: dict[str, Any]) -> str:
    """The centres of the characters' boxes, in order."""
    return _centres(solution)
