"""Our own text-CAPTCHA recogniser: ddddocr's general reader fine-tuned by us on many synthetic
generators (`make train-ocr`, docs/captcha-ocr.md), exported to ONNX and run by onnxruntime.

Contract: `probabilities(image) -> T×C` per-step class probabilities for one image, index 0
the CTC blank, the other classes `classes()[1:]` (Latin letters, both cases, and digits).
`prepare(image)` is the one preprocessing both training and run time use: grey, 64 px high
with the image's proportions kept, padded to the fixed width with the colour of its border. The session is
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

from workers.captcha.solvers._image import rgb_array

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_PATH = MODEL_DIR / "ocr_crnn.onnx"
MANIFEST_PATH = MODEL_DIR / "ocr_crnn.json"
INPUT_HEIGHT, INPUT_WIDTH = 64, 256
CHARSET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

_lock = threading.Lock()
_session: Any = None


def prepare(image: Image.Image) -> np.ndarray:
    """1×H×W uint8: the image as the network reads it. Grey, INPUT_HEIGHT high with its
    proportions kept (as ddddocr reads, where the training starts), squeezed only when wider than
    INPUT_WIDTH, the rest of the width filled with the median colour of the image's border.
    Transparent pixels are laid on white, as a page shows them (not on the black their colour
    values often hold)."""
    width = max(8, min(INPUT_WIDTH, round(image.width * INPUT_HEIGHT / max(1, image.height))))
    grey = np.asarray(Image.fromarray(rgb_array(image)).resize((width, INPUT_HEIGHT), Image.Resampling.LANCZOS).convert("L"),
                      dtype=np.uint8)
    out = np.empty((1, INPUT_HEIGHT, INPUT_WIDTH), dtype=np.uint8)
    out[0, :, :width] = grey
    if width < INPUT_WIDTH:
        border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
        out[0, :, width:] = int(np.median(border))
    return out


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
                options.intra_op_num_threads = 1  # one image at a time: threads cost more than they save
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
