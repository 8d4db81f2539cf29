"""Slider puzzles: find the hole in the background that the piece fills.

Contract: `solve_slider(background, piece) -> SliderAnswer`, all in background pixels.
- `gap_left` / `gap_centre` / `gap_top`: where the piece's visible part must end up.
- `piece_left` / `piece_top`: where that visible part sits inside the piece image
  (transparent or plain padding around it), so the drag distance in image pixels is
  `gap_left - (piece image x on the track + piece_left)`; for the usual widget, whose piece
  image starts at x=0 of the background, that is `gap_left - piece_left`. Converting image
  pixels to screen pixels (the rendered scale) is the caller's job.
- When `piece` has the same size as `background`, the two are taken to be the background with
  and without the hole (either order), and the hole is found by differencing.
How: the piece's outline (from its alpha, or from its plain backing) and its content edges are
matched against the background's gradients (a normalised cross-correlation that stays sane
on flat sky), plus how differently the background is shaded just inside that outline than
just outside (holes are darkened, lightened or greyed). A full-height transparent strip also
tells the hole's height, and the search is then kept to that band. The best placements that do
not overlap (up to CANDIDATES) are then re-ranked by how well the piece's own picture correlates
with the background under them (as it is and high-passed; only a positive correlation counts):
a hole is the piece's patch shaded, a decoy hole of the same shape is not, so the decoy loses
whenever the picture has texture. ddddocr's `slide_match` (edge mode: Canny maps of the padded
piece, OpenCV's TM_CCOEFF_NORMED) is not used: on our synthetic set it found 81-90% of gaps
within 4 px where this finds 98%, its flat-window scores being the main loss.
Confidence: the best placement's lead over the next one, full at CONFIDENT_MARGIN; two equally
good holes (same-shape decoys on a textureless picture) give a low confidence, and the gate
then hands the challenge on instead of guessing (workers/captcha/local.py:THRESHOLDS).
An opaque piece whose border is not one colour is a rectangle cut straight out of the picture:
the whole image is the piece, its outline the image's edge (`_match.foreground_mask`, `outline`).
Limits: a hole that is not marked at all (no shading, no rim) is invisible; a piece on an
opaque backing of its own colours cannot be cut out (then the whole piece image is matched
and `piece_left` is 0); pieces turned relative to their hole are not searched.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from workers.captcha.solvers._image import SolverInputError, open_image, rgb_array, rgba_array
from workers.captcha.solvers._match import (
    foreground_mask,
    gradient,
    outline,
    outline_support,
    ring_contrast,
    shrink,
    stable_ncc,
)

BAND_SLACK = 3  # px of play around the height a full-height strip gives
CANDIDATES = 6  # distinct placements the shape match proposes for the content check
CONTENT_WEIGHT = 0.5  # weight of a positive content correlation (0.3, 0.5, 1.0 tried on our own generator: 0.5)
CONFIDENT_MARGIN = 0.4  # a lead of this much over the runner-up is full confidence
# A hole framed by a light border (drawn over its edge) shows its shading only inside the
# frame: the shading is also read FRAME_INSET px in, on pieces whose body is that deep.
FRAME_INSET = 5
# Weight of the outline's weakest quarter lying on edges (0.3, 0.45, 0.6, 1.0 tried on our own
# tuning sets, CaptchaGenerator's square puzzle drawn on our backgrounds among them: 0.6).
SUPPORT_WEIGHT = 0.6


@dataclass(frozen=True)
class SliderAnswer:
    """Where the hole is (background pixels) and where the piece sits in its own image."""

    gap_left: int
    gap_centre: int
    gap_top: int
    piece_left: int
    piece_top: int
    score: float  # shape match quality, about -1 to 1.5 (1.0 by differencing); right answers scored 0.57+
    confidence: float = 1.0  # [0, 1]: the best placement's lead over the next distinct one


@dataclass(frozen=True)
class _Piece:
    mask: np.ndarray  # uint8 0/255, cropped to the visible part
    grey: np.ndarray  # float32 grey of the visible part
    left: int
    top: int
    strip: bool  # a full-height strip whose rows match the background's


def solve_slider(background: bytes, piece: bytes) -> SliderAnswer:
    """Locate the hole for `piece` in `background`; see the module doc."""
    bg_image, piece_image = open_image(background), open_image(piece)
    bg = rgb_array(bg_image)
    if piece_image.size == bg_image.size:
        return _by_difference(bg, rgb_array(piece_image))
    part = _visible_part(rgba_array(piece_image), bg.shape[0])
    if part.mask.shape[0] > bg.shape[0] or part.mask.shape[1] > bg.shape[1]:
        raise SolverInputError("the piece is larger than the background")
    grey = cv2.cvtColor(bg, cv2.COLOR_RGB2GRAY).astype(np.float32)
    scores = _match_scores(grey, part)
    if part.strip:
        band = np.full(scores.shape[0], -np.inf)
        lo, hi = max(0, part.top - BAND_SLACK), min(scores.shape[0], part.top + BAND_SLACK + 1)
        band[lo:hi] = 0.0
        scores = scores + band[:, None]
    detail = _detail(grey)
    # Only a positive correlation counts: a piece's glow against a hole's inner shadow can
    # anti-correlate at every hole of its shape, the true one included.
    ranked = sorted(((shape + CONTENT_WEIGHT * _content_match(grey, detail, part, x, y), shape, x, y)
                     for shape, x, y in _peaks(scores, part.mask.shape)), reverse=True)
    total, shape, x, y = ranked[0]
    runner_up = ranked[1][0] if len(ranked) > 1 else total - 1.0
    width = part.mask.shape[1]
    return SliderAnswer(x, x + width // 2, y, part.left, part.top, float(shape), _confidence(total, runner_up))


def _peaks(scores: np.ndarray, size: tuple[int, int], count: int = CANDIDATES) -> list[tuple[float, int, int]]:
    """The best `count` placements that do not overlap: (score, x, y)."""
    scores = scores.copy()
    height, width = size
    found = []
    for _ in range(count):
        y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
        if not np.isfinite(scores[y, x]):
            break
        found.append((float(scores[y, x]), int(x), int(y)))
        # Two holes cannot overlap: anything closer than a piece is the same hole seen off-centre.
        scores[max(0, y - height + 1):y + height, max(0, x - width + 1):x + width] = -np.inf
    return found


def _content_match(grey: np.ndarray, detail: np.ndarray, part: _Piece, x: int, y: int) -> float:
    """Correlation of the piece's picture with the background under the placement, as it is
    and high-passed (`_detail`), whichever is higher. A hole is the piece's own patch darkened,
    lightened or tinted (an affine change, which correlation ignores), sometimes under a smooth
    glow or inner shadow (which the high-pass removes). So the true hole correlates and a decoy
    of the same shape does not. A hole filled flat, or a piece without texture, scores about 0:
    the shape decides."""
    inner = _inner(part.mask)
    if inner.sum() < 30:
        return 0.0
    h, w = part.mask.shape
    pairs = ((part.grey, grey[y:y + h, x:x + w]),
             (_detail(part.grey, shrink(part.mask, 7)), detail[y:y + h, x:x + w]))
    best = 0.0
    for piece, under in pairs:
        a, b = piece[inner], under[inner]
        a, b = a - a.mean(), b - b.mean()
        spread = float(np.sqrt((a * a).sum() * (b * b).sum()))
        if spread > 1e-6 and a.std() >= 1.5:  # texture below JPEG noise level says nothing
            best = max(best, float((a * b).sum() / spread))
    return best


def _inner(mask: np.ndarray) -> np.ndarray:
    """Well inside the outline only: pieces often carry a glow or bevel along their edge."""
    depth = max(2, min(mask.shape) // 8)
    return shrink(mask, 2 * depth + 1) > 0


def _detail(grey: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The picture less its smooth shading (glows, shadows, gradients): edges and texture.
    With `mask`, the shading is estimated from the pixels in it only (a normalised blur), so
    the transparent surround and a piece's rim do not bleed in."""
    if mask is None:
        return grey - cv2.GaussianBlur(grey, (0, 0), 2.5)
    weight = (mask > 0).astype(np.float32)
    smooth = cv2.GaussianBlur(grey * weight, (0, 0), 2.5) / (cv2.GaussianBlur(weight, (0, 0), 2.5) + 1e-6)
    return grey - smooth


