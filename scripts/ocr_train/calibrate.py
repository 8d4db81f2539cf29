"""Set the OCR abstention threshold (`workers/captcha/local.py:THRESHOLDS["ocr"]`) on the
TRAINING family only (docs/captcha.md, "Thresholds").

Draws fresh images from scripts/ocr_train/sources.py (its own seed, apart from the training,
validation and vote-tuning images), reads each with the full two-reader vote (`read_text`, no
page hints) and prints, per candidate threshold, how many answers would be given and how
often those were exactly right. The rule: the lowest threshold whose answers at or above it
are right at least 98% of the time. The third-party generators are never used here.

    python -m scripts.ocr_train.calibrate [--count 600]
"""

from __future__ import annotations

import argparse
import io
import json
import random

from scripts.ocr_train.sources import SOURCES
from workers.captcha.solvers.ocr import read_text

CALIBRATE_SEED = 7_000_000
CANDIDATES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7)
PRECISION = 0.98


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=600)
    args = parser.parse_args()
    rng = random.Random(CALIBRATE_SEED)  # noqa: S311 -- reproducible calibration data
    names = list(SOURCES)
    rows: list[tuple[str, float, bool]] = []
    for i in range(args.count):
        name = names[i % len(names)]
        image, text = SOURCES[name][0](rng)
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        reading = read_text(buffer.getvalue())
        rows.append((name, reading.confidence, reading.text == text))
    table = {}
    for t in CANDIDATES:
        kept = [ok for _, c, ok in rows if c >= t]
        table[str(t)] = {"kept": len(kept), "precision": round(sum(kept) / len(kept), 4) if kept else None,
                         "kept_per_source": {n: sum(1 for s, c, _ in rows if s == n and c >= t) for n in names}}
    chosen = next((t for t in CANDIDATES if table[str(t)]["precision"] and table[str(t)]["precision"] >= PRECISION),
                  None)
    print(json.dumps({"count": len(rows), "exact_if_always_guessing": round(sum(ok for *_, ok in rows) / len(rows), 4),
                      "by_threshold": table, "rule": f"lowest with precision >= {PRECISION}", "chosen": chosen},
                     indent=2))


if __name__ == "__main__":
    main()
