"""Trajectory export: a workspace's finished runs as a training dataset (docs/datasets.md).

Layout (the same in a folder and in a zip):
    data/run-<id>.jsonl            one record per agent turn (venus_rpa.datasets.records)
    images/run-<id>/step-<n>.jpg   the screenshots the records reference
    dataset_card.json, README.md   counts, surfaces, verdict mix, the export filter

Contract:
- Streams: runs are read one at a time in id order (ids streamed with `.iterator()`), each run's
  records and images written before the next is read; only one run is ever in memory.
- `export_to_folder` resumes: `progress.json` (written atomically after each run) holds the
  filter, the last run id the export covers (fixed when it starts) and the last run written; a
  second call on the same folder with the same filter continues after that run (a run cut
  short is written again over its partial files, so no record appears twice); another filter
  on the same folder is refused.
- `export_zip_stream` yields the zip's bytes as it goes (for a StreamingHttpResponse).
- Who may export is the caller's business (`export_allowed`): the workspace's owners.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.utils import timezone

from venus_rpa.accounts.models import Role, Workspace
from venus_rpa.core.errors import Conflict
from venus_rpa.core.streaming import ZipPipe
from venus_rpa.datasets import selectors
from venus_rpa.datasets.records import SCHEMA, RunShard, run_shard, shard_name
from venus_rpa.datasets.spec import ExportFilter
from venus_rpa.runs.models import Run

EXPORT_ROLES = {Role.OWNER}  # a dataset holds every run's screens and decisions: owners only
COPY_CHUNK = 1 << 16


class Stats:
    """Running counts for the dataset card (small: counters, never records)."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        data = data or {}
        self.runs = data.get("runs", 0)
        self.records = data.get("records", 0)
        self.images = data.get("images", 0)
        self.skipped_steps = data.get("skipped_steps", 0)
        self.counters = {k: Counter(data.get(k, {})) for k in ("surfaces", "verdicts", "run_status", "step_effects",
                                                                "human_decisions", "automations")}

    def add(self, run: Run, shard: RunShard) -> None:
        self.runs += 1
        self.records += len(shard.records)
        self.images += len(shard.images)
        self.skipped_steps += shard.skipped_steps
        passed = (run.verdict or {}).get("passed")
        c = self.counters
        c["surfaces"][run.version.surface] += len(shard.records)
        c["verdicts"]["passed" if passed is True else "failed" if passed is False else "none"] += 1
        c["run_status"][run.status] += 1
        c["automations"][run.automation.slug] += 1
        for record in shard.records:
            effect = record["labels"].get("step_effect") or {}
            c["step_effects"][effect.get("verdict", "unchecked")] += 1
        for decision in (shard.records[0]["labels"]["run_human"] if shard.records else []):
            c["human_decisions"][f"{decision['kind']}:{decision['decision']}"] += 1

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "records": self.records, "images": self.images,
                "skipped_steps": self.skipped_steps, **{k: dict(v) for k, v in self.counters.items()}}


def export_allowed(*, role: str | None) -> bool:
    return role in EXPORT_ROLES


def dataset_card(*, workspace: Workspace, spec: ExportFilter, stats: Stats, until_id: int) -> dict[str, Any]:
    return {"schema": SCHEMA, "workspace": workspace.slug, "filter": spec.as_json(), "runs_up_to_id": until_id,
            "created_at": timezone.now().isoformat(), **stats.to_json(),
            "layout": {"records": "data/run-<id>.jsonl", "images": "images/run-<id>/step-<index>.jpg"},
            "masking": "screenshots are masked when taken (vault values, password fields, echoed secrets); "
                       "text is scrubbed again with each run's secret scrubber at export"}


def card_readme(card: dict[str, Any]) -> str:
    def mix(name: str) -> str:
        return ", ".join(f"{k}: {v}" for k, v in sorted(card[name].items())) or "none"

    active = {k: v for k, v in card["filter"].items() if v is not None}
    return "\n".join([
        f"# Venus RPA trajectories: workspace {card['workspace']}", "",
        "One JSONL record per agent turn in the UI-Venus message layout (system prompt, history, screenshot "
        "references, the model's thought and action text), with step and trace verdicts and people's decisions "
        "as labels. See docs/datasets.md for the record schema.", "",
        f"- Filter: {json.dumps(active) if active else 'none (all finished runs)'}; runs up to id {card['runs_up_to_id']}",
        f"- Runs: {card['runs']}; records: {card['records']}; images: {card['images']}; "
        f"steps without a model turn (explicit steps, unparsable answers): {card['skipped_steps']}",
        f"- Surfaces (records): {mix('surfaces')}",
        f"- Trace verdicts (runs): {mix('verdicts')}",
        f"- Run status: {mix('run_status')}",
        f"- Step evaluator verdicts (records): {mix('step_effects')}",
        f"- Human decisions: {mix('human_decisions')}",
        f"- Masking: {card['masking']}", "",
    ])