def _confidence(best: float, runner_up: float) -> float:
    """How sure the answer is, in [0, 1]: the margin of the best placement over the next
    distinct one, on the scale where a clear hole leads by CONFIDENT_MARGIN or more."""
    return float(np.clip((best - runner_up) / CONFIDENT_MARGIN, 0.0, 1.0))


def _visible_part(rgba: np.ndarray, bg_height: int) -> _Piece:
    """Crop the piece to what is drawn (by alpha, or else by difference from its backing)."""
    mask = foreground_mask(rgba)
    points = cv2.findNonZero(mask)
    if points is None:
        raise SolverInputError("the piece image is fully transparent")
    x, y, w, h = cv2.boundingRect(points)
    grey = cv2.cvtColor(np.ascontiguousarray(rgba[..., :3]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    strip = rgba[..., 3].min() < 200 and rgba.shape[0] == bg_height and h < 0.8 * bg_height
    return _Piece(mask[y:y + h, x:x + w], grey[y:y + h, x:x + w], x, y, strip)


def _match_scores(grey: np.ndarray, part: _Piece) -> np.ndarray:
    """Score every placement of the piece's top-left corner: the piece's outline and inner
    edges against the background's gradients, plus how strongly the background is shaded
    differently just inside that outline (or inside a frame along it) than just outside it
    (holes are marked so), plus how well the outline's weakest quarter lies on edges (a hole
    is outlined all round; a box's side or the true hole seen one width off is not)."""
    bg_grad = gradient(cv2.GaussianBlur(grey, (3, 3), 0))
    bg_grad = bg_grad / (bg_grad.mean() + 1e-6)
    inner = shrink(part.mask, 5) > 0
    content = gradient(cv2.GaussianBlur(part.grey, (3, 3), 0)) * inner
    content = content / (content.max() + 1e-6)
    edge_map = np.log1p(bg_grad)
    edges = stable_ncc(edge_map, outline(part.mask) + 0.5 * content)
    # Only a piece with a body that deep (not a thin or hollow outline) has a ring inside a frame.
    deep = cv2.countNonZero(shrink(part.mask, 2 * FRAME_INSET + 1)) >= 0.25 * cv2.countNonZero(part.mask)
    shading = ring_contrast(grey, part.mask, insets=(0, FRAME_INSET) if deep else (0,))
    support = outline_support(edge_map, part.mask)
    return edges + 0.5 * np.tanh(shading / 2) + SUPPORT_WEIGHT * np.tanh(support / 2)


def _by_difference(first: np.ndarray, second: np.ndarray) -> SliderAnswer:
    """The hole is where the two renderings of the background differ most."""
    diff = cv2.absdiff(first, second).max(axis=2)
    diff = cv2.GaussianBlur(diff, (5, 5), 0)
    # Low threshold: shading fades where the background is already dark or light; 10 stays
    # above JPEG noise.
    level = max(10.0, 0.15 * float(diff.max()))
    binary = np.where(diff > level, 255, 0).astype(np.uint8)
    binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        raise SolverInputError("the two images do not differ")
    x, y, w, h = cv2.boundingRect(max(contours, key=cv2.contourArea))
    return SliderAnswer(x, x + w // 2, y, 0, 0, 1.0)
