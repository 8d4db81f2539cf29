"""Rotation against an upright reference: the widget shows the answer's picture itself.

Many rotation widgets show an upright picture next to or around the turned piece: a turned
inner disc inside an upright outer ring of the same photograph ("rotate the circle to fit"), or
a small turned thumbnail of an upright master image. Then no prior about scenes is needed:
the piece is matched against the reference.

Contract: `read_rotation_against(reference, piece, *, scale=None, layout=None) -> (degrees,
confidence)`. `degrees` follows `read_rotation`: how far to turn the piece CLOCKWISE (on
screen) to make it line up with the reference, in [0, 360). `scale` (optional) is reference
pixels per piece pixel when the piece sits over the reference's centre (from the two elements'
on-screen sizes); 1.0 when not given. `layout` ("over", "beside" or None: unknown) limits the
readings below to the ones that layout allows. The confidence in [0, 1] is the lead of the
best angle over the best angle at least `SEPARATION` degrees away, 0.5 at `CONFIDENT_LEAD`
(the gate's threshold, set on our generators only: docs/captcha.md).
How: both pictures are sampled on polar grids centred on the piece's disc and on the
reference's centre, where a turn is a circular shift along the angle axis; circular
cross-correlations (FFT) score all 360 angles at once. The readings of the layout:
- the piece is the whole reference or its centre at any scale down to a third ("beside"), or
  its centre at `scale` ("over") (content: the piece's picture against the reference's disc
  of that size);
- the piece covers a hole in the reference ("over"; continuity: the piece's outer ring against
  the reference's ring just outside the hole, both colour and edges crossing the border).
The reading whose best angle leads most is kept. Rows are centred per ring and channel (a
brightness or tint change, a drawn rim or a shadow along the border count for nothing), the
pictures are blurred a little first (JPEG noise).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from workers.captcha.solvers._image import SolverInputError, open_image, rgba_array

ANGLES = 360  # one bin per degree
SEPARATION = 20  # degrees: the runner-up angle must be at least this far from the best
CONFIDENT_LEAD = 0.10  # lead in correlation that maps to confidence 0.5 (the gate's threshold)
CONTENT_SCALES = np.geomspace(1.0, 0.33, 12)  # piece radius / reference radius, for the content reading
PIECE_RADII = np.linspace(0.12, 0.86, 24)  # rows of the piece's disc (fractions of its radius) for content
BORDER_INSIDE = np.linspace(0.86, 0.94, 3)  # the piece's ring just inside its border (rim left out)
BORDER_OUTSIDE = np.linspace(1.06, 1.14, 3)  # the reference's ring just outside the hole (shadow left out)
FLOORS = np.array([2.0, 2.0, 2.0, 4.0], dtype=np.float32)  # spread of a flat channel: Lab units, gradient units


def read_rotation_against(reference: bytes, piece: bytes, *, scale: float | None = None,
                          layout: str | None = None) -> tuple[float, float]:
    """Clockwise degrees that align `piece` with the upright `reference`, and a confidence.
    `layout` is what the page shows, when known: "over" (the piece centred over the
    reference: its centre at `scale`, or a hole), "beside" (a thumbnail of the whole
    reference, at any scale); None tries every reading."""
    ref = rgba_array(open_image(reference))
    pc = rgba_array(open_image(piece))
    p_feat, p_centre, p_radius = _piece_disc(pc)
    r_feat = _features(ref[..., :3])
    r_centre = ((ref.shape[1] - 1) / 2, (ref.shape[0] - 1) / 2)
    r_radius = min(ref.shape[:2]) / 2
    if p_radius < 8 or r_radius < 8:
        raise SolverInputError("the piece or the reference is too small to match")
    hole = p_radius * (scale or 1.0)
    discs = [r_radius * s for s in CONTENT_SCALES] if layout != "over" else [hole]
    curves = [_content(p_feat, p_centre, p_radius, r_feat, r_centre, disc) for disc in discs if disc <= r_radius * 1.02]
    if layout != "beside" and hole * BORDER_OUTSIDE[-1] < r_radius * 1.02:  # the reference reaches past the hole
        curves.append(_continuity(p_feat, p_centre, p_radius, r_feat, r_centre, hole))
    if not curves:
        raise SolverInputError("the piece is larger than the reference it should match")
    best_shift, lead = max((_peak(c) for c in curves), key=lambda peak: peak[1])
    # The piece shows the reference turned clockwise by best_shift: turning it back is the rest.
    degrees = float((-best_shift) % ANGLES)
    return round(degrees, 1), float(min(1.0, max(0.0, 0.5 * lead / CONFIDENT_LEAD)))


def _piece_disc(rgba: np.ndarray) -> tuple[np.ndarray, tuple[float, float], float]:
    """The piece's features, centre and radius: its opaque part's bounding circle when it has
    transparency, the inscribed circle otherwise."""
    opaque = rgba[..., 3] > 128
    if opaque.mean() < 0.98:
        ys, xs = np.nonzero(opaque)
        if len(xs) < 100:
            raise SolverInputError("the piece has too few opaque pixels")
        centre = ((xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2)
        radius = min(xs.max() - xs.min(), ys.max() - ys.min()) / 2
    else:
        centre = ((rgba.shape[1] - 1) / 2, (rgba.shape[0] - 1) / 2)
        radius = min(rgba.shape[:2]) / 2
    return _features(rgba[..., :3]), centre, float(radius)


def _features(rgb: np.ndarray) -> np.ndarray:
    """Blurred Lab channels and the gradient magnitude of lightness, H×W×4 float32."""
    sigma = max(0.8, min(rgb.shape[:2]) / 160)
    lab = cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)
    lab = cv2.GaussianBlur(lab, (0, 0), sigma)
    light = lab[..., 0]
    grad = cv2.magnitude(cv2.Sobel(light, cv2.CV_32F, 1, 0), cv2.Sobel(light, cv2.CV_32F, 0, 1))
    return np.dstack([lab, grad]).astype(np.float32)


def _polar(feat: np.ndarray, centre: tuple[float, float], radii: np.ndarray) -> np.ndarray:
    """Rows × ANGLES × channels; column k is k degrees clockwise from straight up."""
    theta = np.deg2rad(np.arange(ANGLES, dtype=np.float32))
    map_x = (centre[0] + radii[:, None] * np.sin(theta)[None, :]).astype(np.float32)
    map_y = (centre[1] - radii[:, None] * np.cos(theta)[None, :]).astype(np.float32)
    return cv2.remap(feat, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _centred(rows: np.ndarray) -> np.ndarray:
    """Each ring's channel minus its mean, each channel over its spread (floored so a flat
    channel stays small rather than blown-up noise)."""
    rows = rows - rows.mean(axis=1, keepdims=True)
    spread = np.sqrt((rows ** 2).mean(axis=(0, 1), keepdims=True))
    return rows / np.maximum(spread, FLOORS[: rows.shape[2]])


def _correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Normalised circular cross-correlation over rows and channels: c[k] = Σ a[θ] b[θ - k]."""
    fa, fb = np.fft.rfft(a, axis=1), np.fft.rfft(b, axis=1)
    num = np.fft.irfft((fa * np.conj(fb)).sum(axis=(0, 2)), n=ANGLES)
    den = math.sqrt(float((a ** 2).sum()) * float((b ** 2).sum())) + 1e-9
    return num / den


