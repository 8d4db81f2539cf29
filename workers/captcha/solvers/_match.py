"""Matching primitives shared by the solvers: gradients, a flat-safe normalised
cross-correlation, a shading-contrast score for outlined regions, and foreground masks."""

from __future__ import annotations

import cv2
import numpy as np

from workers.captcha.solvers._image import border_pixels


def gradient(grey: np.ndarray) -> np.ndarray:
    """Sobel gradient magnitude (float32) of a grey image."""
    grey = grey.astype(np.float32)
    return cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))


def colour_gradient(rgb: np.ndarray) -> np.ndarray:
    """Largest per-channel gradient magnitude: sees a red line on a pink ground that grey misses."""
    blurred = cv2.GaussianBlur(rgb, (3, 3), 0)
    return np.max(np.stack([gradient(blurred[..., c]) for c in range(3)]), axis=0)


def edge_map(rgb: np.ndarray) -> np.ndarray:
    """log(1 + gradient / mean gradient): edges on a comparable scale from image to image."""
    grad = colour_gradient(rgb)
    return np.log1p(grad / (float(grad.mean()) + 1e-6))


def outline(mask: np.ndarray, width: int = 3) -> np.ndarray:
    """The boundary band of a 0/255 mask as float32 0/1, where the shape meets the array's
    edge too (a piece cropped to its box, a rectangle cut out of a picture): outside is empty."""
    kernel = np.ones((width, width), np.uint8)
    big = cv2.copyMakeBorder(mask, width, width, width, width, cv2.BORDER_CONSTANT, value=0)
    band = cv2.morphologyEx(big, cv2.MORPH_GRADIENT, kernel)[width:-width, width:-width]
    return band.astype(np.float32) / 255


