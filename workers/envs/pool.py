"""The browser pool of one worker process: a bounded set of Chromium processes, each serving a
bounded number of run contexts.

Contract:
- At most `max_browsers` Chromium processes and `contexts_per_browser` open contexts on each; a
  run that finds every slot taken waits (up to `acquire_timeout_s`, then `EnvironmentLost`).
- A new context goes to the least loaded healthy browser; a browser is launched only when every
  running one is full.
- A browser is recycled (takes no new context, closed when its last context closes) after
  `recycle_after_runs` contexts, when its process tree's PSS exceeds `memory_ceiling_mb`, when
  one of its contexts does not close in time (that context's slot is free at once), or when it
  stops answering a health probe (then it is killed at once).
- A browser that crashes or is killed leaves the pool at once; the next context launches a new
  one. Runs on it fail "browser lost: …"; with `crash_policy="retry"` the runner runs them once
  more on a fresh browser (`retry_after_crash`).
- `close()` closes every context and browser and stops Playwright; no Chromium outlives the pool
  or its process (see `workers.envs.chromium`).
- It is the web's `Host` (`workers.envs.base`): `new_environment`, `explicit_executor`,
  `retry_after_crash`, `suspend` / `restore` (a parked run's session) and `close`.

Must be used from one event loop (the runtime loop thread). The egress guard and the secret mask
stay per run context exactly as `BrowserEnvironment` sets them up.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from playwright.async_api import Browser, BrowserContext, Error as PlaywrightError, Playwright, async_playwright

from workers.durable import carry_session_storage, restore_session, save_session
from workers.egress import PrivateAllowList
from workers.envs import chromium
from workers.envs.base import SuspendedSession
from workers.envs.browser import CHROMIUM_ARGS, VIEWPORT, BrowserConfig, BrowserEnvironment
from workers.envs.egress_guard import EgressGuard
from workers.envs.masking import MASK_STYLE_SCRIPT
from workers.envs.page_input import NAV_COUNTER_SCRIPT
from workers.envs.run_files import FileStore, RunFiles
from workers.errors import EnvironmentLost
from workers.executor import ExplicitExecutor
from workers.grounding import QUIET_WATCH_SCRIPT
from workers.loop import bounded
from workers.secrets import SecretBox

log = logging.getLogger(__name__)
CLOSE_TIMEOUT_S = 10
# Opening a context or a page has no timeout of Playwright's own: a browser killed while it opens
# one can leave the call waiting for ever, so the pool bounds it and calls the browser lost.
OPEN_TIMEOUT_S = 30


class NoSpareSlot(EnvironmentLost):
    """A lane asked for a slot while none was spare (`BrowserPool.new_lane` answers None)."""


@dataclass(frozen=True)
class PoolSettings:
    """Bounds of one worker's pool (venus_rpa/settings.py: VENUS_BROWSER_*)."""

    max_browsers: int = 2
    contexts_per_browser: int = 4
    recycle_after_runs: int = 200  # contexts a browser serves before it is replaced
    memory_ceiling_mb: float = 1500.0  # PSS of one browser's process tree; 0: no ceiling
    crash_policy: Literal["fail", "retry"] = "fail"
    health_interval_s: float = 30.0
    acquire_timeout_s: float = 300.0
    idle_close_s: float = 300.0  # an idle browser beyond the first is closed after this
    run_slots: int = 0  # the worker's concurrency: slots kept free for its runs, never given to lanes

    def __post_init__(self) -> None:
        if self.max_browsers < 1 or self.contexts_per_browser < 1 or self.recycle_after_runs < 1:
            raise ValueError("the browser pool needs at least one browser, one context per browser and "
                             "one run per browser before recycling")
        if self.crash_policy not in ("fail", "retry"):
            raise ValueError(f"browser crash policy must be 'fail' or 'retry', not {self.crash_policy!r}")


