"""This worker process's hosts: one `workers.envs.base.Host` per surface it serves.

Each surface registers a builder (`register_host(surface, builder)`): the web's browser pool in
`venus_rpa.runs.process`, Android's device leases in `venus_rpa.devices` (its AppConfig.ready),
the desktop's display pool likewise. A Celery worker serves the surfaces of the queues it consumes
(`venus_rpa.runs.queues.surfaces_served`); outside a worker (benchmarks, management commands,
in-process tests) every registered surface is served. Hosts are built on first use and closed
with the worker (`hosts_close`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from celery.signals import celeryd_after_setup

from venus_rpa.runs.queues import surfaces_served
from workers.envs.base import Host
from workers.loop import runtime_loop

log = logging.getLogger(__name__)
HOST_BUILDERS: dict[str, Callable[[], Host]] = {}
_hosts: dict[str, Host] = {}  # surface -> this process's host, built on first use
_consumed: set[str] | None = None  # the queues this worker consumes (None outside a worker)


def register_host(surface: str, builder: Callable[[], Host]) -> None:
    """Make `surface` servable by this process: `builder()` makes its host when first needed."""
    HOST_BUILDERS[surface] = builder


@celeryd_after_setup.connect
def _note_queues(sender: object = None, instance=None, **_: object) -> None:
    """Remember which queues this worker consumes: they decide which surfaces it serves."""
    global _consumed
    if instance is not None:
        _consumed = set(instance.app.amqp.queues.consume_from)


def served_surfaces() -> set[str]:
    """The surfaces this process runs automations of (docs/surfaces.md)."""
    registered = set(HOST_BUILDERS)
    return registered if _consumed is None else surfaces_served(_consumed) & registered


def hosts() -> dict[str, Host]:
    """This process's hosts, one per served surface (each built once, on first use)."""
    served = served_surfaces()
    for surface in served:
        if surface not in _hosts:
            _hosts[surface] = HOST_BUILDERS[surface]()
    return {surface: _hosts[surface] for surface in served}


def host_for(surface: str) -> Host | None:
    """The host already built for `surface`, if any (without building one)."""
    return _hosts.get(surface)


def hosts_close() -> None:
    """Close every host built in this process (worker shutdown, interpreter exit); idempotent."""
    built = list(_hosts.values())
    _hosts.clear()
    for host in built:
        try:
            runtime_loop.run(asyncio.wait_for(host.close(), 30))
        except Exception:  # shutting down: what a host started dies with this process
            log.warning("closing the %s host failed", host.surface, exc_info=True)
