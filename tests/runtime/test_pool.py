"""The browser pool (`workers.envs.pool`) with real Chromium processes against the practice site:
bounds, recycling, crashes, health checks, shutdown and orphans.

Each test gets its own pool on its own event loop; every test ends by checking that no Chromium
of that pool is left running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest
from playwright.async_api import Error as PlaywrightError

from tests.helpers.runtime import ListRecorder, local_secrets
from workers import steps as S
from workers.envs import chromium
from workers.envs.browser import CHROMIUM_ARGS, BrowserConfig
from workers.envs.egress_guard import EgressGuard
from workers.envs.pool import BrowserPool, PoolSettings
from workers.errors import EnvironmentLost
from workers.runner import Runner

LOCAL = ["127.0.0.1"]


class Pools:
    """Makes pools on one event loop and checks at the end that their Chromium is gone."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pools: list[BrowserPool] = []

    def make(self, **settings) -> BrowserPool:
        pool = BrowserPool(BrowserConfig(egress_allow_private=tuple(LOCAL)), PoolSettings(**settings))
        self.pools.append(pool)
        return pool

    def run(self, coro):
        return self.loop.run_until_complete(coro)


@pytest.fixture
def pools() -> Iterator[Pools]:
    made = Pools()
    try:
        yield made
    finally:
        for pool in made.pools:
            made.run(pool.close())
        made.loop.close()
    assert wait_until(lambda: not chromium.marked_processes(os.getpid())), "chromium outlived its pool"


def wait_until(check, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def gone(pid: int | None) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def open_envs(pool: BrowserPool, count: int) -> list:
    return [await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets()) for _ in range(count)]


# --- bounds -----------------------------------------------------------------------------------


def test_it_packs_contexts_up_to_the_cap_and_launches_no_more_browsers_than_the_bound(pools):
    pool = pools.make(max_browsers=2, contexts_per_browser=2)

    async def body():
        envs = await open_envs(pool, 4)
        stats = pool.stats()
        loads = sorted(len(b.contexts) for b in pool._browsers)
        pids = {b.pid for b in pool._browsers}
        for env in envs:
            await env.close()
        return stats, loads, pids

    stats, loads, pids = pools.run(body())
    assert stats == {"browsers": 2, "contexts": 4, "launches": 2, "draining": 0}
    assert loads == [2, 2]
    assert len(pids) == 2 and None not in pids


def test_a_run_beyond_every_slot_waits_until_a_context_closes(pools):
    pool = pools.make(max_browsers=1, contexts_per_browser=2)

    async def body():
        first, second = await open_envs(pool, 2)
        third = asyncio.create_task(pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets()))
        await asyncio.sleep(1.0)
        waited = not third.done()
        await first.close()
        env = await asyncio.wait_for(third, 10)
        launches = pool.launches
        for e in (second, env):
            await e.close()
        return waited, launches

    waited, launches = pools.run(body())
    assert waited
    assert launches == 1


def test_a_run_that_finds_no_free_slot_in_time_fails_with_a_clear_reason(pools):
    pool = pools.make(max_browsers=1, contexts_per_browser=1, acquire_timeout_s=0.5)

    async def body():
        (held,) = await open_envs(pool, 1)
        try:
            with pytest.raises(EnvironmentLost) as info:
                await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets())
        finally:
            await held.close()
        return str(info.value)

    assert pools.run(body()) == "no browser slot became free within 0.5s (1 browsers x 1 contexts busy)"


def test_settings_that_allow_no_browser_are_refused():
    with pytest.raises(ValueError, match="at least one browser"):
        PoolSettings(max_browsers=0)
    with pytest.raises(ValueError, match="'fail' or 'retry'"):
        PoolSettings(crash_policy="ignore")


# --- recycling --------------------------------------------------------------------------------


def test_a_browser_is_replaced_after_serving_n_runs_and_its_processes_exit(pools):
    pool = pools.make(max_browsers=1, contexts_per_browser=2, recycle_after_runs=2)

    async def body():
        first = await open_envs(pool, 2)
        old_pid = pool._browsers[0].pid
        for env in first:
            await env.close()
        await asyncio.sleep(0.5)
        (later,) = await open_envs(pool, 1)
        new_pid = pool._browsers[0].pid
        await later.close()
        return old_pid, new_pid, pool.launches

    old_pid, new_pid, launches = pools.run(body())
    assert launches == 2 and old_pid != new_pid
    assert wait_until(lambda: gone(old_pid))


