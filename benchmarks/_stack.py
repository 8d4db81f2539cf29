"""Shared set-up for benchmarks: a throwaway database, Redis and practice site, then Django.

Benchmarks run in one process against real components; nothing here is a test double.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.servers import free_port, practice_site, wait_http  # noqa: E402


def start_redis() -> str:
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    atexit.register(proc.terminate)
    import time

    import redis

    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    return f"redis://127.0.0.1:{port}/0"


def start_postgres() -> str:
    """A throwaway PostgreSQL on a free loopback port (as the postgres user when run as root);
    returns its DATABASE_URL. Stopped at exit."""
    import glob
    import time

    from tests.helpers.servers import free_port

    pg_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))[-1]
    port, data = free_port(), Path(tempfile.mkdtemp(prefix="venus-bench-pg-"))
    as_pg = ["su", "postgres", "-s", "/bin/sh", "-c"] if os.geteuid() == 0 else ["sh", "-c"]
    if os.geteuid() == 0:
        shutil.chown(data, "postgres")
    subprocess.run([*as_pg, f"{pg_bin}/initdb -D {data}/db -A trust -U postgres >/dev/null"], check=True)
    subprocess.run([*as_pg, f"{pg_bin}/pg_ctl -D {data}/db -l {data}/pg.log -w -o '-p {port} -k {data} "
                    f"-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200' start >/dev/null"], check=True)

    def stop() -> None:
        subprocess.run([*as_pg, f"{pg_bin}/pg_ctl -D {data}/db -m immediate stop >/dev/null 2>&1"], check=False)
        shutil.rmtree(data, True)

    atexit.register(stop)
    time.sleep(0.2)
    return f"postgres://postgres@127.0.0.1:{port}/postgres"


def setup_django() -> None:
    """Temporary SQLite database (unless DATABASE_URL is set) and Redis, migrated and seeded."""
    local = Path(tempfile.mkdtemp(prefix="venus-bench-"))
    atexit.register(shutil.rmtree, local, True)
    os.environ["VENUS_LOCAL_DIR"] = str(local)
    os.environ.setdefault("REDIS_URL", start_redis())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "venus_rpa.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # Benchmarks serve their pages and the practice site on 127.0.0.1: runs may reach it (as in tests).
    os.environ.setdefault("VENUS_EGRESS_ALLOW_PRIVATE", "127.0.0.1")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


__all__ = ["ROOT", "practice_site", "setup_django", "start_postgres", "wait_http"]
