"""Click-the-icons-in-order puzzles: find each icon of the hint strip in the picture.

Contract: `solve_icon_click(image, hint) -> list[PixelPoint]`, one point per hint icon, in
the hint's left-to-right order (top-to-bottom for a tall strip), each the centre of the
matched icon's bounding box in `image` pixels. No two hint icons get the same icon.
How:
1. The hint strip is split into icons by projection: its ink (pixels unlike the strip's
   border colour) in runs separated by empty columns.
2. Candidate icons in the picture are small light or dark objects in any Lab channel
   (top-hats by reconstruction, wider than an icon), cut at several contrast levels; the
   icon-sized, compact regions that keep their extent from one level to the next win
   (crisp icons do; blurred patches and icons merged with a neighbour do not).
3. Silhouettes are compared independent of rotation and scale: each is centred on its
   centroid, scaled to a fixed RMS radius, and the candidate is turned in 5° steps; the
   similarity is the best IoU. Then hint icons and candidates are paired one-to-one to
   maximise the total similarity (exhaustive over the best few candidates).
Limits: shape only (colour is ignored: hints are usually one ink). Icons drawn as outlines in
one image and filled in the other, icons over a busy photo with no contrast, mirrored icons,
icons touching each other, and hints that include text are not handled; near-identical
silhouettes (a circle and an octagon) are guesses.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from workers.captcha.solvers._image import PixelPoint, SolverInputError, border_pixels, open_image, rgb_array
from workers.captcha.solvers._match import object_contrast

NORM = 64  # side of the canvas silhouettes are compared on
RMS_RADIUS = 14.0  # their RMS radius there, in px
ANGLES = tuple(range(0, 360, 5))
MAX_CANDIDATES = 9
LEVELS = (18.0, 25.0, 35.0, 50.0, 70.0, 95.0)  # contrast cuts, in Lab distance from the ground
MARGIN = 6  # px of ground kept around a proposal (to learn the ground's colour)
Rect = tuple[int, int, int, int]  # x, y, width, height


def solve_icon_click(image: bytes, hint: bytes) -> list[PixelPoint]:
    """Where to click, in hint order; see the module doc."""
    return read_icon_click(image, hint)[0]


def read_icon_click(image: bytes, hint: bytes) -> tuple[list[PixelPoint], float]:
    """`solve_icon_click` with a confidence in [0, 1]: the weakest matched pair's silhouette
    similarity (IoU), so one doubtful icon makes the whole answer doubtful."""
    picture = rgb_array(open_image(image))
    icons = split_hint(rgb_array(open_image(hint)))
    if not icons:
        raise SolverInputError("no icons found in the hint")
    blobs = candidate_blobs(picture)
    if len(blobs) < len(icons):
        raise SolverInputError(f"found {len(blobs)} candidate icons for {len(icons)} hints")
    targets = np.concatenate([_turned(mask, (0,)) for mask in icons])
    similarity = np.stack([_similarity(targets, mask) for mask, _ in blobs], axis=1)
    choice = _assign(similarity)
    confidence = float(np.clip(min(similarity[i, j] for i, j in enumerate(choice)), 0.0, 1.0))
    return [blobs[j][1] for j in choice], confidence


def split_hint(rgb: np.ndarray) -> list[np.ndarray]:
    """The hint's icons as tight 0/255 masks, in reading order."""
    ink = _ink(rgb)
    vertical = rgb.shape[0] > 1.5 * rgb.shape[1]
    if vertical:
        ink = ink.T
    runs, start = [], None
    profile = (ink > 0).sum(axis=0) > 0
    for x, filled in enumerate([*profile, False]):
        if filled and start is None:
            start = x
        elif not filled and start is not None:
            runs.append((start, x))
            start = None
    icons = []
    for lo, hi in _merge_close(runs, gap=2):
        part = ink[:, lo:hi]
        rows = np.where(part.max(axis=1) > 0)[0]
        part = part[rows[0]:rows[-1] + 1]
        if part.shape[0] * part.shape[1] >= 36 and cv2.countNonZero(part) >= 15:
            icons.append(part.T.copy() if vertical else part)
    return icons


