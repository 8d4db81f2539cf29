"""Agent-loop benchmark: the platform's own cost per UI-Venus step, and throughput of concurrent
agent runs on one worker host against bare Playwright doing the same loops. Prints JSON.

Part 1 (overhead): agent runs on the production runner (`build_runner()`: the CAPTCHA gate before
every turn and the safety gate on every action, as workers run them), the DjangoRecorder and Redis
events, the test-double model answering instantly; per turn, overhead = turn wall time − model
call time. Every measured turn must carry the safety gate's verdict.
Part 2 (throughput): 8 runs started through the API service, executed by a real Celery worker
process (threads pool, one Chromium), the double answering after 300 ms; against 8 bare
Playwright loops (screenshot, the same 300 ms wait, the same click) in this process.

    .venv/bin/python benchmarks/agent_loop.py [--turns 20] [--runs 8] [--latency 0.3]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

from _stack import ROOT, practice_site, setup_django

from tests.helpers.fake_model import FakeModel, Reply, venus
from tests.helpers.layout import practice_layout


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def alternating_clicks(points: list[tuple[int, int]], turns: int, delay_s: float):
    """A model that clicks between fields `turns` times, then finishes (per conversation)."""

    def reply(body: dict) -> Reply:
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn >= turns:
            return Reply(content="Done.</think>\n<action>Finished(content='done')</action>", delay_s=delay_s)
        x, y = points[turn % len(points)]
        return Reply(content=f"Focus the next field.</think>\n<action>Click(point=({x}, {y}))</action>", delay_s=delay_s)

    return reply


def agent_definition(base: str, turns: int) -> dict:
    from venus_rpa.core.demo import demo_expense_definition

    definition = demo_expense_definition(base)
    definition.update(steps=[{"kind": "agent", "goal": "Click between the fields", "max_actions": turns + 5,
                              "repeat_limit": 50}], success_criteria={}, output_schema={})
    return definition


def overhead(base: str, model: FakeModel, turns: int) -> dict:
    from asgiref.sync import sync_to_async

    from venus_rpa.automations.models import Automation
    from venus_rpa.runs.execution import DjangoRecorder, build_runner
    from venus_rpa.runs.process import browser_host
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import secrets_for, spec_for
    automation = Automation.objects.select_related("workspace", "current_version").get(slug="bench-agent")
    results = []
    gated = [0]

    async def go():
        for _ in range(3):  # the first run warms up and is dropped
            run = await sync_to_async(Run.objects.create)(
                workspace=automation.workspace, automation=automation, version=automation.current_version,
                params={"title": "x", "amount": "1", "date": "2026-11-30", "category": "Other", "notes": ""},
                status="running")
            spec, secrets = await sync_to_async(spec_for)(run=run), await sync_to_async(secrets_for)(run=run)
            recorder = DjangoRecorder(run.pk)
            emitted: list[tuple[float, float]] = []
            inner = recorder.record_step

            async def timed(record, inner=inner, emitted=emitted):
                if record.kind == "agent":
                    emitted.append((record.started_at, record.model_ms))
                    gated[0] += 1 if record.grounding.get("risk") else 0
                await inner(record)

            recorder.record_step = timed
            runner = build_runner()  # the CAPTCHA and safety gates on, as workers run it
            assert runner.captcha is not None and runner.safety is not None
            result = await runner.run(spec, params=run.params, secrets=secrets, recorder=recorder)
            await recorder.close()
            assert result.status == "succeeded", result.reason
            results.append([(b[0] - a[0]) * 1000 - b[1] for a, b in itertools.pairwise(emitted)])
        await browser_host().close()

    asyncio.run(go())
    per_turn = [x for run in results[1:] for x in run]
    return {"overhead_ms_p50": round(statistics.median(per_turn), 1),
            "overhead_ms_p95": round(percentile(per_turn, 0.95), 1), "turns_measured": len(per_turn),
            "runner": "build_runner (captcha + safety gates)", "turns_with_safety_verdict": gated[0]}


def throughput(base: str, model: FakeModel, runs: int, latency: float) -> dict:
    from venus_rpa.automations.models import Automation
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import run_start

    env = {**os.environ, "VENUS_MODEL_URL": model.url, "VENUS_MODEL": model.model, "LOG_LEVEL": "WARNING"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", "agent", "--pool", "threads",
         "--concurrency", str(runs), "-n", f"bench-{os.getpid()}@localhost", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from venus_rpa.celery import app

        while not app.control.ping(timeout=0.5):
            time.sleep(0.2)
        automation = Automation.objects.get(slug="bench-agent")
        params = {"title": "x", "amount": "1", "category": "Other"}
        # Warm-up: one run launches the worker's Chromium.
        warm = run_start(automation=automation, params=params)
        while not Run.objects.get(pk=warm.pk).is_terminal:
            time.sleep(0.1)
        started = time.perf_counter()
        ids = [run_start(automation=automation, params=params).pk for _ in range(runs)]
        while Run.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
            time.sleep(0.05)
        wall = time.perf_counter() - started
        statuses = list(Run.objects.filter(pk__in=ids).values_list("status", flat=True))
        steps = sum(Run.objects.get(pk=i).steps.filter(kind="agent").count() for i in ids)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    return {"concurrent_runs": runs, "runs_succeeded": statuses.count("succeeded"), "agent_steps": steps,
            "wall_s": round(wall, 2), "steps_per_s": round(steps / wall, 2)}


async def bare_loops(base: str, points, runs: int, turns: int, latency: float) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path="/usr/bin/chromium",
                                          args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])

        async def loop() -> int:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            page = await context.new_page()
            await page.goto(base + "/login")
            steps = 0
            for turn in range(turns + 1):
                await page.screenshot(type="jpeg", quality=80)
                await asyncio.sleep(latency)  # the model's thinking time
                if turn < turns:
                    x, y = points[turn % len(points)]
                    await page.mouse.click(round(x / 1000 * 1280), round(y / 1000 * 800))
                steps += 1
            await context.close()
            return steps

        await loop()  # warm-up
        started = time.perf_counter()
        steps = sum(await asyncio.gather(*(loop() for _ in range(runs))))
        wall = time.perf_counter() - started
        await browser.close()
    return {"bare_steps": steps, "bare_wall_s": round(wall, 2), "bare_steps_per_s": round(steps / wall, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--repeats", type=int, default=3,
                        help="alternate platform and bare rounds; report medians (this host is noisy)")
    parser.add_argument("--overhead-only", action="store_true", help="part 1 only (per-turn overhead)")
    args = parser.parse_args()
    with FakeModel() as model:
        # The practice site and the model double live on loopback: the egress guard must let runs reach them.
        os.environ.update(VENUS_MODEL_URL=model.url, VENUS_MODEL=model.model, VENUS_EGRESS_ALLOW_PRIVATE="127.0.0.1")
        setup_django()
        from django.core.management import call_command

        from venus_rpa.automations.models import Automation
        from venus_rpa.automations.services import automation_create

        with practice_site(quiet=True) as base:
            call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
            layout = practice_layout(base)
            points = [layout["Username"], layout["Password"]]
            automation_create(workspace=Automation.objects.get(slug="demo-expense").workspace, user=None,
                              slug="bench-agent", name="bench", definition=agent_definition(base, args.turns))
            model.default = alternating_clicks(points, args.turns, 0.0)
            part1 = overhead(base, model, args.turns)
            if args.overhead_only:
                print(json.dumps({"benchmark": "agent_loop", **part1}, indent=2))
                return
            model.default = alternating_clicks(points, 10, args.latency)
            rounds, bares = [], []
            for _ in range(args.repeats):
                rounds.append(throughput(base, model, args.runs, args.latency))
                bares.append(asyncio.run(bare_loops(base, points, args.runs, 10, args.latency)))
    part2 = sorted(rounds, key=lambda r: r["steps_per_s"])[len(rounds) // 2]
    bare = sorted(bares, key=lambda r: r["bare_steps_per_s"])[len(bares) // 2]
    part2["steps_per_s_rounds"] = [r["steps_per_s"] for r in rounds]
    bare["bare_steps_per_s_rounds"] = [r["bare_steps_per_s"] for r in bares]
    ratio = part2["steps_per_s"] / bare["bare_steps_per_s"]
    print(json.dumps({"benchmark": "agent_loop", **part1, **part2, **bare, "model_latency_s": args.latency,
                      "throughput_ratio": round(ratio, 3), "target_throughput_ratio": 0.8}, indent=2))


if __name__ == "__main__":
    main()
