"""Run a real Celery worker process against the test database and broker."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

from tests.helpers.servers import stop_process

ROOT = Path(__file__).resolve().parents[2]


def worker_database_url() -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


@contextlib.contextmanager
def celery_worker(*, queues: str = "agent,default", name: str = "test", extra_env: dict | None = None,
                  log_path: Path | None = None, concurrency: int = 4) -> Iterator[subprocess.Popen]:
    """Start `celery worker` (threads pool) and wait until it answers a ping."""
    from venus_rpa.celery import app

    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "VENUS_HEARTBEAT_SECONDS": "0.5",
        "VENUS_HEARTBEAT_STALE_SECONDS": "3",
        "PYTHONUNBUFFERED": "1",
        # The test servers live on 127.0.0.1; the worker's egress guard must let runs reach them.
        "VENUS_EGRESS_ALLOW_PRIVATE": ",".join(settings.VENUS_EGRESS_ALLOW_PRIVATE) or "127.0.0.1",
        **(extra_env or {}),
    }
    node = f"{name}-{os.getpid()}@localhost"
    log = open(log_path or os.devnull, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", queues, "--pool", "threads",
         "--concurrency", str(concurrency), "-n", node, "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    proc.log_path = log_path  # for a failing test to quote (log_tail)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"celery worker exited with code {proc.returncode}")
            if app.control.ping(destination=[node], timeout=0.5):
                break
        else:
            raise TimeoutError("celery worker did not start within 60s")
        yield proc
    finally:
        stop_process(proc, timeout=20)
        log.close()


def log_tail(proc: subprocess.Popen, chars: int = 6000) -> str:
    """The end of a worker's log (HTTP request lines left out), for a failing test's message."""
    path = getattr(proc, "log_path", None)
    if path is None or not Path(path).exists():
        return "(no worker log)"
    lines = [line for line in Path(path).read_text(errors="replace").splitlines() if "HTTP Request:" not in line]
    return "\n".join(lines)[-chars:]
