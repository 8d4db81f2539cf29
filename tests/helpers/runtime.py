"""The runtime in a real Chromium, for tests: one `BrowserPool` per test module on its own event
loop, a fresh isolated browser context per test (through `BrowserPool.new_environment`, exactly as
runs get theirs), steps parsed as automations are, and an in-memory run recorder.

Use the module-scoped fixture with `browser = runtime.browser` in a test module (or
`open_browser()` for a subclass of `Browser` with helpers of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import TypeAdapter

from workers import steps as S
from workers.envs.browser import BrowserConfig, BrowserEnvironment
from workers.envs.pool import BrowserPool
from workers.errors import StepError
from workers.executor import ExplicitExecutor
from workers.items import Item, ItemRecord
from workers.loop import tasks_waiting
from workers.runner import Runner, RunRecorder, StepRecord
from workers.secrets import Credential, SecretBox

STEP = TypeAdapter(S.Step)
HANG_DUMP_S = 200  # under pytest.ini's 300 s timeout
PASSWORD = "demo-password"  # the practice site's demo user


def step(**data) -> Any:
    return STEP.validate_python(data)


def local_secrets(domains: list[str] | None = None) -> SecretBox:
    domains = ["127.0.0.1"] if domains is None else domains
    return SecretBox({"acme": Credential("acme", {"username": "demo", "password": PASSWORD}, domains=domains)})


def dump_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Print every task on `loop` and where it waits to stderr (called from a timer thread: a
    diagnostic read, racing the loop at worst)."""
    print(f"=== tasks on the test's loop after {HANG_DUMP_S}s ===\n" + tasks_waiting(loop), file=sys.stderr, flush=True)


@dataclass
class Browser:
    """Runs coroutines on the module's event loop, where its Chromium lives."""

    loop: asyncio.AbstractEventLoop
    host: BrowserPool
    base_url: str

    def run(self, coro: Awaitable) -> Any:
        """Run `coro` on the module's loop. One that is still running after HANG_DUMP_S prints
        every task's stack on the loop (pytest-timeout shows only threads, and a hung run's
        thread only waits in the selector)."""
        timer = threading.Timer(HANG_DUMP_S, dump_tasks, (self.loop,))
        timer.daemon = True
        timer.start()
        try:
            return self.loop.run_until_complete(coro)
        finally:
            timer.cancel()

    def session(self, body: Callable[[BrowserEnvironment, ExplicitExecutor], Awaitable], *,
                allowed_domains: list[str] | None = None, secrets: SecretBox | None = None) -> Any:
        """Run body(env, executor) in a fresh browser context, closed afterwards."""

        async def main():
            env = await self.host.new_environment(
                allowed_domains=["127.0.0.1"] if allowed_domains is None else allowed_domains,
                secrets=secrets or local_secrets(),
            )
            try:
                return await body(env, ExplicitExecutor(env, start_url=self.base_url))
            finally:
                await env.close()

        return self.run(main())


@contextlib.contextmanager
def open_browser(base_url: str, cls: type[Browser] = Browser) -> Iterator[Browser]:
    """One Chromium (a BrowserPool allowed to reach loopback) on a new event loop."""
    loop = asyncio.new_event_loop()
    host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
    try:
        yield cls(loop, host, base_url)
    finally:
        loop.run_until_complete(host.close())
        loop.close()


@pytest.fixture(scope="module")
def browser(practice_url) -> Iterator[Browser]:
    with open_browser(practice_url) as opened:
        yield opened


async def expect_error(coro: Awaitable) -> str:
    with pytest.raises(StepError) as info:
        await coro
    return str(info.value)


@dataclass
class ListRecorder:
    """An in-memory RunRecorder: keeps every record; heartbeat answers `alive`."""

    alive: bool = True
    records: list[StepRecord] = field(default_factory=list)
    heartbeats: int = 0
    items: list[ItemRecord] = field(default_factory=list)

    async def record_step(self, record: StepRecord) -> None:
        self.records.append(record)

    async def record_item(self, record: ItemRecord) -> None:
        self.items.append(record)

    async def heartbeat(self) -> bool:
        self.heartbeats += 1
        return self.alive


def run_spec(browser: Browser, spec: S.AutomationSpec, recorder: ListRecorder | None = None, *,
             params: dict | None = None, heartbeat_s: float = 5.0, items: list[Item] | None = None,
             resume: Any = None):
    """Run spec through the production Runner on the module's pool: (result, recorder, seconds)."""
    recorder = recorder or ListRecorder()
    typed: RunRecorder = recorder  # ListRecorder implements the protocol structurally
    t0 = time.monotonic()
    result = browser.run(
        Runner({"web": browser.host}, heartbeat_s=heartbeat_s).run(
            spec, params={"user": "demo"} if params is None else params, secrets=local_secrets(), recorder=typed,
            items=items, resume=resume)
    )
    return result, recorder, time.monotonic() - t0
