"""Offline OCR: read the text on a screenshot and find where a given text is.

The model is RapidOCR (PP-OCR detection + recognition, ONNX), whose weights ship inside the
`rapidocr_onnxruntime` wheel: nothing is downloaded at run time. It reads Latin and CJK text.
One engine per process, created on first use (~0.5 s) and guarded by a lock (the ONNX sessions
are not shared between threads). Used by the desktop surface for explicit steps, the safety gate
and success criteria, and by Android as the fallback when the UI hierarchy has no match.

Contract:
- `read_text(png) -> list[TextBox]`: every line of text found, top to bottom, left to right.
- `find_text(png, text) -> list[Box]`: the boxes of `text` on the image, best match first.
  Matching ignores case and whitespace (the recogniser often drops spaces); a text found inside
  a longer line gets the part of the line's box its characters take up.
Boxes are in pixels of the image given.
"""

from __future__ import annotations

import io
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any

MIN_SCORE = 0.5


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in image pixels."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[int, int]:
        return round(self.x + self.width / 2), round(self.y + self.height / 2)

    def as_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}


@dataclass(frozen=True)
class TextBox:
    """One line of text the recogniser read, with its box and confidence (0-1)."""

    text: str
    box: Box
    score: float


class OcrUnavailable(RuntimeError):
    """The OCR package is not installed (see requirements-ocr.txt)."""


_engine: Any = None
_lock = threading.Lock()


def _get_engine() -> Any:
    global _engine
    if _engine is None:
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:  # pragma: no cover - the package is a declared dependency
            raise OcrUnavailable("offline OCR needs rapidocr-onnxruntime (pip install -r requirements-ocr.txt)") from exc
        _engine = RapidOCR()
    return _engine


def read_text(image: bytes) -> list[TextBox]:
    """Every line of text on the image (PNG or JPEG bytes), in reading order."""
    import numpy as np
    from PIL import Image

    array = np.array(Image.open(io.BytesIO(image)).convert("RGB"))
    with _lock:
        result, _ = _get_engine()(array, use_cls=False)  # screen text is upright: no angle classifier (5x faster)
    lines: list[TextBox] = []
    for quad, text, score in result or []:
        if float(score) < MIN_SCORE or not str(text).strip():
            continue
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        box = Box(float(min(xs)), float(min(ys)), float(max(xs) - min(xs)), float(max(ys) - min(ys)))
        lines.append(TextBox(str(text), box, float(score)))
    lines.sort(key=lambda line: (round(line.box.y / 8), line.box.x))
    return lines


def find_text(image: bytes, text: str, *, lines: list[TextBox] | None = None) -> list[Box]:
    """Where `text` is on the image: whole-line matches first, then matches inside a line (the
    part of the line's box the text takes up), each group top to bottom. `lines`: a `read_text`
    result of the same image, to avoid reading it twice."""
    wanted = normalise(text)
    if not wanted:
        return []
    exact: list[Box] = []
    partial: list[Box] = []
    for line in lines if lines is not None else read_text(image):
        have = normalise(line.text)
        if have == wanted:
            exact.append(line.box)
            continue
        start = have.find(wanted)
        if start >= 0:
            share = line.box.width / max(len(have), 1)
            partial.append(Box(line.box.x + start * share, line.box.y, len(wanted) * share, line.box.height))
    return exact + partial


def normalise(text: str) -> str:
    """Compare texts as the recogniser reads them: no whitespace, no case, compatible forms
    (full-width letters, ligatures) folded, accents dropped (it often reads ü as u)."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(ch for ch in folded if not ch.isspace() and not unicodedata.combining(ch))
