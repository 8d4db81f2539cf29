"""Measure the text CAPTCHA reader's framings (workers/captcha/solvers/ocr.py, docs/captcha-ocr.md
"Framing") on data we draw ourselves: the whole image alone, with the ink region
(`text_region`), and with the ink region and the densest cluster of ink (`text_cluster`, what
`read_text` does).

Two sets per seed, drawn as the gate's calibration draws (scripts/ocr_train/calibrate.py: the
training family, the family in held-out fonts and the calibration-only generators, a third
each): the images as drawn, and the family and held-out-font images shrunk to 35-60% of the
width of a wider canvas (220-320 × 70-120 px) of their border's colour with grain, their edges
faded into it, 1-3 thin lines across most of its width (text drawn small in a larger picture,
as some generators draw it). The third-party evaluation generators are never used here. Prints
JSON: per set and framing, right as typed, right ignoring case, the answers the gate keeps at
its three-try threshold, how many of those are right, and `pass` (right and kept, of all); the
median time of `read_text`.

    python -m scripts.ocr_train.framing [--seed 7600000] [--count 900]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import time

import numpy as np
from PIL import Image, ImageDraw

from scripts.ocr_train import calibrate
from workers.captcha import local
from workers.captcha.solvers import ocr
from workers.captcha.solvers._image import border_pixels


def shrink(image: Image.Image, rng: random.Random) -> Image.Image:
    """`image` small in a wider canvas of its border's colour, with grain and lines across."""
    image = image.convert("RGB")
    pixels = np.asarray(image, dtype=np.float64)
    border = border_pixels(pixels)
    width, height = rng.randint(220, 320), rng.randint(70, 120)
    grain = np.random.default_rng(rng.randrange(2**32)).normal(0, border.std(axis=0).mean() / 2, (height, width, 1))
    canvas = Image.fromarray(np.clip(np.median(border, axis=0) + grain, 0, 255).astype(np.uint8))
    w = int(width * rng.uniform(0.35, 0.6))
    h = max(12, int(w * image.height / image.width))
    if h > 0.9 * height:
        h = int(0.9 * height)
        w = int(h * image.width / image.height)
    fade = max(2, int(0.15 * min(w, h)))
    ramp_x, ramp_y = (np.minimum(1, np.arange(n) / fade) for n in (w, h))
    mask = np.minimum(np.minimum(ramp_x, ramp_x[::-1])[None], np.minimum(ramp_y, ramp_y[::-1])[:, None])
    canvas.paste(image.resize((w, h), Image.Resampling.LANCZOS), (rng.randint(0, width - w), rng.randint(0, height - h)),
                 Image.fromarray((mask * 255).astype(np.uint8)))
    pen = ImageDraw.Draw(canvas)
    for _ in range(rng.randint(1, 3)):
        pen.line([(rng.randint(0, width // 4), rng.randint(0, height)), (rng.randint(3 * width // 4, width), rng.randint(0, height))],
                 fill=tuple(rng.randint(0, 160) for _ in range(3)), width=rng.randint(1, 2))
    return canvas


def readings(image: Image.Image, data: bytes) -> tuple[dict[str, ocr.OcrReading], float]:
    """The reading of each framing (the better by `ocr._better`, as `read_text` chooses), and the
    seconds `read_text` took: the whole image alone, with the ink region (`read_text` before the
    cluster), and `read_text` itself."""
    kwargs = {"charset": None, "length": None, "arithmetic": None, "max_length": None}
    whole = region = ocr._read(image, **kwargs)
    box = ocr.text_region(image)
    if box is not None:
        region = ocr._better(whole, ocr._read(image.crop(box), **kwargs))
    start = time.perf_counter()
    both = ocr.read_text(data)
    return {"whole": whole, "region": region, "region_and_cluster": both}, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7_600_000)
    parser.add_argument("--count", type=int, default=900)
    args = parser.parse_args()
    threshold = local.ocr_threshold(3)
    drawn = list(calibrate.draw_images(random.Random(args.seed), args.count))  # noqa: S311 -- reproducible
    rng = random.Random(args.seed + 1)  # noqa: S311
    sets = {"as_drawn": [(image, text) for _, _, image, text in drawn],
            "shrunk": [(shrink(image, rng), text) for group, _, image, text in drawn if group != "calibration_only"]}
    report: dict = {"seed": args.seed, "threshold": threshold}
    for name, items in sets.items():
        scores: dict[str, list[int]] = {}
        seconds = []
        for image, text in items:
            buffer = io.BytesIO()
            image.save(buffer, "PNG")
            found, took = readings(image, buffer.getvalue())
            seconds.append(took)
            for framing, reading in found.items():
                score = scores.setdefault(framing, [0, 0, 0, 0])
                kept = reading.confidence >= threshold
                score[0] += reading.text == text
                score[1] += reading.text.lower() == text.lower()
                score[2] += kept
                score[3] += kept and reading.text == text
        report[name] = {"images": len(items), "median_ms": round(1000 * statistics.median(seconds), 1), **{
            framing: {"exact": round(right / len(items), 3), "any_case": round(right_any / len(items), 3), "kept": kept,
                      "right_when_kept": round(right_kept / max(1, kept), 3), "pass": round(right_kept / len(items), 3)}
            for framing, (right, right_any, kept, right_kept) in scores.items()}}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
