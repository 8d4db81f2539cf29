"""Our own text-CAPTCHA recogniser: a small CRNN trained on many synthetic generators
(`make train-ocr`, docs/captcha-ocr.md), exported to ONNX and run by onnxruntime.

Contract: `probabilities(image) -> T×C` per-step class probabilities for one image, index 0
the CTC blank, the other classes `classes()[1:]` (Latin letters, both cases, and digits).
`prepare(image)` is the one preprocessing both training and run time use: RGB, resized to
the model's fixed input size (the network standardises each image itself). The session is
built lazily once per process and shared between threads (onnxruntime's `run` is
thread-safe). No torch here: the runtime needs only onnxruntime and numpy.
"""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_PATH = MODEL_DIR / "ocr_crnn.onnx"
MANIFEST_PATH = MODEL_DIR / "ocr_crnn.json"
INPUT_HEIGHT, INPUT_WIDTH = 32, 128
CHARSET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

_lock = threading.Lock()
_session: Any = None


def prepare(image: Image.Image) -> np.ndarray:
    """3×H×W uint8: the image as the network reads it (stretched to the fixed input size)."""
    rgb = image.convert("RGB").resize((INPUT_WIDTH, INPUT_HEIGHT), Image.Resampling.LANCZOS)
    return np.asarray(rgb, dtype=np.uint8).transpose(2, 0, 1).copy()


def classes() -> list[str]:
    """The output classes; index 0 is the CTC blank ("")."""
    return ["", *CHARSET]


@functools.cache
def manifest() -> dict[str, Any]:
    """What was trained and how well it did (written by the training recipe)."""
    return json.loads(MANIFEST_PATH.read_text())


def available() -> bool:
    """Whether the committed weights are present (a checkout without them falls back to ddddocr)."""
    return MODEL_PATH.is_file()


def _get() -> Any:
    global _session
    if _session is None:
        with _lock:
            if _session is None:
                import onnxruntime

                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1  # tiny model: threads cost more than they save
                options.inter_op_num_threads = 1
                _session = onnxruntime.InferenceSession(str(MODEL_PATH), options,
                                                        providers=["CPUExecutionProvider"])
    return _session


def warm_up() -> None:
    """Load the model now rather than inside the first timed call."""
    _get()


def probabilities(image: Image.Image) -> np.ndarray:
    """Per-step class probabilities (T×C) for one CAPTCHA image."""
    session = _get()
    batch = prepare(image)[None].astype(np.float32)
    logits = session.run(None, {session.get_inputs()[0].name: batch})[0][0]
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)
