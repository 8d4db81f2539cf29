"""Tune the vote's ddddocr weight (`ocr_vote.DDDD_WEIGHT`) on the TRAINING family only.

Draws fresh images from scripts/ocr_train/sources.py (its own seed, apart from the training
and validation shards), reads each once with both readers, then replays the vote for each
weight and prints exact and case-insensitive accuracy per weight as JSON. The third-party
generators are never used here.

    python -m scripts.ocr_train.tune_vote [--count 400]
"""

from __future__ import annotations

import argparse
import io
import json
import random

import numpy as np
from PIL import Image

from scripts.ocr_train.sources import SOURCES
from workers.captcha.solvers import _models, recogniser
from workers.captcha.solvers.ocr import ASCII_ALNUM, decode
from workers.captcha.solvers.ocr_vote import choose, fold

TUNE_SEED = 8_000_000
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args()
    rng = random.Random(TUNE_SEED)  # noqa: S311 -- reproducible tuning data
    names = list(SOURCES)
    rows = []
    for i in range(args.count):
        image, text = SOURCES[names[i % len(names)]][0](rng)
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        picture = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
        ours = np.log(recogniser.probabilities(picture) + 1e-12)
        dddd = np.log(_models.ocr_probabilities(picture) + 1e-12)
        rows.append((text, ours, dddd))
    ours_classes, dddd_classes = recogniser.classes(), _models.charset()
    report = {}
    for weight in WEIGHTS:
        hits = 0
        for text, ours, dddd in rows:
            best, _, _ = choose(decode(ours, ours_classes, allowed=ASCII_ALNUM),
                                decode(dddd, dddd_classes, allowed=ASCII_ALNUM),
                                fold(ours, ours_classes, ASCII_ALNUM), fold(dddd, dddd_classes, ASCII_ALNUM), weight)
            hits += best.lower() == text.lower()
        report[str(weight)] = round(hits / len(rows), 4)
    print(json.dumps({"case_insensitive_accuracy_by_weight": report, "count": len(rows)}, indent=2))


if __name__ == "__main__":
    main()
