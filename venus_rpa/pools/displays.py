"""The display pool seen from a worker: X displays registered as pool resources (kind `display`,
key `:99`, tag `host` = the machine whose X server it is) and one run's lease on one of them.

`display_register` records a display this machine serves (`make up`, the desktop worker
service, tests). `RunDisplayLeases` is the `workers.envs.desktop_host.DisplayLeases` port for one
run: acquire / heartbeat / release go through `venus_rpa.pools.services` on a thread of its own
(the runtime loop never blocks on the database), so two runs never hold one display and a dead
holder's display is reclaimed by the lease sweep. `desktop_host()` builds this process's
desktop host (registered for the `desktop` surface in `PoolsConfig.ready`); the files a run
leaves in its Documents folder become the run's artifacts (`venus_rpa.runs.artifacts`).
"""

from __future__ import annotations

import asyncio
import os
import socket
from concurrent.futures import ThreadPoolExecutor

from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, connection

from venus_rpa.pools import services
from venus_rpa.pools.models import PoolResource, ResourceKind


def this_host() -> str:
    return settings.VENUS_DESKTOP_HOST or socket.gethostname()


def display_register(*, display: str, host: str | None = None, width: int = 1280, height: int = 800) -> PoolResource:
    """Record (or refresh) an X display of this machine in the display pool."""
    if not display.startswith(":") or not display[1:].split(".")[0].isdigit():
        raise services.LeaseError(f"a display is written ':N' (e.g. ':99'), not {display!r}")
    return services.pool_resource_register(kind=ResourceKind.DISPLAY, key=display,
                                           tags={"host": host or this_host(), "size": f"{width}x{height}"})


class RunDisplayLeases:
    """One run's lease on a display of this host (the runtime's `DisplayLeases` port)."""

    def __init__(self, *, run_id: int | None, holder: str, ttl_s: float, host: str | None = None) -> None:
        self.run_id, self.holder, self.ttl_s = run_id, holder, ttl_s
        self.host = host or this_host()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"display-lease-{run_id}")

    async def _db(self, fn, *args):
        def call():
            close_old_connections()
            return fn(*args)

        return await asyncio.get_running_loop().run_in_executor(self._thread, call)

    async def acquire(self) -> tuple[int, str] | None:
        def take():
            lease = services.lease_acquire(kind=ResourceKind.DISPLAY, holder=self.holder, run_id=self.run_id,
                                           ttl_s=self.ttl_s, tags={"host": self.host})
            return (lease.pk, lease.resource.key) if lease is not None else None

        return await self._db(take)

    async def heartbeat(self, lease_id: int) -> bool:
        return await self._db(lambda: services.lease_heartbeat(lease_id=lease_id, ttl_s=self.ttl_s))

    async def release(self, lease_id: int) -> None:
        try:
            await self._db(lambda: services.lease_release(lease_id=lease_id))
            await self._db(lambda: connection.close())  # this thread's connection, looked up there
        finally:
            self._thread.shutdown(wait=False)


def _store_artifacts(run_id: int | None):
    if run_id is None:
        return None
    thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"artifacts-{run_id}")

    async def store(name: str, content: bytes) -> None:
        from venus_rpa.runs.artifacts import run_artifact_add

        def add():
            close_old_connections()
            try:
                run_artifact_add(run_id=run_id, name=name, content=content)
            finally:
                connection.close()

        await asyncio.get_running_loop().run_in_executor(thread, add)

    return store


def desktop_host():
    """This worker process's desktop host (displays of this machine, leased per run)."""
    from workers.envs.desktop_host import DesktopConfig, DesktopHost

    width, height = (int(v) for v in settings.VENUS_DESKTOP_SIZE.lower().split("x"))
    seed = Path(settings.VENUS_DESKTOP_SEED_DIR) if settings.VENUS_DESKTOP_SEED_DIR else None
    config = DesktopConfig(width=width, height=height, seed_dir=seed,
                           acquire_timeout_s=settings.VENUS_DESKTOP_ACQUIRE_TIMEOUT_SECONDS,
                           lease_ttl_s=settings.VENUS_DESKTOP_LEASE_SECONDS)
    holder = f"{socket.gethostname()}:{os.getpid()}"  # this worker process
    return DesktopHost(config, lambda run_id: RunDisplayLeases(run_id=run_id, holder=holder, ttl_s=config.lease_ttl_s),
                       artifacts_for=_store_artifacts)
