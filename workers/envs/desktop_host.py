"""The desktop host of a worker: leases an X display per run and opens a fresh session on it.

Contract (the surface seam's `Host`, `workers.envs.base`):
- `new_environment(run_id=...)` leases a free display of this machine through the run's
  `DisplayLeases` port (`leases_for(run_id)`; the Django side:
  `venus_rpa.pools.displays.RunDisplayLeases`), waiting up to
  `acquire_timeout_s` for one, then starts a `DesktopSession` on it (throwaway HOME, its own
  D-Bus) and returns a `DesktopEnvironment`. No free display: `EnvironmentLost` with that reason.
- While the run holds it, the lease is renewed every `ttl/3`; a renewal refused (the sweep
  reclaimed it) makes the environment's next call raise `EnvironmentLost`, so two runs never
  drive one display.
- When the environment closes: the files the run created or changed in its Documents folder go
  to `artifacts_for(run_id)(name, bytes)` (the run's artifacts), held keys are released, the session's
  processes are killed, HOME is removed and the lease is released.
- A desktop session cannot be saved, so a parked run (waiting for a person past the hold window)
  keeps it running instead: `suspend` marks the environment kept and returns its handle
  (`SuspendedSession.kept`: display, lease, HOME, session bus, application, window); closing a
  kept environment leaves the session alone and `park`s the lease (held for the run, no worker).
  The continuation goes to a worker of this machine (the Django side routes it), whose
  `new_environment(kept=handle)` `adopt`s the lease and the session: the application is as the
  run left it. A lease or session gone meanwhile: `EnvironmentLost` with that reason. A
  continuation without a handle (older ones) starts the application again on a fresh session.
  A crashed display is not retried.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from workers.desktop_executor import DesktopExecutor
from workers.envs.base import SuspendedSession
from workers.envs.desktop import DesktopEnvironment
from workers.envs.desktop_apps import APPS
from workers.envs.xdisplay import DesktopSession, reap_display
from workers.errors import EnvironmentLost

log = logging.getLogger(__name__)
MAX_ARTIFACTS = 20
MAX_ARTIFACT_BYTES = 50 * 1024 * 1024


class DisplayLeases(Protocol):
    """One run's claim on a display of the pool (the database's leases)."""

    async def acquire(self) -> tuple[int, str] | None:
        """(lease id, display such as ':99'), or None when every display is leased."""
        ...

    async def heartbeat(self, lease_id: int) -> bool:
        """Extend the lease; False once it was lost."""
        ...

    async def release(self, lease_id: int) -> None: ...

    async def park(self, lease_id: int) -> bool:
        """Keep the lease for the run while it is parked (no heartbeats); False if it was lost."""
        ...

    async def adopt(self, lease_id: int) -> str | None:
        """Take over the lease kept for the run; its display, or None when it is not kept any more."""
        ...


@dataclass(frozen=True)
class DesktopConfig:
    """How this worker's desktops look (venus_rpa/settings.py: VENUS_DESKTOP_*)."""

    width: int = 1280
    height: int = 800
    seed_dir: Path | None = None  # practice files copied into every session's Documents
    acquire_timeout_s: float = 60.0
    lease_ttl_s: float = 60.0