def _content(p_feat, p_centre, p_radius, r_feat, r_centre, r_disc) -> np.ndarray:
    """The piece's picture against the reference's centred disc of radius `r_disc`."""
    piece = _centred(_polar(p_feat, p_centre, PIECE_RADII * p_radius))
    ref = _centred(_polar(r_feat, r_centre, PIECE_RADII * r_disc))
    return _correlation(piece, ref)


def _continuity(p_feat, p_centre, p_radius, r_feat, r_centre, hole) -> np.ndarray:
    """The piece's border ring against the reference's ring just outside a hole of radius
    `hole`: colours carry across a border, and so do the edges that cross it."""
    inside = _polar(p_feat, p_centre, BORDER_INSIDE * p_radius).mean(axis=0, keepdims=True)
    outside = _polar(r_feat, r_centre, BORDER_OUTSIDE * hole).mean(axis=0, keepdims=True)
    colour = _correlation(_centred(inside[..., :3]), _centred(outside[..., :3]))
    # Edges crossing the border: the change of lightness along the ring, on both sides.
    edges_in = np.abs(np.diff(inside[..., :1], axis=1, append=inside[:, :1, :1]))
    edges_out = np.abs(np.diff(outside[..., :1], axis=1, append=outside[:, :1, :1]))
    edges = _correlation(_centred_plain(edges_in), _centred_plain(edges_out))
    return (colour + edges) / 2


def _centred_plain(rows: np.ndarray) -> np.ndarray:
    return rows - rows.mean(axis=1, keepdims=True)


def _peak(curve: np.ndarray) -> tuple[int, float]:
    """The best shift and its lead over the best shift at least SEPARATION degrees away."""
    best = int(np.argmax(curve))
    distance = np.abs((np.arange(ANGLES) - best + ANGLES // 2) % ANGLES - ANGLES // 2)
    runner_up = float(curve[distance >= SEPARATION].max())
    return best, float(curve[best]) - runner_up
