"""Throughput, memory and robustness of the worker path under load. Prints JSON.

Everything runs for real on loopback: a throwaway PostgreSQL and Redis, the practice site, and
real `celery worker` processes (threads pool) started as in production; runs are submitted with
`run_start` (the service the API calls) and executed by the production runner with every gate.

Sections (each a function taking the `Bench` and returning figures; add new ones to SECTIONS):
- `browser_pool`: `runs_per_min` (pooled browsers, demo runs, one worker of concurrency 4),
  `runs_per_min_launch_each` (the same with a new Chromium per run: pool of 4 browsers x 1
  context, recycled after every run), `pooled_speedup`.
- `pool_memory`: `pss_mb_per_concurrent_run` — PSS (not RSS) of the worker process and its whole
  Chromium tree with 1, 4 and 8 runs open at once, and the cost of each additional run.
- `login_reuse`, `waiting_for_review`, `batch`, `faults` (in `_load.py`): `login_reuse_speedup`,
  `new_run_start_ms_p50` with 50 runs waiting for review, a batch of 200 demo runs through the
  API and one batch per fault (worker, Redis, PostgreSQL, Chromium killed or restarted) with
  `lost` and `duplicated`.
- `orphans` (last): `orphan_processes_after` — processes any benchmark worker left running, after
  workers that stopped normally, one SIGKILLed with 8 runs in flight and the fault batches.

    .venv/bin/python benchmarks/throughput.py [--runs 50] [--batch 200] [--fault-batch 12]
        [--only browser_pool,pool_memory,login_reuse,waiting_for_review,batch,faults]

About 40 minutes on 2 cores with the defaults.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import _load
from _stack import practice_site, setup_django, start_postgres

DEMO_PARAMS = {"amount": "42.50", "category": "Travel"}
POOLED = {}  # the settings' defaults: 2 browsers x 4 contexts, recycled after 200 runs
LAUNCH_EACH = {"VENUS_BROWSERS_PER_WORKER": "4", "VENUS_CONTEXTS_PER_BROWSER": "1", "VENUS_BROWSER_RECYCLE_RUNS": "1"}
PARKED_STEP = {"kind": "wait_for", "name": "Stay on the page", "text": "This never appears", "timeout_s": 300}


@dataclass
class Bench:
    """What sections share: the practice site, the demo automation, every worker started."""

    args: argparse.Namespace
    practice_url: str
    redis_url: str
    logs: Path
    worker_pids: list[int] = field(default_factory=list)

    @property
    def automation(self):
        from venus_rpa.automations.models import Automation

        return Automation.objects.select_related("workspace", "current_version").get(slug="demo-expense")

    @contextlib.contextmanager
    def worker(self, name: str, *, concurrency: int = 4, env: dict | None = None) -> Iterator:
        """A real Celery worker (agent + default queues) with production heartbeats."""
        from tests.helpers.worker import celery_worker

        env = {"VENUS_HEARTBEAT_SECONDS": "5", "VENUS_HEARTBEAT_STALE_SECONDS": "60", "LOG_LEVEL": "WARNING",
               **(env or {})}
        with celery_worker(name=name, concurrency=concurrency, extra_env=env,
                           log_path=self.logs / f"{name}.log") as proc:
            self.worker_pids.append(proc.pid)
            yield proc

    def submit(self, count: int, *, prefix: str, automation=None, params: dict | None = None) -> list[int]:
        """Start `count` runs with `run_start` (the service the API calls); demo runs by default."""
        from venus_rpa.runs.services import run_start

        automation = automation or self.automation
        return [run_start(automation=automation,
                          params={**DEMO_PARAMS, "title": f"{prefix}-{i}"} if params is None else params).pk
                for i in range(count)]

    @staticmethod
    def wait_terminal(run_ids: list[int], *, timeout: float) -> dict[str, int]:
        return wait_terminal(run_ids, timeout=timeout)


def wait_terminal(run_ids: list[int], *, timeout: float) -> dict[str, int]:
    """Wait until every run ended (or the timeout passed); count runs by status."""
    from venus_rpa.runs.models import Run, RunStatus

    ended = [RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Run.objects.filter(pk__in=run_ids, status__in=ended).count() == len(run_ids):
            break
        time.sleep(0.5)
    counts: dict[str, int] = {}
    for status in Run.objects.filter(pk__in=run_ids).values_list("status", flat=True):
        counts[status] = counts.get(status, 0) + 1
    return counts


def filed_twice(practice_url: str, prefix: str) -> int:
    """Expenses the practice site recorded more than once for one run (by its unique title)."""
    import httpx

    titles = [e["title"] for e in httpx.get(practice_url + "/api/expenses").json() if e["title"].startswith(prefix)]
    return sum(1 for title in set(titles) if titles.count(title) > 1)


# -- browser pool: throughput ------------------------------------------------------------------
def _throughput(bench: Bench, mode: str, env: dict) -> dict:
    from venus_rpa.runs.models import Run

    with bench.worker(f"bench-{mode}", env=env) as proc:
        meter = CpuMeter(proc.pid, mode)  # before the driver and the first Chromium start
        wait_terminal(bench.submit(1, prefix=f"warm-{mode}"), timeout=120)  # imports, first connections
        started, cpu_before = time.time(), meter.read()
        ids = bench.submit(bench.args.runs, prefix=f"bench-{mode}")
        counts = wait_terminal(ids, timeout=60 * 30)
        cpu = meter.read() - cpu_before if cpu_before is not None else None
        last = max(f.timestamp() for f in Run.objects.filter(pk__in=ids).values_list("finished_at", flat=True) if f)
    meter.close()
    minutes = (last - started) / 60
    return {"runs": len(ids), "statuses": counts, "minutes": round(minutes, 2),
            "runs_per_min": round(len(ids) / minutes, 1), "cpu_s_per_run": round(cpu / len(ids), 2) if cpu is not None else None,
            "duplicated": filed_twice(bench.practice_url, f"bench-{mode}-")}


class CpuMeter:
    """CPU seconds used by a worker and every process it ever started, dead ones included: the
    worker goes into its own cpuacct cgroup (v1; children inherit it), so a Chromium launched for
    one run and gone is counted too. Where cgroups cannot be made, `read()` returns None."""

    ROOT = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self, pid: int, name: str) -> None:
        self.group: Path | None = self.ROOT / f"venus-bench-{name}-{pid}"
        try:
            self.group.mkdir()
            (self.group / "cgroup.procs").write_text(str(pid))
        except OSError:
            self.group = None

    def read(self) -> float | None:
        return int((self.group / "cpuacct.usage").read_text()) / 1e9 if self.group else None

    def close(self) -> None:
        if self.group:
            with contextlib.suppress(OSError):
                self.group.rmdir()


def browser_pool(bench: Bench) -> dict:
    each = _throughput(bench, "launch-each", LAUNCH_EACH)
    pooled = _throughput(bench, "pooled", POOLED)
    return {
        "runs_per_min": pooled["runs_per_min"],
        "runs_per_min_launch_each": each["runs_per_min"],
        "pooled_speedup": round(pooled["runs_per_min"] / each["runs_per_min"], 2),
        # What a CPU-bound host gains, measured apart from other load on the machine.
        "pooled_cpu_saving": round(each["cpu_s_per_run"] / pooled["cpu_s_per_run"], 2)
        if pooled["cpu_s_per_run"] else None,
        "throughput_detail": {"pooled": pooled, "launch_each": each, "concurrency": 4},
    }


# -- browser pool: memory ----------------------------------------------------------------------
def worker_pss_mb(pid: int) -> dict[str, float]:
    """PSS in MB of a worker process, its descendants (Playwright driver, every Chromium process)
    and the crash handlers its Chromium detached: in all and by part."""
    import psutil

    from workers.envs import chromium

    worker = psutil.Process(pid)
    tree = {p.pid: p for p in [worker, *worker.children(recursive=True), *chromium.marked_processes(pid)]}
    parts = {"worker": 0.0, "driver": 0.0, "chromium": 0.0}
    for proc in tree.values():
        with contextlib.suppress(psutil.Error):
            part = "worker" if proc.pid == pid else "driver" if proc.name().startswith("node") else "chromium"
            parts[part] += proc.memory_full_info().pss / 2**20
    return {"total": sum(parts.values()), **parts}


def _parked_automation(bench: Bench):
    """The demo automation plus a last step that waits on its page: runs stay open to be measured.
    A copy, so the demo automation the other sections run is left as it is."""
    from venus_rpa.automations.services import automation_create

    demo = bench.automation
    definition = {**demo.current_version.definition(), "steps": [*demo.current_version.steps, PARKED_STEP]}
    return automation_create(workspace=demo.workspace, user=None, slug=f"bench-parked-{time.time_ns()}",
                             name="Demo expense, kept open (benchmark)", definition=definition)


def _pss_with(bench: Bench, automation, concurrency: int, *, kill: bool) -> dict[str, float]:
    import signal

    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import run_cancel

    with bench.worker(f"bench-mem{concurrency}", concurrency=concurrency) as proc:
        ids = bench.submit(concurrency, prefix=f"mem{concurrency}", automation=automation)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # every run open at once, parked on its last page
            parked = [r for r in Run.objects.filter(pk__in=ids) if r.steps.count() >= 16]
            if len(parked) == concurrency:
                break
            time.sleep(0.5)
        else:
            raise RuntimeError(f"{concurrency} runs were not open at once within 300 s")
        time.sleep(2)
        samples = []
        for _ in range(3):
            samples.append(worker_pss_mb(proc.pid))
            time.sleep(1)
        if kill:  # the orphan check: a worker SIGKILLed with every run in flight
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            _end_lost(ids)
        else:
            for run in Run.objects.filter(pk__in=ids):
                run_cancel(run=run)
            wait_terminal(ids, timeout=60)
    return min(samples, key=lambda s: abs(s["total"] - statistics.median(x["total"] for x in samples)))


def _end_lost(run_ids: list[int]) -> None:
    """Runs of the killed worker: asked to stop, then ended by the sweep as beat would (cancelled,
    not retried), so they free their workspace's slots for the next sections."""
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.recovery import runs_sweep
    from venus_rpa.runs.services import run_cancel

    for run in Run.objects.filter(pk__in=run_ids).exclude(status__in=_load.TERMINAL):
        run_cancel(run=run)
    with _load.fast_sweep():
        deadline = time.monotonic() + 60
        while Run.objects.filter(pk__in=run_ids).exclude(status__in=_load.TERMINAL).exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the killed worker's runs were not ended by the sweep within 60 s")
            runs_sweep()
            time.sleep(1)


