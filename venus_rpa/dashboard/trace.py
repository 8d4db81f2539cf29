"""The trace bundle of a run: a zip with run.json (the run and its steps), every screenshot, and
index.html, a viewer of the same steps that opens offline from the unzipped folder (no script, no
network: styles inline, screenshots by relative path, a Content-Security-Policy that refuses the
rest). Streamed as it is built so a long run's screenshots never sit in memory whole.

Everything in it is what the run stored, and runs store their text already scrubbed of the
run's secrets (runs.execution, the last door out); the viewer shows no field run.json lacks."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from django.template.loader import render_to_string

from venus_rpa.core.streaming import ZipPipe
from venus_rpa.runs.execution import step_event
from venus_rpa.runs.models import Run

CHUNK = 64 * 1024


def screenshot_name(index: int, stored_name: str, *, before: bool = False) -> str:
    return f"screenshots/step-{index:04d}{'-before' if before else ''}{PurePosixPath(stored_name).suffix or '.jpg'}"


def run_document(run: Run) -> dict[str, Any]:
    steps = []
    for step in run.steps.order_by("index"):
        event = step_event(step)
        event.update(started_at=step.started_at.isoformat(), output=step.output,
                     screenshot=screenshot_name(step.index, step.screenshot.name) if step.screenshot else None,
                     screenshot_before=(screenshot_name(step.index, step.screenshot_before.name, before=True)
                                        if step.screenshot_before else None))
        steps.append(event)
    return {
        "id": run.pk, "automation": run.automation.slug, "version": run.version.number, "status": run.status,
        "status_reason": run.status_reason, "trigger": run.trigger, "params": run.params, "output": run.output,
        "verdict": run.verdict, "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "definition": run.version.definition(), "steps": steps,
    }


INDEX_BATCH = 200  # steps rendered (and streamed) at a time
INDEX_END = "</ol>\n</main>\n</body>\n</html>\n"


def trace_index(run: Run, shots: dict[int, str], befores: dict[int, str] | None = None) -> Iterator[str]:
    """index.html of the bundle in pieces: the run and a list of its steps, then the steps'
    cards a batch at a time; `shots` / `befores`: step index -> the path in the bundle of the
    screenshot after the step / of the screen a click or key press acted on."""
    befores = befores or {}
    toc = list(run.steps.order_by("index").values("index", "name", "kind", "status"))
    yield render_to_string("dashboard/runs/trace_index.html", {"run": run, "toc": toc})
    for start in range(0, len(toc), INDEX_BATCH):
        batch = run.steps.filter(index__gte=toc[start]["index"]).order_by("index")[:INDEX_BATCH]
        steps = [{"step": step, "shot": shots.get(step.index), "before": befores.get(step.index)} for step in batch]
        yield render_to_string("dashboard/runs/_trace_steps.html", {"steps": steps})
    yield INDEX_END


def trace_zip(run: Run) -> Iterator[bytes]:
    """Yield the bytes of the zip: run.json first, then the screenshots that still exist, then
    index.html (which links only the screenshots written)."""
    pipe = ZipPipe()
    with zipfile.ZipFile(pipe, mode="w", compression=zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("run.json", json.dumps(run_document(run), indent=2, ensure_ascii=False))
        yield pipe.drain()
        shots: dict[int, str] = {}
        befores: dict[int, str] = {}
        for step in run.steps.exclude(screenshot="", screenshot_before="").order_by("index"):
            for stored, before, written in ((step.screenshot_before, True, befores), (step.screenshot, False, shots)):
                if not stored:
                    continue
                try:
                    source = stored.open("rb")
                except FileNotFoundError:
                    continue
                # JPEGs do not shrink: store them as they are.
                info = zipfile.ZipInfo(screenshot_name(step.index, stored.name, before=before),
                                       date_time=step.started_at.timetuple()[:6])
                with source, bundle.open(info, "w") as out:
                    while chunk := source.read(CHUNK):
                        out.write(chunk)
                        yield pipe.drain()
                written[step.index] = info.filename
        index = zipfile.ZipInfo("index.html", date_time=run.created_at.timetuple()[:6])
        index.compress_type = zipfile.ZIP_DEFLATED
        with bundle.open(index, "w") as out:
            for piece in trace_index(run, shots, befores):
                out.write(piece.encode())
                yield pipe.drain()
    yield pipe.drain()