def test_a_browser_over_the_memory_ceiling_is_recycled_once_its_runs_end(pools):
    pool = pools.make(max_browsers=1, contexts_per_browser=2, memory_ceiling_mb=1)

    async def body():
        (env,) = await open_envs(pool, 1)
        entry = pool._browsers[0]
        pss = await asyncio.to_thread(pool.browser_pss_mb, entry)
        await pool.check_health()  # over the ceiling, but a run is still on it: it only drains
        still_there = entry in pool._browsers and not entry.closing
        await env.close()
        await asyncio.sleep(0.5)
        return pss, entry.draining, still_there, entry.pid, pool.stats()

    pss, why, still_there, pid, stats = pools.run(body())
    assert pss > 50  # a Chromium with one page is far above 1 MB
    assert why.startswith("PSS ") and "over the 1 MB ceiling" in why
    assert still_there
    assert stats["browsers"] == 0
    assert wait_until(lambda: gone(pid))


def test_the_health_check_kills_a_browser_that_stops_answering(pools):
    pool = pools.make(max_browsers=1)

    async def body():
        (env,) = await open_envs(pool, 1)
        pid = pool._browsers[0].pid
        os.kill(pid, signal.SIGSTOP)  # alive but deaf, like a hung browser
        await pool.check_health()
        lost = pool.browser_lost(env.context)
        with pytest.raises(EnvironmentLost):
            await env.observe()
        await env.close()
        (fresh,) = await open_envs(pool, 1)
        await fresh.close()
        return pid, lost, pool.launches

    pid, lost, launches = pools.run(body())
    assert wait_until(lambda: gone(pid))
    assert lost and launches == 2


def test_a_browser_that_goes_deaf_while_a_context_opens_fails_the_run_in_bounded_time(pools, monkeypatch):
    """Playwright gives opening a context no timeout of its own; a browser that stops answering
    mid-open must cost the run a clear reason after OPEN_TIMEOUT_S, not hold it for ever."""
    from workers.envs import pool as pool_module

    from workers.envs import browser as browser_module

    monkeypatch.setattr(pool_module, "OPEN_TIMEOUT_S", 1.5)
    monkeypatch.setattr(browser_module, "NEW_PAGE_TIMEOUT_S", 1.5)
    pool = pools.make(max_browsers=1, contexts_per_browser=2, health_interval_s=3600)
    guards = []
    monkeypatch.setattr(EgressGuard, "start", watched(EgressGuard.start, guards, "start"))
    monkeypatch.setattr(EgressGuard, "stop", watched(EgressGuard.stop, guards, "stop"))

    async def body():
        (env,) = await open_envs(pool, 1)
        entry = pool._browsers[0]
        os.kill(entry.pid, signal.SIGSTOP)
        started = time.monotonic()
        try:
            with pytest.raises(EnvironmentLost) as info:
                await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets())
            took = time.monotonic() - started
            # A Launch action or a restored session opens a page in a context the run already has.
            with pytest.raises(EnvironmentLost) as page_info:
                await browser_module.open_page(env.context)
        finally:
            os.kill(entry.pid, signal.SIGKILL)
        reserved = entry.reserved
        await env.close()
        return str(info.value), took, reserved, str(page_info.value)

    reason, took, reserved, page_reason = pools.run(body())
    assert reason.startswith("browser lost:") and "1.5s" in reason, reason
    assert took < 10, took
    assert reserved == 0  # the slot it was promised is given back
    assert page_reason == "browser lost: could not open a page: no answer within 1.5s"
    started_guards = [guard for what, guard in guards if what == "start"]
    stopped_guards = [guard for what, guard in guards if what == "stop"]
    assert started_guards[1] in stopped_guards, guards  # the failed open's egress listener does not outlive it


def watched(method, calls: list, what: str):
    async def wrapper(self, *args, **kwargs):
        calls.append((what, self))
        return await method(self, *args, **kwargs)
    return wrapper


# --- crashes ----------------------------------------------------------------------------------


class KillOnFirstRecord(ListRecorder):
    """Kills the run's Chromium when the first step is recorded (the next step is mid-flight)."""

    def __init__(self, pool: BrowserPool) -> None:
        super().__init__()
        self.pool, self.killed = pool, None

    async def record_step(self, record) -> None:
        await super().record_step(record)
        if self.killed is None:
            self.killed = self.pool._browsers[0].pid
            os.kill(self.killed, signal.SIGKILL)


def delayed_spec(base_url: str) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({
        "start_url": base_url + "/lab/delayed", "allowed_domains": LOCAL,
        "steps": [{"kind": "click", "name": "Load", "target": "Load data"},
                  {"kind": "wait_for", "name": "Wait for the data", "text": "Data loaded", "timeout_s": 5}],
    })


def run_with(pools: Pools, pool: BrowserPool, spec: S.AutomationSpec, recorder: ListRecorder):
    return pools.run(Runner({"web": pool}, heartbeat_s=5).run(spec, params={}, secrets=local_secrets(), recorder=recorder))


