"""Sections of `benchmarks/throughput.py` about load, faults, waits and sign-ins.

Each takes the benchmark's `Bench` (practice site, demo automation, real Celery workers) and
returns figures; `throughput.py` prints them with the pool sections.

- `batch`: N demo runs submitted at once through the REST API, one worker of concurrency 4:
  `submitted`, `terminal`, `lost` (not terminal at the end), `duplicated` (an expense the practice
  site recorded more than once for one run).
- `faults`: the same on smaller batches with one fault each, injected once two runs are under
  way: a worker SIGKILLed (a second worker takes over), Redis restarted with its data gone,
  PostgreSQL restarted, Chromium SIGKILLed. The sweep runs in this process, as beat would.
- `waiting_for_review`: `new_run_start_ms_p50` -- how long new demo runs wait to start while 50
  runs wait for a review on the same worker of concurrency 4 (they park after a 1 s hold).
- `login_reuse`: `login_reuse_speedup` -- a run whose saved session is reused against one that
  signs in, both through `run_execute` as the Celery task calls it.
"""

from __future__ import annotations

import contextlib
import statistics
import time

FAULTS = ("worker_kill", "redis_restart", "postgres_restart", "chromium_kill")
FAST_HEARTBEAT = {"VENUS_HEARTBEAT_SECONDS": "0.5", "VENUS_HEARTBEAT_STALE_SECONDS": "3"}
KEEP = ("submitted", "terminal", "lost", "duplicated")
TERMINAL = ("succeeded", "failed", "cancelled", "timed_out")