def _ink(rgb: np.ndarray) -> np.ndarray:
    """Pixels unlike the border's median colour (Otsu on the colour distance, at least 40)."""
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    distance = np.linalg.norm(lab - np.median(border_pixels(lab), axis=0), axis=2)
    level, _ = cv2.threshold(np.clip(distance, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return np.where(distance > max(level, 40.0), 255, 0).astype(np.uint8)


def _merge_close(runs: list[tuple[int, int]], gap: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in runs:
        if merged and lo - merged[-1][1] <= gap:
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return merged


def candidate_blobs(rgb: np.ndarray) -> list[tuple[np.ndarray, PixelPoint]]:
    """Blobs that differ from the local ground: (tight 0/255 mask, centre of its box).

    The contrast map is cut at several levels; every icon-sized, compact region at any level
    is a proposal, scored by its stability (the share of it still above the next level:
    crisp icons keep their extent, an icon merged with a soft neighbour or a blurred patch
    does not). The most stable proposals win, one per place.
    """
    height, width = rgb.shape[:2]
    distance = object_contrast(rgb, 0.3)
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    chosen: list[tuple[Rect, np.ndarray]] = []
    for _, (x, y, w, h), mask in sorted(_proposals(distance), key=lambda p: -p[0]):
        if any(_overlaps((x, y, w, h), box) for box, _ in chosen):
            continue
        x0, y0 = max(0, x - MARGIN), max(0, y - MARGIN)
        blob = _refine(mask, lab[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]])
        chosen.append(((x, y, w, h), _solid_if_outline(blob[y - y0:y - y0 + h, x - x0:x - x0 + w])))
    return [(blob, PixelPoint(int(x + w // 2), int(y + h // 2))) for (x, y, w, h), blob in chosen]


def _proposals(distance: np.ndarray) -> list[tuple[float, Rect, np.ndarray]]:
    """(stability, box, mask with a MARGIN around the box) of every icon-like region at every level."""
    height, width = distance.shape
    area_lo, area_hi = 0.002 * height * width, 0.08 * height * width
    found = []
    for i, level in enumerate(LEVELS):
        above = LEVELS[i + 1] if i + 1 < len(LEVELS) else level * 1.35
        binary = cv2.morphologyEx(np.where(distance > level, 255, 0).astype(np.uint8), cv2.MORPH_OPEN,
                                  np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(binary)
        for index in range(1, count):
            x, y, w, h, area = (int(v) for v in stats[index])
            if not area_lo <= area <= area_hi or max(w, h) > 3 * min(w, h) or area < 0.2 * w * h:
                continue
            region = labels[y:y + h, x:x + w] == index
            stability = float((distance[y:y + h, x:x + w][region] > above).mean())
            x0, y0 = max(0, x - MARGIN), max(0, y - MARGIN)
            mask = np.where(labels[y0:y + h + MARGIN, x0:x + w + MARGIN] == index, 255, 0).astype(np.uint8)
            found.append((stability, (x, y, w, h), mask))
    return found


def _overlaps(a: Rect, b: Rect) -> bool:
    """Whether the centre of either box lies in the other."""
    def inside(p: tuple[float, float], r: Rect) -> bool:
        return r[0] <= p[0] <= r[0] + r[2] and r[1] <= p[1] <= r[1] + r[3]

    return inside((a[0] + a[2] / 2, a[1] + a[3] / 2), b) or inside((b[0] + b[2] / 2, b[1] + b[3] / 2), a)


def _refine(dome: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """The blob's own pixels: those of the detected region unlike the ground just around it
    (gives back the hole of a ring, which the top-hat fills)."""
    around = cv2.dilate(dome, np.ones((9, 9), np.uint8)) & ~cv2.dilate(dome, np.ones((3, 3), np.uint8))
    if cv2.countNonZero(around) < 8:
        return dome
    ground = np.median(lab[around > 0], axis=0)
    distance = np.linalg.norm(lab - ground, axis=2)
    noise = float(np.median(np.abs(distance[around > 0] - np.median(distance[around > 0]))))
    own = np.where((dome > 0) & (distance > max(12.0, 4.0 * noise)), 255, 0).astype(np.uint8)
    own = cv2.medianBlur(own, 3)
    return own if cv2.countNonZero(own) >= 0.3 * cv2.countNonZero(dome) else dome


def _overlaps(a: Rect, b: Rect) -> bool:
    """Whether the centre of either box lies in the other."""
    def inside(p: tuple[float, float], r: Rect) -> bool:
        return r[0] <= p[0] <= r[0] + r[2] and r[1] <= p[1] <= r[1] + r[3]

    return inside((a[0] + a[2] / 2, a[1] + a[3] / 2), b) or inside((b[0] + b[2] / 2, b[1] + b[3] / 2), a)


def _solid_if_outline(blob: np.ndarray) -> np.ndarray:
    """Fill the holes of a blob that is mostly hole (a light icon with a dark rim is found as
    its rim); keep them in a blob that is mostly ink (a ring icon)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled if cv2.countNonZero(blob) < 0.5 * cv2.countNonZero(filled) else blob


def _turned(mask: np.ndarray, angles: tuple[int, ...]) -> np.ndarray:
    """The silhouette on a NORM×NORM canvas (centroid in the middle, RMS radius fixed),
    turned by each of `angles` degrees; one flat float32 0/1 row per angle."""
    ys, xs = np.nonzero(mask)
    cx, cy = float(xs.mean()), float(ys.mean())
    rms = float(np.sqrt(((xs - cx) ** 2 + (ys - cy) ** 2).mean())) or 1.0
    rows = []
    for angle in angles:
        matrix = cv2.getRotationMatrix2D((cx, cy), angle, RMS_RADIUS / rms)
        matrix[:, 2] += (NORM / 2 - cx, NORM / 2 - cy)
        rows.append(cv2.warpAffine(mask, matrix, (NORM, NORM), flags=cv2.INTER_LINEAR).ravel() > 127)
    return np.asarray(rows, dtype=np.float32)


def _similarity(targets: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Best IoU over rotations of `mask` against each target (rows of `targets`)."""
    turned = _turned(mask, ANGLES)
    inter = targets @ turned.T
    union = targets.sum(axis=1)[:, None] + turned.sum(axis=1)[None, :] - inter
    return (inter / np.maximum(union, 1.0)).max(axis=1)


def _assign(similarity: np.ndarray) -> list[int]:
    """Candidate index per hint, one-to-one, maximising the summed similarity."""
    hints, candidates = similarity.shape
    keep = np.argsort(-similarity.max(axis=0))[:max(MAX_CANDIDATES, hints)]
    best, choice = -1.0, tuple(range(hints))
    for perm in itertools.permutations(keep, hints):
        total = float(similarity[range(hints), list(perm)].sum())
        if total > best:
            best, choice = total, perm
    return [int(j) for j in choice]
