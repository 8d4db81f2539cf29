"""Image decoding and the small value types shared by the solvers.

All solvers take encoded image bytes (PNG, JPEG, WebP, GIF, BMP: whatever Pillow reads) and
answer in pixel coordinates of that image: x to the right, y down, origin at the top-left
pixel.
"""

from __future__ import annotations

import io
from typing import NamedTuple

import numpy as np
from PIL import Image, UnidentifiedImageError

MAX_SIDE = 4096  # CAPTCHA images are small; anything larger is a mistake or an attack


class SolverInputError(ValueError):
    """The input cannot be solved as given: unreadable image, empty or inconsistent arguments."""


class PixelPoint(NamedTuple):
    """A point in image pixels (not the model's 0-999 grid of `workers.actions.Point`)."""

    x: int
    y: int


def border_pixels(array: np.ndarray) -> np.ndarray:
    """The pixels of the image's outermost rows and columns (N×channels): where its background
    shows, for the solvers that take the border's median colour as the background."""
    return np.concatenate([array[0], array[-1], array[:, 0], array[:, -1]])


def open_image(data: bytes) -> Image.Image:
    """Decode `data` into a loaded Pillow image, or raise `SolverInputError`."""
    if not data:
        raise SolverInputError("empty image")
    try:
        image = Image.open(io.BytesIO(data))
        in_range = max(image.size) <= MAX_SIDE and min(image.size) >= 4  # the header's size: decode only then
        if in_range:
            image.load()
    except UnidentifiedImageError as exc:
        raise SolverInputError("unreadable image: not a format Pillow knows (PNG, JPEG, GIF, WebP, BMP)") from exc
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise SolverInputError(f"unreadable image: {exc}") from exc
    if not in_range:
        raise SolverInputError(f"image size {image.size} out of range")
    return image


def rgb_array(data: bytes | Image.Image, *, matte: tuple[int, int, int] = (255, 255, 255)) -> np.ndarray:
    """H×W×3 uint8 RGB; transparent pixels are composited over `matte`."""
    image = open_image(data) if isinstance(data, bytes) else data
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        base = Image.new("RGBA", rgba.size, (*matte, 255))
        return np.asarray(Image.alpha_composite(base, rgba).convert("RGB"))
    return np.asarray(image.convert("RGB"))


def png_bytes(rgb: np.ndarray) -> bytes:
    """An RGB array encoded as PNG (for libraries that decode bytes themselves)."""
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, "PNG")
    return out.getvalue()


def rgba_array(data: bytes | Image.Image) -> np.ndarray:
    """H×W×4 uint8 RGBA (opaque images get alpha 255)."""
    image = open_image(data) if isinstance(data, bytes) else data
    return np.asarray(image.convert("RGBA"))
