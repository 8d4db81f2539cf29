"""Drag-to-target puzzles: where in the scene should the dragged thing be dropped?

Contract: `solve_drag(scene, item=None) -> PixelPoint`, the drop point (the centre of the
target) in scene pixels. The caller drags from the item's on-screen centre to that point.
- With `item` (the sprite being dragged, transparent or on a plain backing): the slot whose
  outline or shading has the item's shape, at 0.7-1.4× the item's size. Score: normalised
  correlation of the item's outline with the scene's colour edges and with its thin drawn
  lines, plus the shading contrast inside vs outside that outline (as for slider holes).
- Without `item`: the most salient marked target, meaning a closed, thin, regular outline
  (ring, dashed circle, outlined square) whose inside looks like the ground around it; filled
  shapes, whose inside differs from the surroundings, are taken as clutter.
Limits: slots turned relative to the item are not searched (rotation); several equally
good slots (two outlines of the item's shape) are a coin toss; without an item, a target
marked only by colour, by an arrow or by text ("drag to the end") is not understood, and
outlines enclosing more than a quarter of the picture (frames) are ignored. Raises
`SolverInputError` when nothing outlined is found.
"""

from __future__ import annotations

import cv2
import numpy as np

from workers.captcha.solvers._image import PixelPoint, SolverInputError, open_image, rgb_array, rgba_array
from workers.captcha.solvers._match import edge_map, foreground_mask, outline, ring_contrast, stable_ncc

SCALES = tuple(round(0.7 + 0.05 * i, 2) for i in range(15))  # 0.70 … 1.40


def solve_drag(scene: bytes, item: bytes | None = None) -> PixelPoint:
    """The drop point for `item` in `scene` (or the marked target without one); see the module doc."""
    rgb = rgb_array(open_image(scene))
    if item is None:
        return _marked_target(rgb)
    mask = foreground_mask(rgba_array(open_image(item)))
    x, y, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    return _matching_slot(rgb, mask[y:y + h, x:x + w])


def _matching_slot(rgb: np.ndarray, mask: np.ndarray) -> PixelPoint:
    """Best placement over scales of: the item's outline against colour edges and against
    thin drawn lines (each a normalised correlation in [-1, 1]), plus the shading contrast
    across that outline (weighted double: shadow and pale slots have little else)."""
    edges = edge_map(rgb)
    lines = line_map(rgb)
    lines = np.log1p(lines / (float(lines.mean()) + 1e-6))
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    best = (-np.inf, PixelPoint(0, 0))
    for scale in SCALES:
        w, h = max(8, round(mask.shape[1] * scale)), max(8, round(mask.shape[0] * scale))
        if w >= rgb.shape[1] or h >= rgb.shape[0]:
            continue
        scaled = np.where(cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA) > 127, 255, 0).astype(np.uint8)
        score = (stable_ncc(edges, outline(scaled, 5)) + stable_ncc(lines, outline(scaled, 3))
                 + np.tanh(ring_contrast(grey, scaled) / 2))
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[y, x] > best[0]:
            best = (float(score[y, x]), PixelPoint(int(x) + w // 2, int(y) + h // 2))
    if best[0] == -np.inf:
        raise SolverInputError("the item is larger than the scene")
    return best[1]


def _marked_target(rgb: np.ndarray) -> PixelPoint:
    """Centre of the best thin closed outline whose inside resembles its outside."""
    strength = line_map(rgb)
    # Otsu splits drawn lines from texture and noise; never below the strongest twentieth.
    otsu, _ = cv2.threshold(np.clip(strength, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(float(otsu), float(np.percentile(strength, 95)), 12.0)
    lines = np.where(strength > level, 255, 0).astype(np.uint8)
    # Thicken so the dashes of a dashed outline join into one closed band.
    joined = cv2.dilate(lines, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined)
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    best: tuple[float, PixelPoint | None] = (0.0, None)
    for index in range(1, count):
        if stats[index, cv2.CC_STAT_AREA] < 40:
            continue
        band = np.where(labels == index, 255, 0).astype(np.uint8)
        scored = _outline_score(band, strength, lab)
        if scored is not None and scored[0] > best[0]:
            best = scored
    if best[1] is None:
        raise SolverInputError("no outlined target found")
    return best[1]


def _outline_score(band: np.ndarray, strength: np.ndarray, lab: np.ndarray) -> tuple[float, PixelPoint] | None:
    """How much a band of line pixels looks like a drawn target outline, and its centre.

    A target outline encloses a good part of its own convex hull, is about as wide as high,
    is drawn with a strong line and has ground-coloured pixels inside. Solid clutter encloses
    its own (different) colour; open strokes (a crescent, a tick) enclose nothing.
    """
    height, width = band.shape
    contours, hierarchy = cv2.findContours(band, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    holes = [c for c, h in zip(contours, hierarchy[0]) if h[3] >= 0 and cv2.contourArea(c) >= 12]
    outer = max(contours, key=cv2.contourArea)
    hull_area = cv2.contourArea(cv2.convexHull(outer))
    if not holes or not 0.003 * height * width <= hull_area <= 0.25 * height * width:
        return None
    x, y, w, h = cv2.boundingRect(outer)
    inside = np.zeros_like(band)
    cv2.drawContours(inside, holes, -1, 255, cv2.FILLED)
    enclosed = cv2.countNonZero(inside) / hull_area
    filled = np.zeros_like(band)
    cv2.drawContours(filled, [outer], -1, 255, cv2.FILLED)
    around = cv2.dilate(filled, np.ones((9, 9), np.uint8)) & ~cv2.dilate(filled, np.ones((3, 3), np.uint8))
    if cv2.countNonZero(around) < 10:
        return None
    diff = float(np.linalg.norm(lab[inside > 0].mean(axis=0) - lab[around > 0].mean(axis=0)))
    line = float(strength[band > 0].mean())
    score = line * enclosed * (min(w, h) / max(w, h)) * float(np.exp(-diff / 25.0))
    m = cv2.moments(filled, binaryImage=True)
    return score, PixelPoint(int(m["m10"] / m["m00"]), int(m["m01"] / m["m00"]))


def line_map(rgb: np.ndarray, width: int = 9) -> np.ndarray:
    """Strength of thin lines (narrower than `width`), light or dark, in any colour channel.

    Top-hats answer to lines and small dots but not to the edges of large filled shapes,
    which is what separates an outlined target from solid clutter.
    """
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    blurred = cv2.GaussianBlur(rgb, (3, 3), 0)
    per_channel = [cv2.morphologyEx(blurred[..., c], cv2.MORPH_TOPHAT, kernel).astype(np.float32)
                   + cv2.morphologyEx(blurred[..., c], cv2.MORPH_BLACKHAT, kernel) for c in range(3)]
    return np.max(np.stack(per_channel), axis=0)