def test_a_run_whose_browser_is_killed_fails_as_browser_lost_and_the_next_run_gets_a_new_browser(pools, practice_url):
    pool = pools.make(max_browsers=1)
    spec = delayed_spec(practice_url)
    recorder = KillOnFirstRecord(pool)
    result = run_with(pools, pool, spec, recorder)

    assert result.status == "failed"
    assert "browser lost" in result.reason, result.reason
    assert recorder.records[-1].status == "failed" and "browser lost" in recorder.records[-1].error
    assert wait_until(lambda: gone(recorder.killed))

    again = run_with(pools, pool, spec, ListRecorder())
    assert again.status == "succeeded", again.reason
    assert pool.launches == 2


def test_with_the_retry_policy_a_run_on_a_crashed_browser_runs_again_on_a_new_browser(pools, practice_url):
    pool = pools.make(max_browsers=1, crash_policy="retry")
    recorder = KillOnFirstRecord(pool)
    result = run_with(pools, pool, delayed_spec(practice_url), recorder)

    assert result.status == "succeeded", result.reason
    assert pool.launches == 2
    statuses = [(r.kind, r.status) for r in recorder.records]
    assert ("goto", "succeeded") in statuses and any(s == "failed" for _, s in statuses)  # the lost attempt stays
    assert statuses[-3:] == [("goto", "succeeded"), ("click", "succeeded"), ("wait_for", "succeeded")]
    assert [r.index for r in recorder.records] == list(range(len(recorder.records)))


def test_the_retry_policy_retries_once_and_only_after_a_crash(pools):
    pool = pools.make(crash_policy="retry")

    async def body():
        (env,) = await open_envs(pool, 1)
        healthy = pool.retry_after_crash(env, attempt=0)
        os.kill(pool._browsers[0].pid, signal.SIGKILL)
        assert await asyncio.to_thread(wait_until, lambda: pool.stats()["browsers"] == 0)
        await asyncio.sleep(0.2)
        crashed = pool.retry_after_crash(env, attempt=0), pool.retry_after_crash(env, attempt=1)
        await env.close()
        return healthy, crashed

    healthy, (first, second) = pools.run(body())
    assert (healthy, first, second) == (False, True, False)


# --- contexts: saved sessions and per-context guards --------------------------------------------


def test_a_context_opened_with_a_saved_storage_state_starts_signed_in(pools, practice_url):
    pool = pools.make()

    async def body():
        env = await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets())
        await env.goto(practice_url + "/login")
        await env.page.fill("#username", "demo")
        await env.page.fill("#password", "demo-password")
        await env.page.click("button[type=submit]")
        await env.page.wait_for_url("**/expenses/new")
        state = await env.context.storage_state()
        await env.close()

        signed_in = await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets(), storage_state=state)
        fresh = await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets())
        await signed_in.goto(practice_url + "/expenses/new")
        await fresh.goto(practice_url + "/expenses/new")
        urls = signed_in.page.url, fresh.page.url
        await signed_in.close()
        await fresh.close()
        return urls

    signed_in_url, fresh_url = pools.run(body())
    assert signed_in_url == practice_url + "/expenses/new"
    assert "/login" in fresh_url


def test_contexts_sharing_a_browser_keep_their_own_egress_guard(pools, practice_url):
    pool = pools.make(max_browsers=1)

    async def body():
        local = await pool.new_environment(allowed_domains=LOCAL, secrets=local_secrets())
        elsewhere = await pool.new_environment(allowed_domains=["example.com"], secrets=local_secrets())
        same_browser = pool._owners[local.context] is pool._owners[elsewhere.context]
        await local.goto(practice_url + "/login")
        # Straight through Playwright, past check_url: the network layer of this context refuses.
        with contextlib.suppress(PlaywrightError):  # the refusal surfaces as a navigation error
            await elsewhere.page.goto(practice_url + "/login")
        refused = elsewhere.egress.take_blocked() or elsewhere.egress.take_refusal(elsewhere.page.url)
        local_refused = local.egress.take_blocked() or local.egress.take_refusal(local.page.url)
        urls = local.page.url, elsewhere.page.url
        for env in (local, elsewhere):
            await env.close()
        return same_browser, urls, refused, local_refused

    same_browser, (local_url, elsewhere_url), refused, local_refused = pools.run(body())
    assert same_browser
    assert local_url == practice_url + "/login" and local_refused is None
    assert refused and "blocked navigation to 127.0.0.1" in refused
    assert elsewhere_url != practice_url + "/login"


# --- shutdown and orphans -----------------------------------------------------------------------


