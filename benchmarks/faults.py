"""Batches of demo runs under faults, on real PostgreSQL, Redis, Celery workers and Chromium.

Prints JSON: `batch` (`submitted`, `terminal`, `lost`, `duplicated`) for N demo runs submitted at
once through the API, and `faults`: one object per fault (worker_kill, redis_restart,
postgres_restart, chromium_kill) with `lost` and `duplicated`, each injected into a batch of M
runs once two runs are under way. lost = a run not terminal at the end; duplicated = an expense
filed more than once for one run (the practice site records each filing).

    .venv/bin/python benchmarks/faults.py [--batch 200] [--fault-batch 12]

Starts its own PostgreSQL (as the postgres user when run as root) and Redis on free loopback ports.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._stack import start_redis  # noqa: E402
from tests.helpers.servers import free_port, practice_site  # noqa: E402


def start_postgres() -> str:
    pg_bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    run_dir = Path(tempfile.mkdtemp(prefix="venus-faults-pg-"))
    run_dir.chmod(0o755)
    port = free_port()
    root = os.geteuid() == 0
    if root:
        shutil.chown(run_dir, "postgres")

    def as_postgres(cmd: str) -> None:
        subprocess.run(["su", "postgres", "-s", "/bin/bash", "-c", cmd] if root else ["bash", "-c", cmd], check=True,
                       stdout=subprocess.DEVNULL)

    as_postgres(f"{pg_bin}/initdb -D {run_dir}/pg -A trust -U postgres")
    as_postgres(f'{pg_bin}/pg_ctl -D {run_dir}/pg -l {run_dir}/pg.log -w -o "-p {port} -k {run_dir} '
                f'-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start')
    atexit.register(lambda: (as_postgres(f"{pg_bin}/pg_ctl -D {run_dir}/pg -m immediate stop"),
                             shutil.rmtree(run_dir, True)))
    as_postgres(f"{pg_bin}/createdb -h 127.0.0.1 -p {port} -U postgres venus")
    return f"postgres://postgres@127.0.0.1:{port}/venus"


def setup(practice_url: str):
    local = Path(tempfile.mkdtemp(prefix="venus-faults-"))
    atexit.register(shutil.rmtree, local, True)
    os.environ.update(VENUS_LOCAL_DIR=str(local), DATABASE_URL=start_postgres(), REDIS_URL=start_redis(),
                      DJANGO_SETTINGS_MODULE="venus_rpa.settings", LOG_LEVEL="WARNING",
                      VENUS_EGRESS_ALLOW_PRIVATE="127.0.0.1")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", practice_url=practice_url, stdout=open(os.devnull, "w"))
    settings.VENUS_HEARTBEAT_STALE_SECONDS = 3  # as the workers below beat every 0.5 s
    settings.VENUS_QUEUED_STALE_SECONDS = 10
    from rest_framework.test import APIClient

    from venus_rpa.accounts.models import Membership, Workspace
    from venus_rpa.accounts.services import api_token_create

    workspace = Workspace.objects.get(slug="demo")
    owner = Membership.objects.filter(workspace=workspace, role="owner").first().user
    _, raw = api_token_create(workspace=workspace, user=owner, name="faults-bench")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def one(client, practice_url: str, size: int, tag: str, fault: str | None, logs: Path) -> dict:
    from tests.helpers import faults as F
    from tests.helpers.worker import celery_worker

    started = time.monotonic()
    with celery_worker(name=f"{tag}-a", log_path=logs / f"{tag}-a.log") as worker:
        batch = F.submit_batch(client, size, tag=tag)
        if fault:
            F.wait_until(lambda: F.running_count(batch) >= 2, timeout=120, what="two runs under way")
        if fault == "worker_kill":
            F.kill_worker(worker)
        elif fault == "redis_restart":
            F.restart_redis(os.environ["REDIS_URL"])
        elif fault == "postgres_restart":
            F.restart_postgres()
        elif fault == "chromium_kill":
            F.kill_chromium(worker)
        if fault == "worker_kill":
            with celery_worker(name=f"{tag}-b", log_path=logs / f"{tag}-b.log"):
                F.settle(batch, timeout=60 + size * 10)
                result = F.tally(batch, practice_url)
        else:
            F.settle(batch, timeout=60 + size * 10)
            result = F.tally(batch, practice_url)
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--fault-batch", type=int, default=12)
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="venus-faults-logs-"))
    with practice_site(quiet=True) as practice_url:
        client = setup(practice_url)
        batch = one(client, practice_url, args.batch, "batch", None, logs)
        faults = {name: one(client, practice_url, args.fault_batch, name.split("_")[0], name, logs)
                  for name in ("worker_kill", "redis_restart", "postgres_restart", "chromium_kill")}
    keep = ("submitted", "terminal", "lost", "duplicated")
    print(json.dumps({
        "batch": {k: batch[k] for k in keep} | {"succeeded": batch["statuses"].get("succeeded", 0),
                                                "seconds": batch["seconds"]},
        "faults": {name: {k: r[k] for k in ("lost", "duplicated", "submitted", "retried", "statuses", "reasons",
                                            "seconds")} for name, r in faults.items()},
        "logs": str(logs),
    }, indent=2))


if __name__ == "__main__":
    main()
