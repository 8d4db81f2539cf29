"""Data generation for the recogniser: fixed-seed shards of images from the training family.

A shard is `SHARD` images drawn with `random.Random(seed)`, the source of each image picked
by the weights in `sources.SOURCES`; validation shards draw each source in turn so every
source is measured apart. Shards are cached as .npz (images as the network reads them,
`recogniser.prepare`, plus texts and source names) so a rerun of the recipe skips what is
already made; they live in a folder named by `data_hash()`, so a change to any generator
makes fresh shards instead of reusing stale ones. Usage: python -m scripts.ocr_train.data --out DIR --train N --val N [--workers 2]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from scripts.ocr_train.sources import SOURCES
from workers.captcha.solvers.recogniser import CHARSET, prepare

SHARD = 1000
TRAIN_SEED, VAL_SEED = 1_000_000, 9_000_000  # shard i uses seed BASE + i
ROOT = Path(__file__).resolve().parents[2]
# The code a shard's pixels depend on.
_DATA_CODE = ("scripts/ocr_train/data.py", "scripts/ocr_train/sources.py", "scripts/ocr_train/styles.py",
              "scripts/ocr_train/classic.py", "scripts/ocr_train/foreign.py",
              "scripts/ocr_train/fonts.py", "practice/captcha/generators/ocr.py",
              "practice/captcha/drawing.py", "practice/captcha/fonts.py",
              "workers/captcha/solvers/recogniser.py")


def data_hash() -> str:
    """sha256 over the data-making code (12 hex digits): the shard folder's name."""
    digest = hashlib.sha256()
    for name in _DATA_CODE:
        digest.update(name.encode() + (ROOT / name).read_bytes())
    return digest.hexdigest()[:12]


def make_shard(path: str, seed: int, split: str) -> str:
    """Draw one shard and save it; returns its path."""
    rng = random.Random(seed)  # noqa: S311 -- reproducible training data, not secrets
    names = list(SOURCES)
    images, texts, sources = [], [], []
    for i in range(SHARD):
        name = names[i % len(names)] if split == "val" else rng.choices(names, [w for _, w in SOURCES.values()])[0]
        image, text = SOURCES[name][0](rng)
        if not text or any(c not in CHARSET for c in text):
            raise ValueError(f"{name} drew {text!r}: outside the charset")
        images.append(prepare(image))
        texts.append(text)
        sources.append(name)
    # Written under another name and moved into place: a run stopped mid-write leaves no shard
    # that the next run would take as made.
    part = f"{path}.part.npz"
    np.savez_compressed(part, images=np.stack(images), texts=np.array(texts), sources=np.array(sources))
    os.replace(part, path)
    return path


def build(out: Path, *, split: str, count: int, workers: int) -> list[Path]:
    """Make the missing shards of a split (count rounded up to whole shards)."""
    out.mkdir(parents=True, exist_ok=True)
    base = TRAIN_SEED if split == "train" else VAL_SEED
    paths = [out / f"{split}-{i:04d}.npz" for i in range(-(-count // SHARD))]
    missing = [(str(p), base + i, split) for i, p in enumerate(paths) if not p.exists()]
    if missing:
        with ProcessPoolExecutor(workers) as pool:
            for done in pool.map(make_shard, *zip(*missing)):
                print(f"  {done}", flush=True)
    return paths


def load(paths: list[Path]) -> tuple[np.ndarray, list[str], list[str]]:
    """All images (N×1×H×W uint8, `recogniser.prepare`), texts and source names of the given shards."""
    parts = [np.load(p) for p in paths]
    return (np.concatenate([p["images"] for p in parts]), [str(t) for p in parts for t in p["texts"]],
            [str(s) for p in parts for s in p["sources"]])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--train", type=int, default=0)
    parser.add_argument("--val", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    for split, count in (("val", args.val), ("train", args.train)):
        if count:
            build(args.out, split=split, count=count, workers=args.workers)
    print(f"data ready in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