def pool_memory(bench: Bench) -> dict:
    automation = _parked_automation(bench)
    measured = {n: _pss_with(bench, automation, n, kill=n == 8) for n in (1, 4, 8)}
    totals = {n: m["total"] for n, m in measured.items()}
    return {
        "pss_mb_per_concurrent_run": {str(n): round(total / n, 1) for n, total in totals.items()},
        "pss_mb_total": {str(n): round(total, 1) for n, total in totals.items()},
        "pss_mb_per_additional_run": {str(n): round((totals[n] - totals[1]) / (n - 1), 1) for n in (4, 8)},
        "target_pss_mb_per_additional_run": 120,
        "pss_mb_parts": {str(n): {k: round(v, 1) for k, v in m.items() if k != "total"} for n, m in measured.items()},
    }


# -- orphans (last) ----------------------------------------------------------------------------
def orphans(bench: Bench) -> dict:
    import psutil

    from workers.envs import chromium

    def left() -> list[psutil.Process]:
        pids = set(bench.worker_pids)
        marked = [p for pid in pids for p in chromium.marked_processes(pid)]
        children = [p for p in psutil.process_iter(["ppid"]) if p.info["ppid"] in pids]
        return marked + children

    deadline = time.monotonic() + 15
    while left() and time.monotonic() < deadline:
        time.sleep(0.5)
    return {"orphan_processes_after": len(left()), "workers_checked": len(bench.worker_pids)}