def api_client():
    """A DRF client with an owner's API token of the demo workspace: requests go through the
    API's authentication, validation and views."""
    from rest_framework.test import APIClient

    from venus_rpa.accounts.models import Membership, Workspace
    from venus_rpa.accounts.services import api_token_create

    workspace = Workspace.objects.get(slug="demo")
    owner = Membership.objects.filter(workspace=workspace, role="owner").first().user
    _, raw = api_token_create(workspace=workspace, user=owner, name=f"throughput-{time.time_ns()}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@contextlib.contextmanager
def fast_sweep():
    """Let this process's sweep find a lost worker within seconds, as the fast heartbeats allow."""
    from django.conf import settings

    saved = settings.VENUS_HEARTBEAT_STALE_SECONDS, settings.VENUS_QUEUED_STALE_SECONDS
    settings.VENUS_HEARTBEAT_STALE_SECONDS, settings.VENUS_QUEUED_STALE_SECONDS = 3, 10
    try:
        yield
    finally:
        settings.VENUS_HEARTBEAT_STALE_SECONDS, settings.VENUS_QUEUED_STALE_SECONDS = saved


def _one(bench, size: int, tag: str, fault: str | None) -> dict:
    from tests.helpers import faults as F

    started = time.monotonic()
    client = api_client()
    with fast_sweep(), bench.worker(f"{tag}-a", env=FAST_HEARTBEAT) as worker:
        batch = F.submit_batch(client, size, tag=tag)
        if fault:
            F.wait_until(lambda: F.running_count(batch) >= 2, timeout=120, what="two runs under way")
        if fault == "worker_kill":
            F.kill_worker(worker)
        elif fault == "redis_restart":
            F.restart_redis(bench.redis_url)
        elif fault == "postgres_restart":
            F.restart_postgres()
        elif fault == "chromium_kill":
            F.kill_chromium(worker)
        spare = bench.worker(f"{tag}-b", env=FAST_HEARTBEAT) if fault == "worker_kill" else contextlib.nullcontext()
        with spare:
            F.settle(batch, timeout=60 + size * 10)
            result = F.tally(batch, bench.practice_url)
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def batch(bench) -> dict:
    result = _one(bench, bench.args.batch, "batch", None)
    return {"batch": {k: result[k] for k in KEEP} | {
        "succeeded": result["statuses"].get("succeeded", 0), "missing": result["missing"],
        "seconds": result["seconds"], "runs_per_min": round(result["submitted"] / result["seconds"] * 60, 1)}}


def faults(bench) -> dict:
    out = {}
    for name in FAULTS:
        result = _one(bench, bench.args.fault_batch, name.split("_")[0], name)
        out[name] = {k: result[k] for k in (*KEEP, "missing", "retried", "statuses", "reasons", "seconds")}
    return {"faults": out}


def waiting_for_review(bench, *, probes: int = 10) -> dict:
    from venus_rpa.automations.services import automation_create
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run, RunContinuation
    from venus_rpa.runs.services import run_cancel

    from tests.helpers.definitions import delete_account_definition

    demo = bench.automation
    risky = automation_create(workspace=demo.workspace, user=None, slug=f"bench-delete-{time.time_ns()}",
                              name="Delete my account (benchmark)",
                              definition=delete_account_definition(bench.practice_url))
    parked, delays = bench.args.parked, []
    with bench.worker("bench-review", env={"VENUS_REVIEW_HOLD_SECONDS": "1"}):
        waiting = bench.submit(parked, prefix="review", automation=risky, params={})
        deadline = time.monotonic() + 900
        while RunContinuation.objects.filter(run__in=waiting).count() < parked:
            ended = Run.objects.filter(pk__in=waiting, status__in=TERMINAL)
            if ended.exists() or time.monotonic() > deadline:
                reasons = sorted({r.status_reason[:200] for r in ended})
                raise RuntimeError(f"{RunContinuation.objects.filter(run__in=waiting).count()} of {parked} runs "
                                   f"parked; {ended.count()} ended: {reasons}")
            time.sleep(0.5)
        pending = ReviewRequest.objects.filter(run__in=waiting, status="pending").count()
        for i in range(probes):
            run_id = bench.submit(1, prefix=f"beside-review-{i}")[0]
            bench.wait_terminal([run_id], timeout=180)
            run = Run.objects.get(pk=run_id)
            delays.append((run.started_at - run.created_at).total_seconds() * 1000 if run.started_at else float("inf"))
        still = RunContinuation.objects.filter(run__in=waiting).count()
        for run in Run.objects.filter(pk__in=waiting):
            run_cancel(run=run)
    return {
        "new_run_start_ms_p50": round(statistics.median(delays)),
        "waiting_for_review": {"parked": still, "pending_reviews": pending, "probes": probes,
                               "start_ms": [round(d) for d in delays]},
    }


def login_reuse(bench) -> dict:
    from venus_rpa.automations.models import LoginSession
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_signed_in_expense_definition
    from venus_rpa.runs.services import params_validate

    demo = bench.automation
    automation = automation_create(workspace=demo.workspace, user=None, slug="demo-expense-signed-in",
                                   name="Demo expense (persistent login)",
                                   definition=demo_signed_in_expense_definition(bench.practice_url))
    params = params_validate(schema=automation.current_version.param_schema, params={})
    sign_in, reuse = [], []
    for round_ in range(bench.args.login_rounds + 1):  # the first round warms up and is dropped
        LoginSession.objects.filter(workspace=automation.workspace).delete()
        fresh, fresh_records = _timed_run(automation, params)
        reused, reused_records = _timed_run(automation, params)
        if fresh_records != ["saved"] or reused_records != ["reused"]:
            raise RuntimeError(f"sign-in records {fresh_records} then {reused_records}; expected saved, reused")
        if round_:
            sign_in.append(fresh)
            reuse.append(reused)
    sign_in_s, reuse_s = statistics.median(sign_in), statistics.median(reuse)
    return {"login_reuse_speedup": round(sign_in_s / reuse_s, 2),
            "login_reuse": {"rounds": len(sign_in), "sign_in_run_s_p50": round(sign_in_s, 3),
                            "reuse_run_s_p50": round(reuse_s, 3)}}


def _timed_run(automation, params: dict) -> tuple[float, list[str]]:
    """Wall time of one run through `run_execute` (claim, secrets, saved sessions, the runner
    with every gate, the recorder, finish), and its sign-in records ("saved", "reused"...)."""
    from django.utils import timezone

    from venus_rpa.runs.execution import run_execute
    from venus_rpa.runs.models import Run

    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, params=params,
                             admitted_at=timezone.now())  # run here directly, past the dispatcher
    started = time.perf_counter()
    run_execute(run_id=run.pk)
    elapsed = time.perf_counter() - started
    run.refresh_from_db()
    if run.status != "succeeded":
        raise RuntimeError(f"login_reuse run {run.pk} {run.status}: {run.status_reason}")
    return elapsed, [s.action["session"] for s in run.steps.filter(kind="sign_in").order_by("index")]