@dataclass(eq=False)
class PooledBrowser:
    """One Chromium of the pool and what it serves."""

    browser: Browser
    marker: str
    contexts: set[BrowserContext] = field(default_factory=set)
    reserved: int = 0  # slots promised to contexts being opened
    runs: int = 0  # contexts opened so far
    draining: str = ""  # why it takes no new contexts ("" while it does)
    crashed: bool = False
    closing: bool = False
    idle_since: float = field(default_factory=time.monotonic)
    pid: int | None = None

    @property
    def load(self) -> int:
        return self.reserved + len(self.contexts)


class BrowserPool:
    """Owns Playwright and this worker's Chromium processes (see the module docstring)."""

    surface = "web"

    def __init__(self, config: BrowserConfig, settings: PoolSettings | None = None,
                 files_for: Callable[[int | None], FileStore | None] | None = None) -> None:
        """`files_for(run_id)`: where the run's downloads are kept and its input files are read
        (`workers.envs.run_files.FileStore`); without it downloads stay in the run's memory."""
        self.config = config
        self.files_for = files_for or (lambda run_id: None)
        self.settings = settings or PoolSettings()
        self.allow_private = PrivateAllowList.parse(config.egress_allow_private)  # malformed: fails at start
        self.owner = chromium.Owner.current()
        self._playwright: Playwright | None = None
        self._browsers: list[PooledBrowser] = []
        self._cond: asyncio.Condition | None = None
        self._seq = itertools.count(1)
        self._owners: weakref.WeakKeyDictionary[BrowserContext, PooledBrowser] = weakref.WeakKeyDictionary()
        self._health: asyncio.Task | None = None
        self._closers: set[asyncio.Task] = set()
        self.launches = 0  # browsers launched over the pool's life (recycling and crashes show here)
        self._lanes: set[BrowserContext] = set()  # contexts open as lanes of a run (new_lane)
        self._lanes_reserved = 0  # slots reserved for lanes whose context is being opened

    # -- what runs use -------------------------------------------------------------------
    async def new_context(self, egress: EgressGuard, *, lane: bool = False, **options: Any) -> BrowserContext:
        """A run's context in a free slot: the set-up every run gets (viewport, downloads accepted
        into the browser's temporary folder until `RunFiles` captures them, the navigation counter) with its egress guard installed before any page exists. `options` go
        to Playwright, e.g. `storage_state` (a saved session: cookies and local storage).
        The slot is free again when the context closes. A `lane` (a run's extra context, `new_lane`)
        takes only a spare slot, never waiting for one."""
        entry = await self._acquire(lane=lane)
        context = None
        try:
            await egress.start()
            context = await bounded(
                entry.browser.new_context(viewport=VIEWPORT, accept_downloads=True, **egress.context_options(), **options),
                OPEN_TIMEOUT_S)
        except (PlaywrightError, TimeoutError) as exc:
            raise EnvironmentLost(f"browser lost: could not open a browser context: {_first_line(exc)}") from exc
        finally:  # the reservation becomes the context, or the slot is free again for whoever waits
            entry.reserved -= 1
            self._lanes_reserved -= lane
            if context is None:
                await self._notify()
        entry.contexts.add(context)
        if lane:
            self._lanes.add(context)
            context.on("close", lambda ctx: self._lanes.discard(ctx))
        self._owners[context] = entry
        context.on("close", lambda ctx: self._released(entry, ctx))
        try:
            await bounded(self._prepare(context, egress), OPEN_TIMEOUT_S)
        except (PlaywrightError, TimeoutError) as exc:
            await _close_quietly(context)
            raise EnvironmentLost(f"browser lost: could not prepare a browser context: {_first_line(exc)}") from exc
        return context

    @staticmethod
    async def _prepare(context: BrowserContext, egress: EgressGuard) -> None:
        await context.add_init_script(NAV_COUNTER_SCRIPT + QUIET_WATCH_SCRIPT + MASK_STYLE_SCRIPT)  # one script: one setup per document
        await egress.install(context)

    async def new_environment(self, *, allowed_domains: list[str], secrets: SecretBox,
                              storage_state: dict | str | None = None, run_id: int | None = None,
                              lane: bool = False) -> BrowserEnvironment:
        """A run's environment in its own context (with a saved session when `storage_state` is
        given). `run_id` names where its files go (`files_for`); a context is this process's own,
        not a leased resource."""
        egress = EgressGuard(list(allowed_domains), allow_private=self.allow_private)
        options = {"storage_state": storage_state} if storage_state is not None else {}
        try:
            context = await self.new_context(egress, lane=lane, **options)
        except BaseException:
            await egress.stop()  # its listener was started for this context
            raise
        try:
            page = await bounded(context.new_page(), OPEN_TIMEOUT_S)
        except (PlaywrightError, TimeoutError) as exc:
            await _close_quietly(context)
            await egress.stop()
            raise EnvironmentLost(f"browser lost: could not open a page: {_first_line(exc)}") from exc
        files = RunFiles(store=self.files_for(run_id), max_bytes=self.config.download_max_bytes,
                         holds_secret=secrets.holds_secret if secrets is not None else None)
        files.attach(context)
        env = BrowserEnvironment(context, page, allowed_domains=allowed_domains, secrets=secrets, egress=egress,
                                 files=files)
        env.on_stuck_close = self._stuck
        return env

    async def new_lane(self, env: BrowserEnvironment, *, run_id: int | None = None) -> BrowserEnvironment | None:
        """Another environment for the run of `env` (a lane of its `for_each` block, workers.lanes):
        a context of its own holding `env`'s session (cookies, local storage, the page's
        sessionStorage), opened at `env`'s page. None when no slot is free now: a lane never
        waits for one (the run goes on with the lanes it has)."""
        if self._spare_slots() < 1:
            return None
        session, session_storage, url = await save_session(env)
        try:  # the slot is checked again, and taken, in `_acquire`, without waiting
            lane = await self.new_environment(allowed_domains=env.allowed_domains, secrets=env.secrets,
                                              storage_state=session, run_id=run_id, lane=True)
        except NoSpareSlot:
            return None
        try:
            await carry_session_storage(lane.context, session_storage)
            if url and url != "about:blank":
                await lane.goto(url)
        except BaseException:
            await lane.close()
            raise
        return lane

    def _spare_slots(self) -> int:
        """Slots a lane may take now: free ones, less those this worker's runs may still need
        (`run_slots` minus the runs holding a context): lanes never make a run wait for a slot."""
        settings = self.settings
        usable = [b for b in self._browsers if not b.draining and not b.crashed]
        capacity = settings.contexts_per_browser * (len(usable) + settings.max_browsers - len(self._browsers))
        in_use = sum(b.load for b in usable)
        runs_open = in_use - len(self._lanes) - self._lanes_reserved
        return capacity - in_use - max(settings.run_slots - runs_open, 0)

    def browser_lost(self, context: BrowserContext | None) -> bool:
        """Whether the browser that served `context` crashed or was killed."""
        entry = self._owners.get(context) if context is not None else None
        return entry is not None and entry.crashed

    def retry_after_crash(self, env: BrowserEnvironment | None, *, attempt: int) -> bool:
        """The crash policy: run again (once) when the run's browser crashed and policy is "retry"."""
        context = env.context if env is not None else None
        return self.settings.crash_policy == "retry" and attempt == 0 and self.browser_lost(context)

    def explicit_executor(self, env: BrowserEnvironment, *, start_url: str = "", grounder=None, guard=None):
        """The web's explicit-step executor (`workers.executor.ExplicitExecutor`) for `env`."""
        return ExplicitExecutor(env, start_url=start_url, grounder=grounder, guard=guard)

    async def suspend(self, env: BrowserEnvironment) -> SuspendedSession:
        """A parked run's browser session: storage state, the page's sessionStorage, the URL."""
        session, session_storage, url = await save_session(env)
        return SuspendedSession(session=session, extra=session_storage, location=url)

    async def restore(self, env: BrowserEnvironment, continuation) -> None:
        """A new context for `env` holding the parked run's session, at its URL (workers.durable)."""
        await restore_session(self, env, continuation)

    def open_contexts(self) -> list[BrowserContext]:
        """Every open run context of the pool (browsers in launch order)."""
        return [context for entry in self._browsers for context in entry.browser.contexts if context in entry.contexts]

    def stats(self) -> dict[str, Any]:
        """Sizes for metrics and benchmarks."""
        return {"browsers": len(self._browsers), "contexts": sum(len(b.contexts) for b in self._browsers),
                "launches": self.launches, "draining": sum(1 for b in self._browsers if b.draining)}

    # -- slots ---------------------------------------------------------------------------
    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def _acquire(self, *, lane: bool = False) -> PooledBrowser:
        """A browser with a free slot, reserved (`entry.reserved`); waits up to `acquire_timeout_s`.
        A `lane` never waits: NoSpareSlot unless a slot is spare (`_spare_slots`)."""
        cond = self._condition()
        if self._health is None or self._health.done():
            self._health = asyncio.create_task(self._health_loop())
        deadline = time.monotonic() + self.settings.acquire_timeout_s
        async with cond:
            while True:
                if lane and self._spare_slots() < 1:
                    raise NoSpareSlot("no slot is spare for a lane now")
                entry = self._pick()
                if entry is None and len(self._browsers) < self.settings.max_browsers:
                    entry = await self._launch()
                if entry is not None:
                    entry.reserved += 1
                    self._lanes_reserved += lane
                    entry.runs += 1
                    if entry.runs >= self.settings.recycle_after_runs:
                        entry.draining = f"served {entry.runs} runs"
                    return entry
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EnvironmentLost(
                        f"no browser slot became free within {self.settings.acquire_timeout_s:g}s "
                        f"({self.settings.max_browsers} browsers x {self.settings.contexts_per_browser} contexts busy)")
                with contextlib.suppress(TimeoutError):
                    await bounded(cond.wait(), remaining)

    def _pick(self) -> PooledBrowser | None:
        cap = self.settings.contexts_per_browser
        usable = [b for b in self._browsers
                  if not b.draining and not b.crashed and b.browser.is_connected() and b.load < cap]
        return min(usable, key=lambda b: b.load, default=None)

    def _stuck(self, context: BrowserContext) -> None:
        """A context that did not close in time (`BrowserEnvironment.close`): its browser stopped
        answering for it. Its slot is free again; the browser takes no new context and is closed
        (killed if it does not close) once its other contexts have closed."""
        entry = self._owners.get(context)
        if entry is None:
            return
        entry.draining = entry.draining or "a context did not close in time"
        self._lanes.discard(context)
        self._released(entry, context)

    def _released(self, entry: PooledBrowser, context: BrowserContext) -> None:
        entry.contexts.discard(context)
        if not entry.load:
            entry.idle_since = time.monotonic()
        if entry.draining and not entry.load and not entry.crashed:
            self._spawn(self._retire(entry))
        self._spawn(self._notify())

    async def _notify(self) -> None:
        cond = self._condition()
        async with cond:
            cond.notify_all()

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._closers.add(task)
        task.add_done_callback(self._closers.discard)

    # -- browsers ------------------------------------------------------------------------
    async def _launch(self) -> PooledBrowser:
        if self._playwright is None:
            await asyncio.to_thread(chromium.orphans_sweep)  # what a dead predecessor left behind
            self._playwright = await async_playwright().start()
        marker = self.owner.marker(next(self._seq))
        log.info("launching chromium %s at %s", marker, self.config.executable_path)
        try:
            browser = await self._playwright.chromium.launch(
                executable_path=str(chromium.LAUNCHER), headless=self.config.headless, args=CHROMIUM_ARGS,
                env=chromium.launch_env(self.config.executable_path, marker))
        except PlaywrightError as exc:
            raise EnvironmentLost(f"browser lost: could not launch chromium: {_first_line(exc)}") from exc
        entry = PooledBrowser(browser, marker)
        entry.pid = getattr(await asyncio.to_thread(chromium.find_browser, marker), "pid", None)
        browser.on("disconnected", lambda _: self._disconnected(entry))
        self._browsers.append(entry)
        self.launches += 1
        return entry

    def _disconnected(self, entry: PooledBrowser) -> None:
        if entry in self._browsers:
            self._browsers.remove(entry)
        if not entry.closing:
            entry.crashed = True
            log.warning("chromium %s was lost; its runs lose their browser, the next run launches a new one",
                        entry.marker)
        self._spawn(self._notify())

    async def _retire(self, entry: PooledBrowser) -> None:
        """Close a browser (recycling, shutdown); kill its processes if it does not close in time."""
        if entry.closing:
            return
        entry.closing = True
        if entry in self._browsers:
            self._browsers.remove(entry)
        log.info("closing chromium %s (%s)", entry.marker, entry.draining or "pool closing")
        try:
            await bounded(entry.browser.close(), CLOSE_TIMEOUT_S)
        except (PlaywrightError, TimeoutError):
            await asyncio.to_thread(self._kill, entry)
        await self._notify()

    def _kill(self, entry: PooledBrowser) -> None:
        proc = chromium.find_browser(entry.marker)
        if proc is not None:
            chromium.kill_tree(proc)

    # -- health --------------------------------------------------------------------------
    async def _health_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.health_interval_s)
            try:
                await self.check_health()
            except Exception:  # a failed check must not end the checks
                log.exception("browser pool health check failed")

    async def check_health(self) -> None:
        """Probe every browser (answers a CDP call within 5 s), measure its process tree, recycle
        what is over the memory ceiling or idle, kill what hangs, and sweep orphans."""
        for entry in list(self._browsers):
            if not await self._responsive(entry):
                log.warning("chromium %s does not answer; killing it", entry.marker)
                entry.crashed = True  # its runs are lost like on a crash
                await asyncio.to_thread(self._kill, entry)
                continue
            ceiling = self.settings.memory_ceiling_mb
            if ceiling and not entry.draining:
                pss = await asyncio.to_thread(self.browser_pss_mb, entry)
                if pss > ceiling:
                    entry.draining = f"PSS {pss:.0f} MB over the {ceiling:g} MB ceiling"
            idle = not entry.load and time.monotonic() - entry.idle_since > self.settings.idle_close_s
            if idle and len(self._browsers) > 1:
                entry.draining = entry.draining or "idle"
            if entry.draining and not entry.load:
                await self._retire(entry)
        await asyncio.to_thread(chromium.orphans_sweep)

    async def _responsive(self, entry: PooledBrowser) -> bool:
        try:
            session = await bounded(entry.browser.new_browser_cdp_session(), 5)
            await bounded(session.send("Browser.getVersion"), 5)
            await session.detach()
            return True
        except (PlaywrightError, TimeoutError):
            return not entry.browser.is_connected()  # gone: `disconnected` already removed it

    def browser_pss_mb(self, entry: PooledBrowser) -> float:
        """PSS of one browser's process tree in MB (blocking)."""
        return chromium.tree_pss_mb(chromium.find_browser(entry.marker))

    # -- shutdown ------------------------------------------------------------------------
    async def close(self) -> None:
        """Close every browser (their contexts with them) and stop Playwright."""
        if self._health is not None:
            self._health.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._health
            self._health = None
        for entry in list(self._browsers):
            entry.draining = entry.draining or "pool closing"
            await self._retire(entry)
        if self._closers:
            await asyncio.gather(*self._closers, return_exceptions=True)
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
        self._cond = None


async def _close_quietly(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await bounded(context.close(), CLOSE_TIMEOUT_S)


def _first_line(exc: BaseException) -> str:
    """The first line of a Playwright error, or what a timeout means."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {OPEN_TIMEOUT_S}s"
    return (str(exc).splitlines() or [type(exc).__name__])[0]