class DesktopHost:
    """Hands out desktop environments on leased displays (see the module docstring)."""

    surface = "desktop"

    def __init__(self, config: DesktopConfig, leases_for: Callable[[int | None], DisplayLeases],
                 artifacts_for: Callable[[int | None], Callable[[str, bytes], Awaitable[None]] | None] | None = None,
                 ) -> None:
        """`leases_for(run_id)`: the run's lease port; `artifacts_for(run_id)`: where the run's
        files go (None: they are not kept)."""
        self.config = config
        self.leases_for = leases_for
        self.artifacts_for = artifacts_for or (lambda run_id: None)

    async def new_environment(self, *, allowed_domains: list[str] | None = None, secrets: Any = None,
                              storage_state: dict[str, Any] | None = None, run_id: int | None = None,
                              kept: dict[str, Any] | None = None) -> DesktopEnvironment:
        """A fresh session on a leased display, or (`kept`: a parked run's handle) the session the
        run kept, taken over with its lease."""
        leases = self.leases_for(run_id)
        if kept:
            lease_id, display = await self._adopt(leases, kept)
        else:
            lease_id, display = await self._lease(leases)
        alive = [True]
        try:
            if kept:
                session = await asyncio.to_thread(lambda: DesktopSession.adopt(
                    display, home=kept["home"], bus_address=kept["bus_address"], started_at=kept["started_at"],
                    seed_dir=self.config.seed_dir))
            else:
                session = await asyncio.to_thread(DesktopSession(display, self.config.seed_dir).start)
        except BaseException:
            if kept:  # what is left of the kept session goes with the lease
                await asyncio.to_thread(reap_display, display)
            await leases.release(lease_id)
            raise
        beat = asyncio.create_task(self._heartbeat(leases, lease_id, alive))
        artifacts = self.artifacts_for(run_id)

        async def collect(env: DesktopEnvironment) -> None:
            if artifacts is not None:
                await _collect(env, artifacts)

        async def released() -> None:
            beat.cancel()
            if env.kept and alive[0] and await leases.park(lease_id):
                return
            if env.kept:  # the lease was lost: nothing keeps the session for the run any more
                log.warning("the display lease %s of a parked run was lost; its session is discarded", lease_id)
                await asyncio.to_thread(session.close)
            await leases.release(lease_id)

        env = DesktopEnvironment(session, secrets=secrets, width=self.config.width, height=self.config.height,
                                 lease_alive=lambda: alive[0], on_close=collect, on_closed=released)
        env.lease = {"id": lease_id, "display": display}
        if kept:
            env.app = APPS.get(kept.get("app", ""))
            env.window_title = kept.get("window_title", "")
            env.cursor = tuple(kept.get("cursor") or env.cursor)
        return env

    async def _adopt(self, leases: DisplayLeases, kept: dict[str, Any]) -> tuple[int, str]:
        display = await leases.adopt(int(kept["lease"]))
        if display is None:  # its session may be another run's by now: leave the display alone
            await leases.release(int(kept["lease"]))
            raise EnvironmentLost(f"display lost while the run waited: the lease on {kept['display']} was not "
                                  "kept for it any more (expired or reclaimed)")
        return int(kept["lease"]), display

    async def _lease(self, leases: DisplayLeases) -> tuple[int, str]:
        deadline = time.monotonic() + self.config.acquire_timeout_s
        while True:
            got = await leases.acquire()
            if got is not None:
                return got
            if time.monotonic() >= deadline:
                raise EnvironmentLost(f"no free display on this worker after {self.config.acquire_timeout_s:g}s: "
                                      "every display of the pool is leased to another run")
            await asyncio.sleep(0.5)

    async def _heartbeat(self, leases: DisplayLeases, lease_id: int, alive: list[bool]) -> None:
        while alive[0]:
            await asyncio.sleep(self.config.lease_ttl_s / 3)
            try:
                alive[0] = await leases.heartbeat(lease_id)
            except Exception:  # the database away for a moment: the lease lasts its ttl
                log.warning("renewing the display lease %s failed", lease_id, exc_info=True)
        log.warning("the display lease %s was lost; the run's desktop stops", lease_id)

    # -- the rest of the Host seam ----------------------------------------------------------
    def explicit_executor(self, env: DesktopEnvironment, *, start_url: str = "", grounder: Any = None,
                          guard: Any = None) -> DesktopExecutor:
        return DesktopExecutor(env, start_url=start_url, grounder=grounder, guard=guard)

    def retry_after_crash(self, env: Any, *, attempt: int) -> bool:
        return False

    async def suspend(self, env: DesktopEnvironment) -> SuspendedSession:
        """Keep the session running for the parked run (see the module docstring)."""
        env.kept = True
        return SuspendedSession(location=env.location(), kept=env.handle())

    async def restore(self, env: DesktopEnvironment, continuation: Any) -> None:
        if getattr(continuation, "kept", None):
            return None  # the kept session: the application is as the run left it
        location = getattr(continuation, "url", "") or ""
        if location.startswith("app://"):
            app = location[len("app://"):].split("/", 1)[0]
            if app and app != "desktop":
                await env.start_app(app)

    async def close(self) -> None:
        return None


async def _collect(env: DesktopEnvironment, store: Callable[[str, bytes], Awaitable[None]]) -> None:
    """Hand the files the run created or changed in its Documents folder to the artifact store."""
    for path in (await asyncio.to_thread(env.session.changed_files))[:MAX_ARTIFACTS]:
        if path.stat().st_size > MAX_ARTIFACT_BYTES:
            log.warning("artifact %s is too large to keep", path.name)
            continue
        await store(str(path.relative_to(env.session.documents)), await asyncio.to_thread(path.read_bytes))