def shrink(mask: np.ndarray, size: int) -> np.ndarray:
    """The 0/255 mask eroded by a `size`×`size` square, where the shape meets the array's edge
    too (outside the array is empty): a piece cropped to its box, or a whole rectangle, loses
    its rim on every side, not only where a transparent margin happens to lie."""
    return cv2.erode(mask, np.ones((size, size), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)


def stable_ncc(image: np.ndarray, template: np.ndarray, floor: float = 0.05) -> np.ndarray:
    """Zero-mean normalised cross-correlation that does not blow up on flat windows.

    OpenCV's TM_CCOEFF_NORMED divides by the window's spread, so a perfectly smooth patch (a
    sky gradient) scores like a perfect match. Here the window variance is floored at `floor`
    times the image's variance. Output: (H-h+1)×(W-w+1), indexed by the template's top-left.
    """
    image = image.astype(np.float32)
    tmpl = template.astype(np.float32) - float(template.mean())
    h, w = tmpl.shape
    n = h * w
    num = cv2.matchTemplate(image, tmpl, cv2.TM_CCORR)
    ones = np.ones((h, w), np.float32)
    sums = cv2.matchTemplate(image, ones, cv2.TM_CCORR)
    squares = cv2.matchTemplate(image * image, ones, cv2.TM_CCORR)
    var = np.maximum(squares - sums * sums / n, 0) / n
    var = np.maximum(var, floor * float(image.var()) + 1e-9)
    return num / (np.sqrt(var * n) * float(np.linalg.norm(tmpl)) + 1e-9)


MIN_RING = 20  # pixels an inside ring needs to say anything


def ring_contrast(grey: np.ndarray, mask: np.ndarray, width: int = 3, gap: int = 1,
                  insets: tuple[int, ...] = (0,)) -> np.ndarray:
    """|mean just inside − mean just outside| / their spread, for every placement of `mask`
    (indexed by its top-left corner, like `stable_ncc`). High where a region of that shape is
    shaded differently from its surroundings, as puzzle holes and drop slots are. `insets`: the
    inside ring starts that many pixels in from the outline, the highest reading counting (a hole
    framed by a light border shows its shading only inside the frame); the outside ring is
    measured once for all of them."""
    kernel = np.ones((3, 3), np.uint8)
    pad = width + gap + 1
    big = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    rows, cols = grey.shape[0] - mask.shape[0] + 1, grey.shape[1] - mask.shape[1] + 1
    inners = []
    for inset in insets:
        top = cv2.erode(big, kernel, iterations=inset) if inset else big
        inner = ((top > 0) & ~(cv2.erode(big, kernel, iterations=inset + width) > 0)).astype(np.float32)
        if inner.sum() >= MIN_RING:  # a shape too thin for a ring that deep: no reading, not a false one
            inners.append(inner)
    best = np.zeros((rows, cols), np.float32)
    if not inners:
        return best
    padded = cv2.copyMakeBorder(grey.astype(np.float32), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    squared = padded * padded

    def stats(ring: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        count = max(float(ring.sum()), 1.0)
        mean = cv2.matchTemplate(padded, ring, cv2.TM_CCORR) / count
        var = cv2.matchTemplate(squared, ring, cv2.TM_CCORR) / count - mean * mean
        return mean, np.maximum(var, 0)

    outer = (cv2.dilate(big, kernel, iterations=width + gap) > 0) & ~(cv2.dilate(big, kernel, iterations=gap) > 0)
    m_out, v_out = stats(outer.astype(np.float32))
    for inner in inners:
        m_in, v_in = stats(inner)
        contrast = np.abs(m_in - m_out) / np.sqrt(v_in + v_out + 25.0)  # +25: a JPEG-level noise floor
        np.maximum(best, contrast[:rows, :cols], out=best)
    return best


def outline_support(edges: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """For every placement of `mask` (indexed like `stable_ncc`), how strongly the weakest
    quarter of its outline (left, right, top, bottom, split by angle around the centre) lies on
    edges, relative to the picture's mean edge strength. A hole is outlined all round; a
    placement that shares one side with a strong line (a box's edge, or the true hole seen
    one piece-width off) is not, though a correlation over the whole outline can rate it as
    high."""
    band = outline(mask)
    height, width = mask.shape
    rows, cols = np.mgrid[0:height, 0:width]
    angle = np.arctan2(rows - (height - 1) / 2, cols - (width - 1) / 2)
    weakest = None
    for k in range(4):
        start = -np.pi + np.pi / 4 + k * np.pi / 2
        part = (band * (((angle - start) % (2 * np.pi)) < np.pi / 2)).astype(np.float32)
        if part.sum() >= 4:
            along = cv2.matchTemplate(edges, part, cv2.TM_CCORR) / float(part.sum())
            weakest = along if weakest is None else np.minimum(weakest, along, out=weakest)
    if weakest is None:
        return np.zeros((edges.shape[0] - height + 1, edges.shape[1] - width + 1), np.float32)
    return weakest / (float(edges.mean()) + 1e-6)


BACKING_TOLERANCE = 24  # grey levels a plain backing's pixels stay within (JPEG noise, a soft shadow)
PLAIN_BORDER = 0.8  # share of an opaque sprite's border that must be its backing's colour


def foreground_mask(rgba: np.ndarray, *, min_fraction: float = 0.2) -> np.ndarray:
    """0/255 mask of what is drawn in a small sprite (a puzzle piece, an item to drag).

    By alpha when the image has transparency; otherwise the pixels that differ from the
    border's median colour, as one filled blob. The whole image is taken when that finds less
    than `min_fraction` of it, or when the border is not one colour (at least `PLAIN_BORDER` of
    its pixels near the median): then there is no backing to cut away, the image is the piece
    (a rectangle cut straight out of a picture).
    """
    alpha = rgba[..., 3]
    if alpha.min() < 200:
        return np.where(alpha > 127, 255, 0).astype(np.uint8)
    rgb = rgba[..., :3].astype(np.int16)
    border = border_pixels(rgb)
    backing = np.median(border, axis=0)
    if (np.abs(border - backing).max(axis=1) <= BACKING_TOLERANCE).mean() < PLAIN_BORDER:
        return np.full(rgba.shape[:2], 255, np.uint8)
    mask = np.where(np.abs(rgb - backing).max(axis=2) > BACKING_TOLERANCE, 255, 0).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    if contours:
        cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 255, cv2.FILLED)
    if cv2.countNonZero(filled) < min_fraction * filled.size:
        filled[:] = 255
    return filled


def object_contrast(rgb: np.ndarray, size: float) -> np.ndarray:
    """How much each pixel belongs to a light or dark object smaller than `size` × the
    picture's shorter side, in any Lab channel (float32, Lab distance units).

    Top-hats by reconstruction: the opening (closing) that removes small light (dark) objects
    is grown back under (over) the image, so large regions keep their exact borders (a
    horizon) and nothing bridges two nearby objects. Computed at half size for speed.
    """
    height, width = rgb.shape[:2]
    small = cv2.resize(rgb, (max(8, width // 2), max(8, height // 2)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)
    side = max(9, int(size * min(small.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    channels = []
    for plane in cv2.split(lab):
        light = plane.astype(np.float32) - _reconstruct(cv2.morphologyEx(plane, cv2.MORPH_OPEN, kernel), plane, grow=True)
        dark = _reconstruct(cv2.morphologyEx(plane, cv2.MORPH_CLOSE, kernel), plane, grow=False) - plane.astype(np.float32)
        channels.append(light + dark)
    # OpenCV's 8-bit Lab puts L and a/b on comparable 0-255 scales, so they add as they are.
    distance = np.sqrt(np.sum(np.square(channels), axis=0))
    return cv2.resize(distance, (width, height), interpolation=cv2.INTER_LINEAR)


def _reconstruct(marker: np.ndarray, image: np.ndarray, *, grow: bool, limit: int = 400) -> np.ndarray:
    """Grey reconstruction: by dilation under `image` (grow) or by erosion above it."""
    kernel = np.ones((3, 3), np.uint8)
    current = marker
    for _ in range(limit):
        step = np.minimum(cv2.dilate(current, kernel), image) if grow else np.maximum(cv2.erode(current, kernel), image)
        if np.array_equal(step, current):
            break
        current = step
    return current.astype(np.float32)