def _runs(workspace: Workspace, spec: ExportFilter, after_id: int, until_id: int) -> Iterator[Run]:
    for run_id in selectors.export_run_ids(workspace=workspace, spec=spec, after_id=after_id, until_id=until_id):
        run = selectors.export_runs(workspace=workspace, spec=spec).filter(pk=run_id).first()
        if run is not None:
            yield run


def _lines(shard: RunShard) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False, sort_keys=True).encode() + b"\n" for r in shard.records)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def export_to_folder(*, workspace: Workspace, spec: ExportFilter, out: Path,
                     on_run: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write (or resume) the export into `out`; the dataset card. `on_run(run_id)` is called after
    each run is written (progress reporting)."""
    out.mkdir(parents=True, exist_ok=True)
    progress_path = out / "progress.json"
    if progress_path.exists():
        progress = json.loads(progress_path.read_text())
        if progress["filter"] != spec.as_json() or progress["workspace"] != workspace.slug:
            raise Conflict(f"{out} holds an export of another workspace or filter ({progress['filter']}); "
                           "choose an empty folder.")
    elif any(out.iterdir()):
        raise Conflict(f"{out} is not empty and holds no export to resume; choose an empty folder.")
    else:
        progress = {"workspace": workspace.slug, "filter": spec.as_json(), "last_run_id": 0,
                    "until_id": selectors.export_last_run_id(workspace=workspace, spec=spec), "stats": {}}
        _write_atomic(progress_path, json.dumps(progress).encode())
    stats = Stats(progress["stats"])
    for run in _runs(workspace, spec, progress["last_run_id"], progress["until_id"]):
        shard = run_shard(run)
        for name, stored in shard.images:
            target = out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with stored.open("rb") as src, open(target, "wb") as dst:
                while chunk := src.read(COPY_CHUNK):
                    dst.write(chunk)
        if shard.records:  # a run of explicit steps only has no model turns to learn from
            (out / "data").mkdir(exist_ok=True)
            _write_atomic(out / shard_name(run.pk), _lines(shard))
        stats.add(run, shard)
        progress.update(last_run_id=run.pk, stats=stats.to_json())
        _write_atomic(progress_path, json.dumps(progress).encode())
        if on_run:
            on_run(run.pk)
    card = dataset_card(workspace=workspace, spec=spec, stats=stats, until_id=progress["until_id"])
    _write_atomic(out / "dataset_card.json", json.dumps(card, indent=2).encode())
    _write_atomic(out / "README.md", card_readme(card).encode())
    return card


def export_zip_stream(*, workspace: Workspace, spec: ExportFilter) -> Iterator[bytes]:
    """The export as a zip, yielded in pieces as runs are read (JPEGs stored, records deflated)."""
    pipe, stats = ZipPipe(), Stats()
    until_id = selectors.export_last_run_id(workspace=workspace, spec=spec)
    with zipfile.ZipFile(pipe, "w", allowZip64=True) as archive:
        for run in _runs(workspace, spec, 0, until_id):
            shard = run_shard(run)
            for name, stored in shard.images:
                with stored.open("rb") as src, archive.open(name, "w", force_zip64=True) as dst:
                    while chunk := src.read(COPY_CHUNK):
                        dst.write(chunk)
                        yield pipe.drain()
            if shard.records:
                archive.writestr(zipfile.ZipInfo(shard_name(run.pk), date_time=_now_tuple()), _lines(shard),
                                 compress_type=zipfile.ZIP_DEFLATED)
            stats.add(run, shard)
            yield pipe.drain()
        card = dataset_card(workspace=workspace, spec=spec, stats=stats, until_id=until_id)
        archive.writestr("dataset_card.json", json.dumps(card, indent=2))
        archive.writestr("README.md", card_readme(card))
    yield pipe.drain()


def _now_tuple() -> tuple[int, int, int, int, int, int]:
    now = timezone.localtime()
    return (now.year, now.month, now.day, now.hour, now.minute, now.second)
