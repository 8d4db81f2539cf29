"""Process-wide ddddocr models, built lazily once and shared between threads.

ddddocr 1.6.1 ships its ONNX models inside the wheel, so nothing is downloaded. Construction
takes ~0.1-0.3 s per model; inference sessions are shared. We never call ddddocr's stateful
`set_ranges` (it mutates the shared engine and only filters the decoded text): charset
restrictions are applied here, as a mask over the per-step class probabilities, which is
thread-safe and actually re-ranks the characters.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

if TYPE_CHECKING:
    from ddddocr import DdddOcr

_lock = threading.Lock()
_models: dict[str, "DdddOcr"] = {}
OCR_HEIGHT = 64  # the bundled recogniser reads grey images 64 px high, any width


def _get(kind: str) -> "DdddOcr":
    model = _models.get(kind)
    if model is None:
        with _lock:
            model = _models.get(kind)
            if model is None:
                import ddddocr  # heavy import (onnxruntime): only when a solver needs it

                model = ddddocr.DdddOcr(show_ad=False, det=kind == "det", ocr=kind == "ocr")
                _models[kind] = model
    return model


def warm_up(*kinds: str) -> None:
    """Build the named models ("ocr", "det", "recogniser": ours) now instead of on first use."""
    for kind in kinds:
        if kind == "recogniser":
            from workers.captcha.solvers import ocr_vote, recogniser

            if recogniser.available():
                recogniser.warm_up()
                ocr_vote.committed()  # reads the gate file and hashes the weights it must match
        else:
            _get(kind)


def charset() -> list[str]:
    """The recogniser's classes; index 0 is the CTC blank."""
    return _get("ocr").get_charset()


@functools.cache
def class_index() -> dict[str, int]:
    """Character -> class index (built once; treat as read-only)."""
    return {c: i for i, c in enumerate(charset()) if c}


def ocr_probabilities(image: Image.Image) -> np.ndarray:
    """Per-step class probabilities (T×C) for one text line.

    Preprocessing mirrors ddddocr 1.6.1's `classification` (height 64, Lanczos, grey, /255),
    so the arg-max decode equals its text output; `tests/captcha` checks that on samples.
    """
    session = _get("ocr").ocr_engine.session
    width = max(1, int(image.width * (OCR_HEIGHT / image.height)))
    grey = image.convert("RGB").resize((width, OCR_HEIGHT), Image.LANCZOS).convert("L")
    batch = (np.asarray(grey, dtype=np.float32) / 255.0)[None, None]
    logits = session.run(None, {session.get_inputs()[0].name: batch})[0]
    logits = logits[:, 0, :] if logits.shape[1] == 1 else logits[0]
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)


def detect_boxes(image_bytes: bytes) -> list[tuple[int, int, int, int]]:
    """ddddocr's glyph/icon detector: (left, top, right, bottom) boxes in image pixels."""
    boxes = _get("det").detection(image_bytes)
    return [(int(b[0]), int(b[1]), int(b[2]), int(b[3])) for b in boxes]
