"""The browser pool (`workers.envs.pool`) with real Chromium processes against the practice site:
bounds, recycling, contexts, shutdown and orphans (crashes and health checks: test_pool_crashes.py).

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

from tests.helpers.runtime import local_secrets
from workers.envs import browser as browser_module, chromium
from workers.envs.browser import CHROMIUM_ARGS, BrowserConfig
from workers.envs.pool import BrowserPool, PoolSettings
from workers.errors import EnvironmentLost

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


def test_a_context_the_browser_never_closes_frees_its_slot_and_retires_that_browser(pools, monkeypatch):
    """Chromium sometimes never answers disposing a context: the run's close ends after
    CONTEXT_CLOSE_TIMEOUT_S, its slot is free again, the browser takes no new context and is
    closed once its other contexts have; the next run gets a fresh browser."""
    monkeypatch.setattr(browser_module, "CONTEXT_CLOSE_TIMEOUT_S", 0.5)
    pool = pools.make(max_browsers=1, contexts_per_browser=2)

    async def never_answers(*args, **kwargs):
        await asyncio.sleep(3600)

    async def body():
        stuck, other = await open_envs(pool, 2)
        first = pool._browsers[0]
        stuck.context.close = never_answers
        started = time.monotonic()
        await stuck.close()
        took, why, load = time.monotonic() - started, first.draining, first.load
        await other.close()
        (later,) = await open_envs(pool, 1)
        fresh = pool._browsers[0] is not first
        await later.close()
        return took, why, load, fresh, first.pid, pool.launches

    took, why, load, fresh, old_pid, launches = pools.run(body())
    assert 0.5 <= took < 3
    assert why == "a context did not close in time" and load == 1  # the stuck context's slot is free
    assert fresh and launches == 2
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
