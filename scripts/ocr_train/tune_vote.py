"""Tune the vote's ddddocr weight (`ocr_vote.DDDD_WEIGHT`) and the uniform-case margin
(`ocr_vote.UNIFORM_CASE_NATS`) on the TRAINING family only.

Draws fresh images from scripts/ocr_train/sources.py (its own seed, apart from the training
and validation shards), reads each once with both readers, then replays the vote for each
weight (case-insensitive accuracy) and, at the committed weight, the case decision for each
margin (exact accuracy), and prints both as JSON. The third-party generators are never used
here.

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
from workers.captcha.solvers.ocr import ASCII_ALNUM, _recase, decode
from workers.captcha.solvers.ocr_vote import DDDD_WEIGHT, choose, consistent_case, fold, uniform_case

TUNE_SEED = 8_000_000
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
MARGINS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 9.0)


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
    report, cased = {}, []
    for weight in WEIGHTS:
        hits = 0
        for text, ours, dddd in rows:
            ours_text = decode(ours, ours_classes, allowed=ASCII_ALNUM)
            best, _, _ = choose(ours_text, decode(dddd, dddd_classes, allowed=ASCII_ALNUM),
                                fold(ours, ours_classes, ASCII_ALNUM), fold(dddd, dddd_classes, ASCII_ALNUM), weight)
            hits += best.lower() == text.lower()
            if weight == DDDD_WEIGHT:  # as read_text cases it
                cased.append((text, ours, ours_text if best.lower() == ours_text.lower()
                              else _recase(ours, ours_classes, best)))
        report[str(weight)] = round(hits / len(rows), 4)
    margins = {str(m): round(sum(consistent_case(uniform_case(read, ours, ours_classes, m)) == text
                                 for text, ours, read in cased) / len(rows), 4) for m in MARGINS}
    print(json.dumps({"case_insensitive_accuracy_by_weight": report, "count": len(rows),
                      f"exact_accuracy_by_uniform_case_nats_at_weight_{DDDD_WEIGHT}": margins}, indent=2))


if __name__ == "__main__":
    main()
