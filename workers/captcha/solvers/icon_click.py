"""Click-the-icons-in-order puzzles: find each icon of the hint strip in the picture.

Contract: `solve_icon_click(image, hint) -> list[PixelPoint]`, one point per hint icon, in
the hint's left-to-right order (top-to-bottom for a tall strip), each the centre of the
matched icon's bounding box in `image` pixels. No two hint icons get the same icon.
How:
1. The hint strip is split into icons by projection: its ink (pixels unlike the strip's
   border colour) in runs separated by empty columns.
2. Candidate icons in the picture are the blobs that stand out from a smoothed estimate of
   the ground (a wide median), filtered by size.
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

from workers.captcha.solvers._image import PixelPoint, SolverInputError, open_image, rgb_array

NORM = 64  # side of the canvas silhouettes are compared on
RMS_RADIUS = 14.0  # their RMS radius there, in px
ANGLES = tuple(range(0, 360, 5))
MAX_CANDIDATES = 9


def solve_icon_click(image: bytes, hint: bytes) -> list[PixelPoint]:
    """Where to click, in hint order; see the module doc."""
    picture = rgb_array(open_image(image))
    icons = split_hint(rgb_array(open_image(hint)))
    if not icons:
        raise SolverInputError("no icons found in the hint")
    blobs = candidate_blobs(picture)
    if len(blobs) < len(icons):
        raise SolverInputError(f"found {len(blobs)} candidate icons for {len(icons)} hints")
    targets = np.concatenate([_turned(mask, (0,)) for mask in icons])
    similarity = np.stack([_similarity(targets, mask) for mask, _ in blobs], axis=1)
    return [blobs[j][1] for j in _assign(similarity)]


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
    border = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    distance = np.linalg.norm(lab - np.median(border, axis=0), axis=2)
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


LEVELS = (18.0, 25.0, 35.0, 50.0, 70.0, 95.0)  # Lab distances from the ground


def candidate_blobs(rgb: np.ndarray) -> list[tuple[np.ndarray, PixelPoint]]:
    """Blobs that differ from the local ground: (tight 0/255 mask, centre of its box).

    The contrast map is cut at several levels; every icon-sized, compact region at any level
    is a proposal, scored by its stability (the share of it still above the next level:
    crisp icons keep their extent, an icon merged with a soft neighbour or a blurred patch
    does not). The most stable proposals win, one per place.
    """
    height, width = rgb.shape[:2]
    distance = _ground_distance(rgb)
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    area_lo, area_hi = 0.002 * height * width, 0.08 * height * width
    proposals: list[tuple[float, tuple[int, int, int, int], np.ndarray]] = []  # stability, box, mask
    for i, level in enumerate(LEVELS):
        above = LEVELS[i + 1] if i + 1 < len(LEVELS) else level * 1.35
        binary = cv2.morphologyEx(np.where(distance > level, 255, 0).astype(np.uint8), cv2.MORPH_OPEN,
                                  np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(binary)
        for index in range(1, count):
            x, y, w, h, area = stats[index]
            if not area_lo <= area <= area_hi or max(w, h) > 3 * min(w, h) or area < 0.2 * w * h:
                continue
            region = labels[y:y + h, x:x + w] == index
            stability = float((distance[y:y + h, x:x + w][region] > above).mean())
            x0, y0, x1, y1 = max(0, x - 6), max(0, y - 6), min(width, x + w + 6), min(height, y + h + 6)
            mask = np.where(labels[y0:y1, x0:x1] == index, 255, 0).astype(np.uint8)
            proposals.append((stability, (x, y, w, h), mask))
    chosen: list[tuple[tuple[int, int, int, int], np.ndarray]] = []
    for _, (x, y, w, h), mask in sorted(proposals, key=lambda p: -p[0]):
        if any(_overlaps((x, y, w, h), box) for box, _ in chosen):
            continue
        x0, y0 = max(0, x - 6), max(0, y - 6)
        blob = _refine(mask, lab[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]])
        chosen.append(((x, y, w, h), _solid_if_outline(blob[y - y0:y - y0 + h, x - x0:x - x0 + w])))
    return [(blob, PixelPoint(int(x + w // 2), int(y + h // 2))) for (x, y, w, h), blob in chosen]


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Whether the centre of either box lies in the other."""
    def inside(p: tuple[float, float], r: tuple[int, int, int, int]) -> bool:
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


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Whether the centre of either box lies in the other."""
    def inside(p: tuple[float, float], r: tuple[int, int, int, int]) -> bool:
        return r[0] <= p[0] <= r[0] + r[2] and r[1] <= p[1] <= r[1] + r[3]

    return inside((a[0] + a[2] / 2, a[1] + a[3] / 2), b) or inside((b[0] + b[2] / 2, b[1] + b[3] / 2), a)


def _ground_distance(rgb: np.ndarray) -> np.ndarray:
    """How much each pixel belongs to a small light or dark object, in any Lab channel.

    Top-hats by reconstruction with a square wider than an icon: the opening (closing) that
    removes small light (dark) objects is grown back under the image, so large regions keep
    their exact borders (a horizon) and nothing bridges two nearby icons. Half size for speed.
    """
    height, width = rgb.shape[:2]
    small = cv2.resize(rgb, (max(8, width // 2), max(8, height // 2)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)
    side = max(9, int(0.3 * min(small.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    channels = []
    for plane in cv2.split(lab):
        light = plane.astype(np.float32) - _reconstruct(cv2.morphologyEx(plane, cv2.MORPH_OPEN, kernel), plane, grow=True)
        dark = _reconstruct(cv2.morphologyEx(plane, cv2.MORPH_CLOSE, kernel), plane, grow=False) - plane.astype(np.float32)
        channels.append(light + dark)
    # L spans 0-255 for 0-100 and a/b are already in 0-255 steps, so they add as they are.
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
