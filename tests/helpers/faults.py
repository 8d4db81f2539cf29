"""Faults for the load and fault tests and `benchmarks/throughput.py`: a batch of demo runs, faults
injected into real processes (a Celery worker, Redis, PostgreSQL, Chromium), and the count of
runs lost (not terminal in the end) and actions done twice (an expense filed twice on the
practice site)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


@dataclass
class Batch:
    run_ids: list[int]
    titles: dict[int, str]
    stats: dict = field(default_factory=dict)


def submit_batch(client, size: int, *, tag: str) -> Batch:
    """Submit `size` demo runs through the API (`client`: an authenticated DRF test client or an
    httpx client on the web server), each with its own expense title."""
    ids, titles = [], {}
    for i in range(size):
        title = f"{tag}-{i:03d}"
        response = client.post("/api/automations/demo-expense/runs/", {"params": {"title": title}}, format="json") \
            if hasattr(client, "force_authenticate") else client.post("/api/automations/demo-expense/runs/",
                                                                      json={"params": {"title": title}})
        assert response.status_code == 202, response.content
        run_id = response.json()["id"]
        ids.append(run_id)
        titles[run_id] = title
    return Batch(ids, titles)


def wait_until(predicate, *, timeout: float, every: float = 0.2, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise AssertionError(f"{what} not reached within {timeout}s")


def running_count(batch: Batch) -> int:
    from venus_rpa.runs.models import Run

    return Run.objects.filter(pk__in=batch.run_ids, status="running", steps__index__gte=3).distinct().count()


def settle(batch: Batch, *, timeout: float, sweep_every: float = 1.0) -> None:
    """Run the sweep (as beat would, often) until every run of the batch is terminal or time is up."""
    from django.db import connection

    from venus_rpa.runs.models import Run
    from venus_rpa.runs.recovery import runs_sweep

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            runs_sweep()
            if not Run.objects.filter(pk__in=batch.run_ids).exclude(status__in=TERMINAL).exists():
                return
        except Exception:  # the database or Redis is still coming back
            connection.close()
        time.sleep(sweep_every)


def tally(batch: Batch, practice_url: str) -> dict:
    """{"submitted", "terminal", "lost", "duplicated", "succeeded", "statuses", "reasons"}:
    lost = not terminal; duplicated = expenses filed more than once for one run, plus succeeded
    runs whose expense is missing is reported as "missing"."""
    from venus_rpa.runs.models import Run

    runs = {r.pk: r for r in Run.objects.filter(pk__in=batch.run_ids)}
    filed = Counter(e["title"] for e in httpx.get(practice_url + "/api/expenses", timeout=10).json())
    statuses = Counter(r.status for r in runs.values())
    reasons = Counter(r.status_reason.split(":")[0][:60] for r in runs.values() if r.status != "succeeded")
    return {
        "submitted": len(batch.run_ids),
        "terminal": sum(1 for r in runs.values() if r.status in TERMINAL),
        "lost": sum(1 for r in runs.values() if r.status not in TERMINAL),
        "duplicated": sum(max(filed[t] - 1, 0) for t in batch.titles.values()),
        "missing": sum(1 for pk, r in runs.items() if r.status == "succeeded" and filed[batch.titles[pk]] != 1),
        "retried": sum(1 for r in runs.values() if r.attempt > 1),
        "statuses": dict(statuses),
        "reasons": dict(reasons),
    }


# -- faults ---------------------------------------------------------------------------------
def kill_worker(proc: subprocess.Popen) -> None:
    """SIGKILL a worker started by `tests.helpers.worker.celery_worker` and its Chromium."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def descendants(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                children.append(int(entry.name))
    return [d for c in children for d in [c, *descendants(c)]]


def kill_chromium(worker: subprocess.Popen) -> int:
    """SIGKILL every Chromium process under the worker; returns how many."""
    killed = 0
    for pid in descendants(worker.pid):
        try:
            if "chrom" in Path(f"/proc/{pid}/comm").read_text():
                os.kill(pid, signal.SIGKILL)
                killed += 1
        except (OSError, ProcessLookupError):
            pass
    return killed


def restart_redis(url: str, *, down_s: float = 2.0) -> None:
    """SHUTDOWN NOSAVE the Redis at `url`, then start a fresh one on the same port (its data gone)."""
    import redis

    port = urlsplit(url).port
    client = redis.Redis(port=port)
    try:
        client.shutdown(nosave=True)
    except redis.ConnectionError:
        pass
    time.sleep(down_s)
    subprocess.run(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--daemonize", "yes", "--logfile", f"/tmp/venus-redis-{port}.log"], check=True,
                   stdout=subprocess.DEVNULL)
    wait_until(lambda: _pings(client), timeout=10, what="redis back")
    _forget_broker_connections()


def _forget_broker_connections() -> None:
    """This process's pooled broker connections died with Redis: open new ones from here on."""
    from kombu import pools

    from venus_rpa.celery import app

    pools.reset()
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None


def _pings(client) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


def restart_postgres() -> None:
    """Restart the PostgreSQL server Django is connected to (fast shutdown: every connection is
    cut; `pg_ctl restart` starts it again with its original options), as the postgres user."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        data_dir = cursor.fetchone()[0]
    connection.close()
    pg_ctl = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
    restart = f"{pg_ctl} -D {data_dir} -m fast -w -l {data_dir}/../pg-restarted.log restart"
    command = ["su", "postgres", "-s", "/bin/bash", "-c", restart] if os.geteuid() == 0 else ["bash", "-c", restart]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