SECTIONS: dict[str, Callable[[Bench], dict]] = {
    "browser_pool": browser_pool,
    "pool_memory": pool_memory,
    "login_reuse": _load.login_reuse,
    "waiting_for_review": _load.waiting_for_review,
    "batch": _load.batch,
    "faults": _load.faults,
    "orphans": orphans,  # keep last: it counts what every earlier section's workers left
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50, help="demo runs per browser-pool mode")
    parser.add_argument("--batch", type=int, default=200, help="demo runs submitted at once through the API")
    parser.add_argument("--fault-batch", type=int, default=12, help="demo runs per fault")
    parser.add_argument("--parked", type=int, default=50, help="runs waiting for review beside the new runs")
    parser.add_argument("--login-rounds", type=int, default=5, help="sign-in / reuse pairs measured")
    parser.add_argument("--only", default="", help="comma-separated section names (orphans always runs)")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", start_postgres())
    os.environ.setdefault("VENUS_EGRESS_ALLOW_PRIVATE", "127.0.0.1")
    setup_django()
    from django.core.management import call_command

    chosen = [name for name in SECTIONS if not args.only or name in args.only.split(",") or name == "orphans"]
    figures: dict = {"benchmark": "throughput", "cores": os.cpu_count()}
    logs = Path(tempfile.mkdtemp(prefix="venus-bench-logs-"))  # kept when a section fails
    with practice_site(quiet=True) as base:
        call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
        bench = Bench(args, base, os.environ["REDIS_URL"], logs)
        for name in chosen:
            started = time.monotonic()
            try:
                figures.update(SECTIONS[name](bench))
            except Exception as exc:  # one section failing does not lose the others' figures
                figures.setdefault("errors", {})[name] = f"{type(exc).__name__}: {exc}"
                figures["worker_logs"] = str(logs)
            figures.setdefault("seconds", {})[name] = round(time.monotonic() - started, 1)
            print(f"{name}: {json.dumps(figures.get('errors', {}).get(name, 'done'))}", file=sys.stderr, flush=True)
    if "errors" not in figures:
        shutil.rmtree(logs, ignore_errors=True)
    figures["targets"] = {"pooled_speedup": 1.5, "pss_mb_per_additional_run": 120, "orphan_processes_after": 0,
                          "new_run_start_ms_p50": 1000, "lost": 0, "duplicated": 0}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
