"""The recogniser's training recipe (`make train-ocr`; docs/captcha-ocr.md).

Steps, all with fixed seeds: make the data shards (scripts/ocr_train/data.py), fine-tune
ddddocr's reader (scripts/ocr_train/model.py: its weights, the classifier cut to our classes)
with CTC, AdamW and a one-cycle learning rate on two CPU threads, measure it on the validation
split (per source, exact and case-insensitive), export it to ONNX and write the manifest next
to it (charset, input size, recipe hash and commit, sample counts, accuracy, wall time). The
defaults ARE the recipe; the flags exist to try it small while developing (a run with other
values says so in its manifest).

    python -m scripts.ocr_train.train [--train 72000] [--epochs 1] [--shrink 0.3] [--out workers/captcha/models]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from torch import nn

from scripts.ocr_train import data
from scripts.ocr_train.model import Reader, ddddocr_weights, from_ddddocr
from scripts.ocr_train.sources import EVAL_ONLY, SOURCES
from workers.captcha.solvers import recogniser

RECIPE = {"seed": 13, "train_images": 72_000, "val_images": 2_000, "epochs": 1, "batch": 32, "lr": 3e-4,
          "weight_decay": 1e-4, "threads": 2, "shrink": 0.3, "start": "ddddocr 1.6.1 common.onnx"}
ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "ocr_train"
CLASSES = recogniser.classes()
INDEX = {c: i for i, c in enumerate(CLASSES) if c}


def recipe_hash() -> str:
    """sha256 over what the weights depend on: the data-making code, the network, this file, the
    pinned requirements and the settings. The scripts that tune the vote and fit the gate after
    training (tune_vote.py, calibrate.py, heldout.py) are not part of it. The weights training
    starts from are: ddddocr's file, by its bytes."""
    digest = hashlib.sha256(json.dumps(RECIPE, sort_keys=True).encode())
    digest.update(ddddocr_weights().read_bytes())
    names = sorted({*data._DATA_CODE, "scripts/ocr_train/model.py", "scripts/ocr_train/train.py",
                    "scripts/ocr_train/quantize.py", "requirements-train.txt"})
    for path in (ROOT / name for name in names):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def _shrink(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """The batch scaled down (to 70-100% wide, 75-100% high) inside edge-padded margins at a
    random place: other generators leave other margins around their text."""
    h, w = batch.shape[-2:]
    sh, sw = (round(n * float(torch.empty(1).uniform_(lo, 1.0, generator=gen))) for n, lo in ((h, 0.75), (w, 0.7)))
    small = nn.functional.interpolate(batch, size=(sh, sw), mode="bilinear", align_corners=False, antialias=True)
    top, left = (int(torch.randint(0, n + 1, (1,), generator=gen)) for n in (h - sh, w - sw))
    return nn.functional.pad(small, (left, w - sw - left, top, h - sh - top), mode="replicate")


def _augment(batch: torch.Tensor, gen: torch.Generator, shrink: float) -> torch.Tensor:
    """Cheap batch-level changes the generators do not make: scale and margins (a `shrink`
    share of batches), inversion, shift."""
    if torch.rand(1, generator=gen) < shrink:
        batch = _shrink(batch, gen)
    flip = torch.rand(batch.shape[0], 1, 1, 1, generator=gen) < 0.1
    batch = torch.where(flip, 255.0 - batch, batch)
    dx = int(torch.randint(-4, 5, (1,), generator=gen))
    padded = nn.functional.pad(batch, (4, 4, 0, 0), mode="replicate")
    return padded[..., 4 + dx:4 + dx + batch.shape[-1]]


def _targets(texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    flat = torch.tensor([INDEX[c] for t in texts for c in t], dtype=torch.long)
    return flat, torch.tensor([len(t) for t in texts], dtype=torch.long)


def greedy(logits: np.ndarray) -> list[str]:
    """Best-path CTC decode of N×T×C logits."""
    out = []
    for row in logits.argmax(axis=2):
        chars, prev = [], 0
        for idx in row:
            if idx != prev and idx != 0:
                chars.append(CLASSES[idx])
            prev = idx
        out.append("".join(chars))
    return out


def evaluate(model: nn.Module, images: np.ndarray, texts: list[str], sources: list[str]) -> dict:
    """Exact and case-insensitive accuracy, overall and per source."""
    model.eval()
    reads: list[str] = []
    with torch.no_grad():
        for i in range(0, len(images), 256):
            reads += greedy(model(torch.from_numpy(images[i:i + 256]).float()).numpy())
    model.train()
    return score(reads, texts, sources)


def score(reads: list[str], texts: list[str], sources: list[str]) -> dict:
    """Exact and case-insensitive accuracy of `reads`, overall and per source."""
    per: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for read, text, source in zip(reads, texts, sources):
        per[source].append((read == text, read.lower() == text.lower()))
        per["all"].append((read == text, read.lower() == text.lower()))
    return {k: {"exact": round(float(np.mean([e for e, _ in v])), 4),
                "case_insensitive": round(float(np.mean([c for _, c in v])), 4), "n": len(v)}
            for k, v in sorted(per.items())}


def train(images: np.ndarray, texts: list[str], *, epochs: int, batch: int, lr: float,
          weight_decay: float, shrink: float, seed: int, on_epoch=None) -> Reader:
    """Fine-tune ddddocr's reader; `on_epoch(model, epoch)` is called after each epoch (checkpoints)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    # channels_last: oneDNN's convolutions run ~15-20% faster on the CPU in that layout.
    model = from_ddddocr(CLASSES).to(memory_format=torch.channels_last)
    steps = epochs * (len(images) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.15)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    order_rng = np.random.default_rng(seed)
    step, started = 0, time.perf_counter()
    for epoch in range(epochs):
        order = order_rng.permutation(len(images))
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            x = _augment(torch.from_numpy(images[idx]).float(), gen, shrink).contiguous(memory_format=torch.channels_last)
            flat, lengths = _targets([texts[j] for j in idx])
            logp = model(x).log_softmax(2).transpose(0, 1)  # T×N×C
            loss = ctc(logp, flat, torch.full((len(idx),), logp.shape[0], dtype=torch.long), lengths)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimiser.step()
            schedule.step()
            step += 1
            if step % 100 == 0:
                print(f"  epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} "
                      f"{time.perf_counter() - started:.0f} s", flush=True)
        if on_epoch is not None:
            on_epoch(model.eval(), epoch + 1)
            model.train()
    return model.eval()


def export(model: nn.Module, out: Path) -> Path:
    path = out / recogniser.MODEL_PATH.name
    model = copy.deepcopy(model).to(memory_format=torch.contiguous_format)
    example = torch.zeros(1, 1, recogniser.INPUT_HEIGHT, recogniser.INPUT_WIDTH)
    torch.onnx.export(model, example, str(path), input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return path


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,  # noqa: S607
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_model(model: nn.Module, out: Path, *, val: tuple, images: int, epochs: int, shrink: float,
                documented: bool, wall: dict) -> dict:
    """Export the model and its manifest into `out`; returns the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    path = export(model, out)
    manifest = {
        "model": path.name, "charset": recogniser.CHARSET, "blank_index": 0,
        "input": {"channels": 1, "height": recogniser.INPUT_HEIGHT, "width": recogniser.INPUT_WIDTH,
                  "range": "0-255 grey, proportions kept, padded (recogniser.prepare)"},
        "recipe": {**RECIPE, "hash": recipe_hash(), "commit": _commit(), "as_documented": documented,
                   "train_images_used": images, "epochs_used": epochs, "shrink_used": shrink},
        "sources": {"train": sorted(SOURCES), "third_party_eval_only": sorted(EVAL_ONLY)},
        "validation": evaluate(model, *val),
        "wall_time_s": wall,
        "size_bytes": path.stat().st_size,
    }
    (out / recogniser.MANIFEST_PATH.name).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", type=int, default=RECIPE["train_images"])
    parser.add_argument("--epochs", type=int, default=RECIPE["epochs"])
    parser.add_argument("--workers", type=int, default=RECIPE["threads"])
    parser.add_argument("--shrink", type=float, default=RECIPE["shrink"], help="share of batches shrunk (trying)")
    parser.add_argument("--out", type=Path, default=recogniser.MODEL_DIR)
    args = parser.parse_args()
    documented = (args.train, args.epochs, args.shrink) == (RECIPE["train_images"], RECIPE["epochs"], RECIPE["shrink"])
    torch.set_num_threads(RECIPE["threads"])
    random.seed(RECIPE["seed"])
    started = time.perf_counter()
    shards = CACHE / f"data-{data.data_hash()}"
    val_paths = data.build(shards, split="val", count=RECIPE["val_images"], workers=args.workers)
    train_paths = data.build(shards, split="train", count=args.train, workers=args.workers)
    data_s = round(time.perf_counter() - started)
    val = data.load(val_paths)
    images, texts, _ = data.load(train_paths)

    def checkpoint(model: nn.Module, epoch: int) -> None:
        # Each epoch's model, in case a run must stop early (its manifest says which epoch).
        wall = {"data": data_s, "train": round(time.perf_counter() - started) - data_s}
        saved = write_model(model, CACHE / f"epoch-{epoch}", val=val, images=len(images), epochs=epoch,
                            shrink=args.shrink, documented=documented and epoch == args.epochs, wall=wall)
        print(f"epoch {epoch}: val {saved['validation']['all']} {wall}", flush=True)

    model = train(images, texts, epochs=args.epochs, batch=RECIPE["batch"], lr=RECIPE["lr"],
                  weight_decay=RECIPE["weight_decay"], shrink=args.shrink, seed=RECIPE["seed"], on_epoch=checkpoint)
    total = round(time.perf_counter() - started)
    manifest = write_model(model, args.out, val=val, images=len(images), epochs=args.epochs, shrink=args.shrink,
                           documented=documented,
                           wall={"data": data_s, "train": total - data_s, "total": total})
    print(json.dumps(manifest["validation"]["all"]), manifest["wall_time_s"])


if __name__ == "__main__":
    main()
