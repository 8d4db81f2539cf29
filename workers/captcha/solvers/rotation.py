"""Rotate-to-upright puzzles (a round picture turned at random, set straight by a dial).

Contract: `solve_rotation(image) -> float`, the angle in degrees, in [0, 360), by which the
picture must be turned CLOCKWISE (as seen on screen) to stand upright. A picture that was
turned 30° counter-clockwise answers 30.0; one turned 30° clockwise answers 330.0. Callers
whose widget turns counter-clockwise use `(360 - answer) % 360`; mapping degrees to a drag
distance (often 360° per track length) is the caller's job.
How: only the disc inscribed in the image is used (and only opaque pixels when the image has
alpha), so corners and frames do not count. Photographs of the outdoors and of rooms share
a few biases, each turned into an "up" vector by correlating a per-pixel measure with the
pixel's position: light comes from above (brightness), the sky is blue (blueness), the ground
is busier and greener than the sky (edge density, greenness). Their weighted sum gives a
coarse up direction; then, as man-made and horizon lines are mostly level or plumb, the
angle is refined to the nearest peak of the edge-orientation histogram (4-fold) within 25°.
Limits: the biases are priors, not knowledge. Close-ups, top-down shots, pictures with a
dark sky or a bright floor, and symmetric subjects fool it, and a wrong coarse estimate is
usually off by a lot (90° or 180°), not a little. Measured on our synthetic landscapes only.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from workers.captcha.solvers._image import SolverInputError, open_image, rgba_array

# Weights of the cues in the coarse estimate; each cue is a correlation in [-1, 1].
WEIGHTS = {"brightness": 1.0, "blueness": 0.7, "greenness": 0.3, "busyness": 0.3}
REFINE_WINDOW = 25.0  # degrees either side of the coarse estimate
UP_CONFIDENT = 1.0  # length of the cues' summed up vector that counts as full confidence
MIN_ORIENTATION_STRENGTH = 0.08  # below this the edges have no preferred axes


def solve_rotation(image: bytes) -> float:
    """Degrees to turn the picture clockwise to make it upright; see the module doc."""
    return read_rotation(image)[0]


def read_rotation(image: bytes) -> tuple[float, float]:
    """`solve_rotation` with a confidence in [0, 1]: how strongly the cues agree on an up
    direction (the length of their weighted sum, full at UP_CONFIDENT). Cues that cancel out
    (a symmetric or unusual picture) give a short vector and a low confidence."""
    rgba = rgba_array(open_image(image))
    rgb, mask = _disc(rgba)
    if mask.sum() < 400:
        raise SolverInputError("too few picture pixels inside the circle")
    up = _up_vector(rgb, mask)
    if not np.any(up):
        raise SolverInputError("the picture has no cue for which way is up")
    # Clockwise-from-up angle of the content's up direction (image y points down).
    alpha = math.degrees(math.atan2(up[0], -up[1]))
    coarse = (-alpha) % 360.0
    confidence = float(min(1.0, np.hypot(up[0], up[1]) / UP_CONFIDENT))
    return round(_refine(rgb, mask, coarse) % 360.0, 1), confidence


def _disc(rgba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RGB as float32 and the mask of usable pixels: inside 92% of the inscribed circle, opaque."""
    h, w = rgba.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    radius = 0.92 * min(h, w) / 2
    mask = ((xx - (w - 1) / 2) ** 2 + (yy - (h - 1) / 2) ** 2 <= radius ** 2) & (rgba[..., 3] > 200)
    return rgba[..., :3].astype(np.float32), mask


def _up_vector(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Weighted sum of the cues' up vectors (x right, y down)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    grey = cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_RGB2GRAY).astype(np.float32)
    edges = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    busy = cv2.GaussianBlur(edges, (0, 0), max(2.0, grey.shape[0] / 40))
    inner = cv2.erode(mask.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0  # no rim edges
    cues = {
        "brightness": (grey, mask, 1.0),
        "blueness": (b - (r + g) / 2, mask, 1.0),
        "greenness": (g - (r + b) / 2, mask, -1.0),
        "busyness": (busy, inner, -1.0),
    }
    up = np.zeros(2)
    for name, (values, where, sign) in cues.items():
        up += WEIGHTS[name] * sign * _correlation_vector(values, where)
    return up


def _correlation_vector(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """(corr(values, x), corr(values, y)) over the pixels in `where`: points to where values are high."""
    ys, xs = np.nonzero(where)
    v = values[ys, xs].astype(np.float64)
    spread = v.std()
    if spread < 1e-6:
        return np.zeros(2)
    v = (v - v.mean()) / spread
    xs = (xs - xs.mean()) / (xs.std() + 1e-9)
    ys = (ys - ys.mean()) / (ys.std() + 1e-9)
    return np.array([np.mean(v * xs), np.mean(v * ys)])


def _refine(rgb: np.ndarray, mask: np.ndarray, coarse: float) -> float:
    """Snap to the nearest angle (within REFINE_WINDOW) that makes strong edges level or plumb."""
    grey = cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    inner = cv2.erode(mask.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    weight = (gx * gx + gy * gy)[inner]
    psi = np.arctan2(gy[inner], gx[inner])
    total = float(weight.sum())
    if total <= 0:
        return coarse
    a, b = float((weight * np.cos(4 * psi)).sum()) / total, float((weight * np.sin(4 * psi)).sum()) / total
    if math.hypot(a, b) < MIN_ORIENTATION_STRENGTH:
        return coarse
    # Turning the picture clockwise by t adds t to every gradient angle (y down), so edges
    # are level/plumb where cos(4(psi + t)) peaks: t = -atan2(b, a) / 4 + k·90°.
    base = -math.degrees(math.atan2(b, a)) / 4
    candidates = [base + k * 90.0 for k in range(-5, 6)]
    best = min(candidates, key=lambda t: abs(((t - coarse + 180) % 360) - 180))
    return best if abs(((best - coarse + 180) % 360) - 180) <= REFINE_WINDOW else coarse
