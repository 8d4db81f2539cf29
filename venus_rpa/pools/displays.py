"""The display pool seen from a worker: X displays registered as pool resources (kind `display`,
key `:99`, tag `host` = the machine whose X server it is) and one run's lease on one of them.

`display_register` records a display this machine serves (`make up`, the desktop worker
service, tests). `RunDisplayLeases` is the `workers.envs.desktop_host.DisplayLeases` port for one
run: acquire / heartbeat / release go through `venus_rpa.pools.services` on a thread of its own
(the runtime loop never blocks on the database), so two runs never hold one display and a dead
holder's display is reclaimed by the lease sweep.

Parked runs (docs/surfaces.md, "Waiting for a person"): a desktop run waiting for a person keeps
its display and its session (the applications stay open) but not its worker: the lease is
`park`ed (held for the run, no heartbeat) and the continuation goes to this machine's own queue
(`display_queue(host)`, which every desktop worker of the machine also consumes:
`display_queue_consume`), where a worker `adopt`s the lease and the session. A parked run that
ends without resuming (cancelled, its question unanswered) has its lease released and its session
discarded on that machine (`display_session_discard`, under the resource's row lock, so a run
that leased the display since is never touched). `desktop_host()` builds this process's
desktop host (registered for the `desktop` surface in `PoolsConfig.ready`); the files a run
leaves in its Documents folder become the run's artifacts (`venus_rpa.runs.artifacts`).
"""

from __future__ import annotations

import asyncio
import os
import socket
from concurrent.futures import ThreadPoolExecutor

from pathlib import Path

from celery.signals import celeryd_after_setup
from django.conf import settings
from django.db import close_old_connections, connection, transaction

from venus_rpa.pools import services
from venus_rpa.pools.models import Lease, PoolResource, ReleaseReason, ResourceKind


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

    async def adopt(self, lease_id: int) -> str | None:
        """Take over the lease kept for this (parked, now resuming) run; its display, or None."""
        def take():
            lease = services.lease_adopt(lease_id=lease_id, run_id=self.run_id, holder=self.holder, ttl_s=self.ttl_s)
            return lease.resource.key if lease is not None else None

        return await self._db(take)

    async def park(self, lease_id: int) -> bool:
        """Keep the lease for the run while it is parked (no worker heartbeats it)."""
        try:
            return await self._db(lambda: services.lease_park(lease_id=lease_id, run_id=self.run_id,
                                                              ttl_s=settings.VENUS_PARKED_LEASE_SECONDS))
        finally:
            await self._let_go()

    async def release(self, lease_id: int) -> None:
        try:
            await self._db(lambda: services.lease_release(lease_id=lease_id))
        finally:
            await self._let_go()

    async def _let_go(self) -> None:
        try:
            await self._db(lambda: connection.close())  # this thread's connection, looked up there
        finally:
            self._thread.shutdown(wait=False)


def display_queue(host: str) -> str:
    """The queue of one machine's desktop workers: continuations of runs whose display is there."""
    return f"{settings.VENUS_DESKTOP_QUEUE}.{host}"


def parked_display_queue(run_id: int) -> str | None:
    """Where the continuation of `run_id` must go: the queue of the machine of the display kept for
    it, or None when it keeps none (`runs.queues.register_resume_queue`)."""
    host = (Lease.objects.filter(run_id=run_id, released_at__isnull=True, resource__kind=ResourceKind.DISPLAY)
            .values_list("resource__tags__host", flat=True).first())
    return display_queue(host) if host else None


@celeryd_after_setup.connect
def display_queue_consume(sender: object = None, instance=None, **_: object) -> str | None:
    """A worker consuming the desktop queue also consumes its machine's own queue (Celery's
    `select_add`); returns that queue, or None for a worker that serves no desktops."""
    if instance is None or settings.VENUS_DESKTOP_QUEUE not in set(instance.app.amqp.queues.consume_from):
        return None
    queue = display_queue(this_host())
    instance.app.amqp.queues.select_add(queue)
    return queue


def display_session_discard(*, lease_id: int) -> bool:
    """On the display's machine: kill the session a parked run kept on it and remove its files,
    unless another run leased the display since (its own start cleans up). Runs with the display's
    row locked, so no run can lease it meanwhile. True when a session was discarded."""
    from workers.envs.xdisplay import reap_display

    lease = Lease.objects.select_related("resource").filter(pk=lease_id).first()
    if lease is None:
        return False
    with transaction.atomic():
        resource = PoolResource.objects.select_for_update().get(pk=lease.resource_id)
        if Lease.objects.filter(resource=resource, released_at__isnull=True).exclude(pk=lease_id).exists():
            return False
        reap_display(resource.key)
        services.lease_release(lease_id=lease_id, reason=ReleaseReason.RUN_ENDED)
    return True


def on_run_finished(sender=None, *, run_id: int, **_) -> None:
    """`runs.signals.run_finished`: a parked run that ended without resuming gives back what was
    kept for it; a display's session is discarded on its machine (after commit)."""
    for lease in services.leases_release_parked(run_id=run_id):
        if lease.resource.kind == ResourceKind.DISPLAY and lease.resource.tags.get("host"):
            queue = display_queue(lease.resource.tags["host"])
            transaction.on_commit(lambda lease_id=lease.pk, queue=queue: _send_discard(lease_id, queue), robust=True)


def _send_discard(lease_id: int, queue: str) -> None:
    from venus_rpa import celery_app

    celery_app.send_task("venus_rpa.pools.tasks.display_session_discard_task", args=[lease_id], queue=queue)


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
