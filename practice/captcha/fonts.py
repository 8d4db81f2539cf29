"""Locate the TrueType fonts the generators draw with (Debian paths, with fallbacks)."""

from __future__ import annotations

import functools
import random
import threading
from pathlib import Path

from PIL import ImageFont

# fonts-dejavu-core and fonts-liberation (scripts/setup.sh installs both).
LATIN_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
)
# fonts-wqy-microhei first; the others are common alternatives with CJK coverage.
CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)

FontType = ImageFont.FreeTypeFont | ImageFont.ImageFont

# Font objects wrap a FreeType face that is not safe to share between threads, and the
# practice server is threaded: cache them per thread.
_local = threading.local()


@functools.cache
def _existing(paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in paths if Path(p).is_file())


def _load(path: str, size: int) -> ImageFont.FreeTypeFont:
    cache: dict[tuple[str, int], ImageFont.FreeTypeFont] = _local.__dict__.setdefault("fonts", {})
    key = (path, size)
    if key not in cache:
        cache[key] = ImageFont.truetype(path, size)
    return cache[key]


def latin_font(rng: random.Random, size: int) -> FontType:
    """A random bold Latin font; Pillow's bundled font when none is installed."""
    paths = _existing(LATIN_FONTS)
    if not paths:
        return ImageFont.load_default(size)
    return _load(rng.choice(paths), size)


def cjk_font(size: int) -> ImageFont.FreeTypeFont:
    """The WenQuanYi Micro Hei font (or another installed CJK font)."""
    paths = _existing(CJK_FONTS)
    if not paths:
        raise RuntimeError("No CJK font found: install fonts-wqy-microhei (scripts/setup.sh does).")
    return _load(paths[0], size)
