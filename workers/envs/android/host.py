"""The Android host of a worker (`workers.envs.base.Host`): a device leased per run from the
platform's device registry, reached through the adb server the registry names.

Contract:
- `new_environment(run_id=...)` leases one healthy device (`DeviceLeases.acquire`: available, not
  offline, not leased), checks that its adb server lists it, and heartbeats the lease while the
  run holds it; a device its adb server does not list is reported offline and the next one is
  tried. No device free within `acquire_timeout_s`: `EnvironmentLost` with that reason.
- Two runs never share a device: the lease is the registry's (one unreleased lease per device,
  `venus_rpa.pools`).
- A device that disconnects mid-run ends the run ("device SERIAL disconnected") and is reported
  offline (`DeviceLeases.offline`), so the next run goes to another healthy device; the
  registry's health check brings it back when its adb server lists it again.
- Closing the environment releases the lease. A lost device is not retried (`retry_after_crash`
  is False): the run's work may have been done half-way on it.
- A parked run keeps its device: `suspend` marks the environment kept and returns the device's
  handle (`SuspendedSession.kept`); closing a kept environment `park`s the lease (held for the
  run, no worker heartbeats it) instead of releasing it, so no other run touches the device and
  the app stays as the run left it. `new_environment(kept=handle)` on any Android worker `adopt`s
  the lease and goes on on that device; a lease lost meanwhile or a device gone ends the run with
  that reason. The safety gate still checks the screen before anything acts.

The runtime never imports Django: the worker passes a `DeviceLeases` implementation
(`venus_rpa.devices.leases`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Protocol

from workers.envs.android.device import AdbDevice
from workers.envs.android.env import AndroidEnvironment
from workers.envs.android.executor import AndroidExecutor
from workers.envs.base import SuspendedSession
from workers.errors import EnvironmentLost, StepError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeviceGrant:
    """A leased device: where to reach it and what it has."""

    serial: str
    lease_id: int
    adb_host: str = "127.0.0.1"
    adb_port: int = 5037
    apps: dict[str, str] = field(default_factory=dict)  # display name -> package or package/.Activity


class DeviceLeases(Protocol):
    """The device registry as the runtime sees it (implemented on the platform side)."""

    async def acquire(self, *, run_id: int | None, exclude: tuple[str, ...] = ()) -> DeviceGrant | None:
        """Lease a healthy free device (not one of `exclude`), or None when none is free."""
        ...

    async def heartbeat(self, grant: DeviceGrant) -> bool:
        """Extend the lease; False when it was lost (reclaimed)."""
        ...

    async def release(self, grant: DeviceGrant) -> None: ...

    async def park(self, grant: DeviceGrant, *, run_id: int | None) -> bool:
        """Keep the lease for the (parked) run with no heartbeats; False when it was lost."""
        ...

    async def adopt(self, *, run_id: int | None, lease_id: int) -> DeviceGrant | None:
        """Take over the lease kept for the (resuming) run; None when it is not kept any more."""
        ...

    async def offline(self, grant: DeviceGrant, reason: str) -> None:
        """Mark the device offline (disconnected) and release its lease."""
        ...

    async def close(self) -> None:
        """Let go of what the registry's client holds (its database connection)."""
        ...


@dataclass(frozen=True)
class AndroidSettings:
    """VENUS_ANDROID_* settings."""

    acquire_timeout_s: float = 60.0
    heartbeat_s: float = 10.0
    adb_timeout_s: float = 20.0
    settle_s: float = 0.0  # pause after each action before the next screenshot (slow animations)


