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
- `model_calls_per_run`, `replay_speedup`, `drift_recovery` (the replay cache, workers/replay.py),
  on the production path: runs started through the runs service and executed by a real Celery
  worker process (`build_runner()`: the CAPTCHA and safety gates, the DjangoRecorder, the version's
  replay cache), Chromium and the practice site's /lab/replay pages, the model double answering
  after `--latency` seconds (1 s: a GPU model). A warm-up run of another automation launches the
  worker's Chromium first. `model_calls_per_run`: on the first run and on each of `--repeats`
  repeat runs of the unchanged page (target 0). `replay_speedup`: the first run's wall time
  (the run's own started -> finished) over the repeat runs' median (target >= 5); beside it the
  same ratio for the agent step alone (`replay.agent_step_speedup`: start URL opened -> last turn),
  without the run's fixed costs (browser context, start URL, verdict) that replay cannot remove.
  `drift_recovery`: the confirmation screen is changed three times under the automation
  (button renamed, button moved, back to the original); runs that succeeded / runs (target 1.0),
  with the model calls each made (only from the changed screen on) and those of a repeat after each.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _stack import ROOT, practice_site, setup_django

EMAIL = "ada@example.com"


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
    from tests.helpers.effect_cases_thirdparty import APPS, measure, servers

    return measure("third-party (Trac, Roundup, django CMS; independent labels)", APPS, servers())


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


class ReplayBench:
    """Runs of one agent automation on /lab/replay through a real Celery worker (see the module
    docstring); `model` is the double the worker talks to."""

    def __init__(self, base: str, model, latency: float) -> None:
        from tests.helpers.layout import replay_layout

        self.base, self.model, self.latency = base, model, latency
        self.points = replay_layout(base, EMAIL)

    def definition(self, goal: str) -> dict:
        return {"start_url": self.base + "/lab/replay", "allowed_domains": ["127.0.0.1"],
                "steps": [{"kind": "agent", "name": "Preferences", "goal": goal, "max_actions": 8}],
                "success_criteria": {"url_contains": "/lab/replay/done", "text_visible": "Preferences saved"}}

    def script(self, *, button: str = "Save preferences", start: int = 0) -> None:
        from tests.helpers.fake_model import venus

        def click(point) -> str:
            return f"Click(point=({point[0]}, {point[1]}))"

        turns = [venus("Focus the email field.", click(self.points["Email"])),
                 venus("Type the address.", f"Type(content='{EMAIL}')"),
                 venus("Continue.", click(self.points["Continue"])),
                 venus("Save.", click(self.points[button])),
                 venus("Saved.", "Finished(content='saved')")]
        self.model.script(*[dataclasses.replace(t, delay_s=self.latency) for t in turns[start:]])

    def run(self, automation) -> dict:
        """One run to its end: status, model calls, the run's own wall time, replayed turns."""
        from venus_rpa.runs.models import Run
        from venus_rpa.runs.services import run_start

        run = run_start(automation=automation, params={})
        deadline = time.monotonic() + 300
        while not Run.objects.get(pk=run.pk).is_terminal and time.monotonic() < deadline:
            time.sleep(0.05)
        run = Run.objects.get(pk=run.pk)
        turns = list(run.steps.filter(kind="agent").order_by("index"))
        wall = (run.finished_at - run.started_at).total_seconds() if run.started_at and run.finished_at else None
        goto = run.steps.filter(kind="goto").first()  # the start URL opened: what every run pays before its turns
        opened = (goto.recorded_at - run.started_at).total_seconds() if goto and goto.recorded_at and run.started_at else None
        agent = (turns[-1].recorded_at - goto.recorded_at).total_seconds() if turns and goto and goto.recorded_at else None
        calls = len(self.model.requests)
        self.model.clear()  # answers a run did not use must not feed the next one
        return {"status": run.status, "model_calls": calls, "wall_s": wall, "opened_s": opened, "agent_s": agent, "replayed": sum(1 for t in turns if t.replayed),
                "reasoned": sum(1 for t in turns if t.replayed is False), "reason": run.status_reason}


def replay_figures(repeats: int, latency: float) -> dict:
    import httpx
    from django.core.management import call_command

    from tests.helpers.fake_model import FakeModel
    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import automation_create

    with practice_site(quiet=True) as base, FakeModel() as model:
        env = {**os.environ, "VENUS_MODEL_URL": model.url, "VENUS_MODEL": model.model, "LOG_LEVEL": "WARNING",
               "VENUS_MODEL_TIMEOUT": "30"}
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", "agent", "--pool", "threads",
             "--concurrency", "1", "-n", f"bench-replay-{os.getpid()}@localhost", "--without-gossip",
             "--without-mingle"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            from venus_rpa.celery import app

            while not app.control.ping(timeout=0.5):
                time.sleep(0.2)
            call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
            workspace = Automation.objects.get(slug="demo-expense").workspace
            bench = ReplayBench(base, model, latency)
            warm = automation_create(workspace=workspace, user=None, slug="bench-replay-warm", name="warm-up",
                                     definition=bench.definition("Warm up"), replay_cache=False)
            bench.script()
            assert bench.run(warm)["status"] == "succeeded"
            automation = automation_create(workspace=workspace, user=None, slug="bench-replay", name="replay",
                                           definition=bench.definition(f"Send the weekly updates to {EMAIL}"))
            bench.script()
            first = bench.run(automation)
            again = [bench.run(automation) for _ in range(repeats)]
            drifts = []
            for layout, button in (("renamed", "Keep these settings"), ("moved", "Save moved"),
                                   ("original", "Save preferences")):
                httpx.post(base + "/api/lab/replay", json={"layout": layout}).raise_for_status()
                bench.script(button=button, start=3)  # the model answers from the changed screen on
                changed = bench.run(automation)
                changed["repeat"] = bench.run(automation)
                drifts.append({"layout": layout, **changed})
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    repeat_wall = statistics.median(r["wall_s"] for r in again)
    return {
        "model_calls_per_run": {"first_run": first["model_calls"], "repeat_runs": [r["model_calls"] for r in again]},
        "replay_speedup": round(first["wall_s"] / repeat_wall, 2),
        "drift_recovery": round(sum(d["status"] == "succeeded" for d in drifts) / len(drifts), 3),
        "replay": {
            "model_latency_s": latency, "first_run_wall_s": round(first["wall_s"], 2),
            "repeat_run_wall_s_median": round(repeat_wall, 2),
            # The agent step alone (start URL opened -> last turn recorded): what replay replaces.
            "agent_step_s": {"first_run": round(first["agent_s"], 2),
                             "repeat_median": round(statistics.median(r["agent_s"] for r in again), 2)},
            "agent_step_speedup": round(first["agent_s"] / statistics.median(r["agent_s"] for r in again), 2),
            "start_url_opened_s_median": round(statistics.median(r["opened_s"] for r in [first, *again]), 2),
            "repeat_runs_succeeded": sum(
                r["status"] == "succeeded" for r in again), "repeat_runs": len(again),
            "repeat_turns_replayed": [r["replayed"] for r in again],
            "drift_runs": [{"layout": d["layout"], "status": d["status"], "model_calls": d["model_calls"],
                            "replayed": d["replayed"], "reasoned": d["reasoned"],
                            "repeat_model_calls": d["repeat"]["model_calls"], "repeat_status": d["repeat"]["status"]}
                           for d in drifts],
            "path": "runs service -> Celery worker (build_runner: CAPTCHA + safety gates, DjangoRecorder, replay cache)"},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--section", choices=["step_evaluator", "step_evaluator_thirdparty", "export", "replay", "all"],
                        default="all")
    parser.add_argument("--export-runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=10, help="repeat runs of the unchanged page")
    parser.add_argument("--latency", type=float, default=1.0, help="the model double's answer time (s)")
    args = parser.parse_args()
    out: dict = {}
    if args.section in ("step_evaluator", "all"):
        out["step_evaluator"] = step_evaluator()
    if args.section in ("step_evaluator_thirdparty", "all"):
        out["step_evaluator_thirdparty"] = step_evaluator_thirdparty()
    if args.section in ("export", "replay", "all"):
        os.environ.setdefault("VENUS_EGRESS_ALLOW_PRIVATE", "127.0.0.1")
        setup_django()
    if args.section in ("replay", "all"):
        out.update(replay_figures(args.repeats, args.latency))
    if args.section in ("export", "all"):
        export = export_steps_per_s(args.export_runs)
        out["export_steps_per_s"] = export.pop("export_steps_per_s")
        out["export"] = export
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