def test_closing_the_pool_ends_every_chromium_process_it_started(pools):
    pool = pools.make(max_browsers=2, contexts_per_browser=1)

    async def body():
        envs = await open_envs(pool, 2)
        tree = []
        for entry in pool._browsers:
            browser = psutil.Process(entry.pid)
            tree += [browser, *browser.children(recursive=True)]
        await pool.close()  # with the runs' contexts still open
        return envs, tree

    envs, tree = pools.run(body())
    assert len(tree) > 4
    assert wait_until(lambda: all(gone(p.pid) for p in tree))
    assert chromium.marked_processes(os.getpid()) == []


def start_marked_chromium(marker: str) -> subprocess.Popen:
    env = chromium.launch_env("/usr/bin/chromium", marker)
    return subprocess.Popen(["/usr/bin/chromium", "--headless", *CHROMIUM_ARGS, "about:blank"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def test_the_sweep_kills_chromium_whose_worker_is_gone_and_spares_a_live_workers(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_owner = chromium.Owner(dead.pid, psutil.Process(dead.pid).create_time())
    dead.wait()
    orphan = start_marked_chromium(dead_owner.marker(1))
    kept = start_marked_chromium(chromium.Owner.current().marker(99))
    try:
        assert wait_until(lambda: orphan.poll() is None and len(psutil.Process(orphan.pid).children()) > 0)
        killed = chromium.orphans_sweep()
        assert killed >= 1
        assert orphan.wait(timeout=10) == -signal.SIGKILL
        assert kept.poll() is None
    finally:
        for proc in (orphan, kept):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert wait_until(lambda: not chromium.marked_processes(dead.pid))


def test_the_launcher_kills_chromium_when_its_parent_dies():
    """The parent-death signal alone (no control pipe here): the parent is SIGKILLed, the browser
    it launched through chromium-launcher dies with it."""
    marker = chromium.Owner.current().marker(7)
    env = chromium.launch_env("/usr/bin/chromium", marker)
    parent = subprocess.Popen(
        ["/bin/sh", "-c", f'"{chromium.LAUNCHER}" --headless {" ".join(CHROMIUM_ARGS)} about:blank & wait'],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: any(p.name() == "chromium" for p in psutil.Process(parent.pid).children()))
        browser = next(p for p in psutil.Process(parent.pid).children() if p.name() == "chromium")
        parent.kill()  # the browser's own process group is left alone
        parent.wait()
        assert wait_until(lambda: gone(browser.pid))
    finally:
        for proc in chromium.marked_processes(os.getpid()):
            try:  # a process may be exiting while we look (another test's browser): skip it
                mine = proc.environ().get(chromium.MARKER) == marker
            except psutil.Error:
                continue
            if mine:
                chromium.kill_tree(proc)


class KillAfterFirstAction(ListRecorder):
    """Journals actions (workers.journal) and kills the run's Chromium right after the first
    click is journaled as done, before its step is observed."""

    def __init__(self, pool: BrowserPool) -> None:
        super().__init__()
        self.pool, self.killed, self.journal = pool, None, []

    async def action_intent(self, entry) -> None:
        self.journal.append((entry.name, "intent"))

    async def action_done(self, entry) -> None:
        self.journal.append((entry.name, entry.status))
        if self.killed is None:
            self.killed = self.pool._browsers[0].pid
            os.kill(self.killed, signal.SIGKILL)
            for _ in range(100):  # until the pool has seen the crash
                if self.pool._browsers == [] or self.pool._browsers[0].crashed:
                    break
                await asyncio.sleep(0.05)


def test_a_crash_retry_goes_on_after_the_last_action_journaled_as_done(pools, practice_url):
    pool = pools.make(max_browsers=1, crash_policy="retry")
    spec = S.AutomationSpec.model_validate({
        "start_url": practice_url + "/lab", "allowed_domains": LOCAL,
        "steps": [{"kind": "click", "name": "Open the delayed page", "target": "Delayed content"},
                  {"kind": "click", "name": "Load", "target": "Load data"},
                  {"kind": "wait_for", "name": "Wait for the data", "text": "Data loaded", "timeout_s": 5}],
    })
    recorder = KillAfterFirstAction(pool)
    result = run_with(pools, pool, spec, recorder)

    assert result.status == "succeeded", result.reason
    assert pool.launches == 2
    # The first click was done once: the new attempt started after it, on the page it led to.
    assert [name for name, status in recorder.journal if status == "intent"] == ["Open the delayed page", "Load"]
    names = [(r.name, r.status) for r in recorder.records]
    assert names.count(("Open the delayed page", "failed")) == 1  # the lost attempt's record stays
    assert names[-2:] == [("Load", "succeeded"), ("Wait for the data", "succeeded")]
    assert [r.index for r in recorder.records] == list(range(len(recorder.records)))

