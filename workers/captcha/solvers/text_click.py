"""Click-the-characters-in-order puzzles ("请依次点击「天」「地」「人」").

Contract: `solve_text_click(image, chars) -> list[PixelPoint]`, one point per requested
character, in the order given, each the centre of the glyph box chosen for it in `image`
pixels; no box serves two characters. Latin letters and digits work as well as CJK (a
Latin letter matches either case).
How: ddddocr's detector proposes glyph boxes, topped up with compact high-contrast blobs
the detector missed (it is weaker on Latin letters). Each box is read by the recogniser,
upright and turned ±20° (glyphs are drawn at an angle), and scored for each wanted
character as the best per-step probability of that character; the recogniser's classes
are masked to the wanted characters first, which is what ddddocr's `set_ranges` means to
do, without its shared state. Characters and boxes are then paired one-to-one to
maximise the summed log-score.
Limits: glyphs that touch or overlap share one box; heavily stylised, hollow or very
small (< ~14 px) glyphs read poorly; characters outside the recogniser's charset (rare
CJK, symbols) never match and get the least bad box; a decoy identical to a wanted
character is a coin toss.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

import numpy as np
from PIL import Image

from workers.captcha.solvers import _models
from workers.captcha.solvers._image import PixelPoint, SolverInputError, open_image, png_bytes, rgb_array
from workers.captcha.solvers.icon_click import candidate_blobs

Box = tuple[int, int, int, int]
TURNS = (0.0, -20.0, 20.0)  # glyphs are drawn at an angle; the best reading counts
MAX_BOXES = 9


def solve_text_click(image: bytes, chars: list[str]) -> list[PixelPoint]:
    """Where to click for each of `chars`, in order; see the module doc."""
    return read_text_click(image, chars)[0]


def read_text_click(image: bytes, chars: list[str]) -> tuple[list[PixelPoint], float]:
    """`solve_text_click` with a confidence in [0, 1]: the weakest chosen box's probability of
    being its character."""
    wanted = [c.strip() for c in chars]
    if not wanted or any(len(c) != 1 for c in wanted):
        raise SolverInputError("chars must be single characters")
    picture = open_image(image)
    rgb = rgb_array(picture)
    # The detector decodes the bytes itself and would drop transparency to black.
    boxes = glyph_boxes(image if picture.mode in ("RGB", "L") else png_bytes(rgb), rgb)
    if len(boxes) < len(wanted):
        raise SolverInputError(f"found {len(boxes)} glyphs for {len(wanted)} characters")
    view = Image.fromarray(rgb)
    scores = np.stack([_char_scores(view, box, wanted) for box in boxes], axis=1)
    choice = _assign(np.log(scores + 1e-9))
    confidence = float(np.clip(min(scores[i, j] for i, j in enumerate(choice)), 0.0, 1.0))
    return [PixelPoint((boxes[j][0] + boxes[j][2]) // 2, (boxes[j][1] + boxes[j][3]) // 2) for j in choice], confidence


_QUOTED = re.compile(r"「([^」]*)」|『([^』]*)』|“([^”]*)”|‘([^’]*)’|【([^】]*)】|\"([^\"]*)\"|'([^']*)'")


def chars_from_instruction(instruction: str) -> list[str]:
    """The characters an instruction asks to click, in order.

    Quoted text wins ("请依次点击「天」「地」「人」", 'click "A" "B"', “春夏秋”); otherwise the
    text after the last colon ("请依次点击：天 地 人", "Click in order: A, B, C"). Spaces and
    punctuation are dropped. Raises `SolverInputError` when nothing is found.
    """
    quoted = ["".join(group for group in match.groups() if group) for match in _QUOTED.finditer(instruction)]
    source = "".join(quoted)
    if not source:
        for colon in ("：", ":"):
            if colon in instruction:
                source = instruction.rsplit(colon, 1)[1]
                break
    chars = [c for c in source if not c.isspace() and not unicodedata.category(c).startswith(("P", "S", "Z", "C"))]
    if not chars:
        raise SolverInputError(f"no characters to click found in {instruction!r}")
    return chars


def glyph_boxes(image: bytes, rgb: np.ndarray) -> list[Box]:
    """Detector boxes plus compact blobs that no detector box covers."""
    boxes = [b for b in _models.detect_boxes(image) if b[2] - b[0] >= 6 and b[3] - b[1] >= 6]
    for blob, centre in candidate_blobs(rgb):
        h, w = blob.shape
        if not any(b[0] <= centre.x <= b[2] and b[1] <= centre.y <= b[3] for b in boxes):
            boxes.append((centre.x - w // 2, centre.y - h // 2, centre.x - w // 2 + w, centre.y - h // 2 + h))
    return boxes


def _char_scores(picture: Image.Image, box: Box, wanted: list[str]) -> np.ndarray:
    """For each wanted character, the best probability (over TURNS) that the box shows it."""
    index = _models.class_index()
    columns = [[index[v] for v in {c, c.swapcase()} if v in index] for c in wanted]
    allowed = sorted({i for col in columns for i in col})
    crop = _crop(picture, box)
    best = np.zeros(len(wanted))
    for turn in TURNS:
        view = crop if turn == 0 else crop.rotate(turn, resample=Image.BICUBIC, expand=True, fillcolor=_corner(crop))
        probs = _models.ocr_probabilities(view)
        # Renormalise over the blank and the wanted characters only: a charset restriction.
        sub = probs[:, [0, *allowed]]
        sub = sub / sub.sum(axis=1, keepdims=True)
        lookup = {cls: k + 1 for k, cls in enumerate(allowed)}
        for n, col in enumerate(columns):
            if col:
                best[n] = max(best[n], float(sub[:, [lookup[i] for i in col]].sum(axis=1).max()))
    return best


def _crop(picture: Image.Image, box: Box) -> Image.Image:
    """The box with a margin of a fifth of its size on every side (the recogniser wants air)."""
    x0, y0, x1, y1 = box
    pad = max(3, (max(x1 - x0, y1 - y0)) // 5)
    region = (max(0, x0 - pad), max(0, y0 - pad), min(picture.width, x1 + pad), min(picture.height, y1 + pad))
    return picture.crop(region).convert("RGB")


def _corner(crop: Image.Image) -> tuple[int, int, int]:
    arr = np.asarray(crop)
    corners = np.stack([arr[0, 0], arr[0, -1], arr[-1, 0], arr[-1, -1]])
    return tuple(int(v) for v in np.median(corners, axis=0))  # type: ignore[return-value]


def _assign(logs: np.ndarray) -> list[int]:
    """Box index per character, one-to-one, maximising the summed log-score."""
    chars, boxes = logs.shape
    keep = np.argsort(-logs.max(axis=0))[:max(MAX_BOXES, chars)]
    best, choice = -np.inf, tuple(keep[:chars])
    for perm in itertools.permutations(keep, chars):
        total = float(logs[range(chars), list(perm)].sum())
        if total > best:
            best, choice = total, perm
    return [int(j) for j in choice]