class AndroidHost:
    surface = "android"

    def __init__(self, leases: DeviceLeases, settings: AndroidSettings | None = None) -> None:
        self.leases = leases
        self.settings = settings or AndroidSettings()
        self._beats: set[asyncio.Task] = set()

    async def new_environment(self, *, allowed_domains: list[str], secrets, storage_state: dict | None = None,
                              run_id: int | None = None, kept: dict | None = None) -> AndroidEnvironment:
        """A leased healthy device, or (`kept`: a parked run's handle) the device kept for the run."""
        grant, device = await (self._adopt(run_id, kept) if kept else self._lease(run_id))
        try:
            width, height = await device.size()
        except (StepError, EnvironmentLost) as exc:
            await self.leases.offline(grant, str(exc))
            raise EnvironmentLost(f"device {grant.serial} did not answer: {exc}") from exc
        beat = asyncio.create_task(self._heartbeat(grant))
        self._beats.add(beat)
        beat.add_done_callback(self._beats.discard)

        async def release() -> None:
            beat.cancel()
            if device.lost:
                return
            if not (env.kept and await self.leases.park(grant, run_id=run_id)):
                await self.leases.release(grant)

        async def lost(reason: str) -> None:
            beat.cancel()
            log.warning("android device %s was lost mid-run: %s", grant.serial, reason)
            await self.leases.offline(grant, reason)

        env = AndroidEnvironment(device, secrets=secrets, width=width, height=height, apps=grant.apps,
                                 on_close=release, on_lost=lost, settle_s=self.settings.settle_s)
        env.grant = grant
        return env

    async def _adopt(self, run_id: int | None, kept: dict) -> tuple[DeviceGrant, AdbDevice]:
        grant = await self.leases.adopt(run_id=run_id, lease_id=int(kept["lease"]))
        if grant is None:
            raise EnvironmentLost(f"device {kept.get('serial', '')} lost while the run waited: its lease was not kept "
                                  "for the run any more (expired or reclaimed)")
        device = AdbDevice(grant.serial, adb_host=grant.adb_host, adb_port=grant.adb_port,
                           timeout_s=self.settings.adb_timeout_s)
        if not await asyncio.to_thread(device.online):
            reason = f"device {grant.serial} disconnected while the run waited"
            await self.leases.offline(grant, reason)
            raise EnvironmentLost(reason)
        return grant, device

    async def _lease(self, run_id: int | None) -> tuple[DeviceGrant, AdbDevice]:
        """A leased device its adb server lists; devices it does not list are reported offline."""
        deadline = time.monotonic() + self.settings.acquire_timeout_s
        skipped: tuple[str, ...] = ()
        while True:
            grant = await self.leases.acquire(run_id=run_id, exclude=skipped)
            if grant is not None:
                device = AdbDevice(grant.serial, adb_host=grant.adb_host, adb_port=grant.adb_port,
                                   timeout_s=self.settings.adb_timeout_s)
                if await asyncio.to_thread(device.online):
                    return grant, device
                await self.leases.offline(grant, f"device {grant.serial} is not connected to the adb server at "
                                                 f"{grant.adb_host}:{grant.adb_port}")
                skipped = (*skipped, grant.serial)
                continue
            if time.monotonic() >= deadline:
                raise EnvironmentLost(f"no Android device was free within {self.settings.acquire_timeout_s:g}s "
                                      "(every registered device is leased, offline or disabled)")
            await asyncio.sleep(1.0)

    async def _heartbeat(self, grant: DeviceGrant) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat_s)
            try:
                if not await self.leases.heartbeat(grant):
                    log.warning("the lease on android device %s was lost", grant.serial)
                    return
            except Exception:  # a failed heartbeat must not end the run; the next one tries again
                log.warning("heartbeat of the lease on %s failed", grant.serial, exc_info=True)

    def explicit_executor(self, env: AndroidEnvironment, *, start_url: str = "", grounder=None,
                          guard=None) -> AndroidExecutor:
        return AndroidExecutor(env, start_url=start_url, grounder=grounder, guard=guard)

    def retry_after_crash(self, env: AndroidEnvironment | None, *, attempt: int) -> bool:
        return False

    async def suspend(self, env: AndroidEnvironment) -> SuspendedSession:
        env.kept = True
        return SuspendedSession(location=env.location(), kept={"serial": env.grant.serial, "lease": env.grant.lease_id})

    async def restore(self, env: AndroidEnvironment, continuation) -> None:
        return None  # the kept device shows what the run left; the gate re-checks it before acting

    async def close(self) -> None:
        for beat in list(self._beats):
            beat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._beats, return_exceptions=True)
        await self.leases.close()
