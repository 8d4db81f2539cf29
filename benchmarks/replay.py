"""Issue 16's figures: verification, replay and export. Prints JSON.

    .venv/bin/python benchmarks/replay.py [--section step_evaluator|step_evaluator_thirdparty|export|all]
        [--export-runs 20]

- `step_evaluator`: precision and recall of the step evaluator (workers/evaluator.py) on the
  labelled set of effective and ineffective actions on the practice site's /lab/effects page
  (tests/helpers/effect_cases.py), judged in real Chromium through `BrowserPool` as runs are.
  The positive class is "ineffective" (what the evaluator flags); the effective class's figures
  are printed beside. Targets: precision and recall >= 0.95.
- `step_evaluator_thirdparty`: the same figures on an independent labelled set written by someone
  who did not write the evaluator, on real third-party applications (Trac, Roundup, django CMS
  from practice/realapps, each served from its own virtualenv on 127.0.0.1, signed in once):
  tests/helpers/effect_cases_thirdparty.py. A measurement of generalisation, with no target of
  its own; `per_app` gives cases, ineffective cases and correct verdicts per application.
- `export_steps_per_s`: records per second of `export_to_folder` (venus_rpa/datasets) over
  finished runs with 10 agent turns and a screenshot each, in a throwaway database.
- `model_calls_per_run`, `replay_speedup`, `drift_recovery`: the replay cache (issue 16 item 2)
  is not built yet; they print null.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from _stack import practice_site, setup_django


def step_evaluator() -> dict:
    from tests.helpers.effect_cases import CASES, judge_case, scores
    from tests.helpers.runtime import local_secrets
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool

    async def go(base: str):
        host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
        env = await host.new_environment(allowed_domains=["127.0.0.1"], secrets=local_secrets())
        reads: list[float] = []
        read = env.page_state

        async def timed(action):  # the evaluator's cost: each read of the page around an action
            t = time.perf_counter()
            try:
                return await read(action)
            finally:
                reads.append((time.perf_counter() - t) * 1000)

        env.page_state = timed
        try:
            labelled = [(case, await judge_case(env, base, case)) for case in CASES]
            return labelled, statistics.median(reads)
        finally:
            await env.close()
            await host.close()

    with practice_site(quiet=True) as base:
        labelled, read_ms = asyncio.run(go(base))
    figures = scores(labelled)
    figures["wrong"] = [c.name for c, e in labelled if e is None or e.effective != c.effective]
    figures["page_read_ms_p50"] = round(read_ms, 1)  # two per judged action (+3 for a click that did nothing)
    return figures


def step_evaluator_thirdparty() -> dict:
    from tests.helpers.effect_cases import scores
    from tests.helpers.effect_cases_thirdparty import APPS, judge_all, per_app, servers
    from tests.helpers.runtime import local_secrets
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool

    async def go(app: str, server):
        host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
        try:
            return await judge_all(host, app, server, secrets=local_secrets())
        finally:
            await host.close()

    labelled = []
    for app in APPS:
        with servers()[app]() as server:
            labelled += asyncio.run(go(app, server))
    figures = {"set": "third-party (Trac, Roundup, django CMS; independent labels)", **scores(labelled)}
    figures["wrong"] = [f"{c.app}: {c.name}" for c, e in labelled if e is None or e.effective != c.effective]
    figures["no_verdict"] = sum(1 for _, e in labelled if e is None)
    figures["per_app"] = per_app(labelled)
    return figures


def export_steps_per_s(runs: int, turns: int = 10) -> dict:
    from django.core.files.base import ContentFile
    from django.utils import timezone
    from PIL import Image

    from tests.factories import UserFactory, WorkspaceFactory
    from venus_rpa.automations.services import automation_create
    from venus_rpa.datasets.services import export_to_folder
    from venus_rpa.datasets.spec import ExportFilter
    from venus_rpa.runs.models import Run, Step

    buffer = io.BytesIO()
    Image.new("RGB", (1280, 800), (230, 230, 230)).save(buffer, "JPEG", quality=80)
    shot = buffer.getvalue()
    workspace = WorkspaceFactory(name="Bench export")
    automation = automation_create(workspace=workspace, user=UserFactory(), slug="bench-agent", name="Bench agent",
                                   definition={"start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"],
                                               "goal": "x", "steps": [{"kind": "agent", "name": "Do", "goal": "Do it"}]})
    for _ in range(runs):
        run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                                 status="succeeded", verdict={"passed": True, "evidence": []})
        for i in range(turns):
            step = Step(run=run, index=i, kind="agent", name="Do", status="succeeded", started_at=timezone.now(),
                        thought=f"Turn {i}", action={"text": "Click(point=(1, 2))", "actions": [{"type": "Click"}]})
            step.screenshot.save(f"bench-{run.pk}-{i}.jpg", ContentFile(shot), save=False)
            step.save()
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        card = export_to_folder(workspace=workspace, spec=ExportFilter(), out=Path(out) / "export")
        seconds = time.perf_counter() - t0
    return {"export_steps_per_s": round(card["records"] / seconds, 1), "records": card["records"],
            "runs": card["runs"], "seconds": round(seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--section", choices=["step_evaluator", "step_evaluator_thirdparty", "export", "all"], default="all")
    parser.add_argument("--export-runs", type=int, default=20)
    args = parser.parse_args()
    out: dict = {"model_calls_per_run": None, "replay_speedup": None, "drift_recovery": None,
                 "note": "the replay cache (issue 16 item 2) is not built: its figures are null"}
    if args.section in ("step_evaluator", "all"):
        out["step_evaluator"] = step_evaluator()
    if args.section in ("step_evaluator_thirdparty", "all"):
        out["step_evaluator_thirdparty"] = step_evaluator_thirdparty()
    if args.section in ("export", "all"):
        setup_django()
        export = export_steps_per_s(args.export_runs)
        out["export_steps_per_s"] = export.pop("export_steps_per_s")
        out["export"] = export
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
