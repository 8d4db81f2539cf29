"""The browser pool (`workers.envs.pool`) when Chromium fails, with real Chromium processes
against the practice site: a browser that stops answering or goes deaf, a browser killed under a
run, the crash retry policy and where a retried run goes on. Bounds, recycling, contexts and
shutdown are in test_pool.py, whose `pools` fixture (every test ends with no Chromium of its pool
left running) these tests share.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from tests.helpers.runtime import ListRecorder, local_secrets
from tests.runtime.test_pool import LOCAL, Pools, gone, open_envs, pools, wait_until  # noqa: F401 (pools: fixture)
from workers import steps as S
from workers.envs.egress_guard import EgressGuard
from workers.envs.pool import BrowserPool
from workers.errors import EnvironmentLost
from workers.runner import Runner

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

