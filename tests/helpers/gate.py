"""The safety gate in a real Chromium, for tests: a module Chromium whose `page()` opens a fresh
context (signed in to the practice site, a mug in the cart, on request), the gate's judgement of
a probe, an in-memory recorder with a review queue, and the practice checkout run through the
production `Runner` with a `SafetyGate`. Use `browser = gate.browser` in a test module.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.helpers import runtime
from tests.helpers.definitions import checkout_steps
from workers import steps as S
from workers.agent import AgentLoop
from workers.envs.browser import BrowserEnvironment
from workers.gates.context import build_context
from workers.gates.guard import SafetyGate
from workers.gates.review import ReviewDecision, ReviewQuestion
from workers.gates.safety import SafetyPolicy, classify
from workers.items import ItemRecord
from workers.runner import RunResult, Runner, StepRecord
from workers.secrets import Credential, SecretBox

PASSWORD = "demo-password"
CARD = {"name": "Ada Lovelace", "number": "4242 4242 4242 4242", "expiry": "12/39", "cvc": "123"}


def secrets() -> SecretBox:
    return SecretBox({
        "acme": Credential("acme", {"username": "demo", "password": PASSWORD}, domains=["127.0.0.1"]),
        "card": Credential("card", CARD, domains=["127.0.0.1"]),
    })


class Browser(runtime.Browser):
    """A module Chromium whose pages can start signed in to the practice site."""

    def page(self, body: Callable[[BrowserEnvironment], Awaitable], *, signed_in: bool = True, cart: bool = False) -> Any:
        """body(env) in a fresh context, signed in (and with a product in the cart) if asked."""

        async def main():
            env = await self.host.new_environment(allowed_domains=["127.0.0.1"], secrets=secrets())
            try:
                if signed_in:
                    await env.page.goto(self.base_url + "/login")
                    await env.page.fill("#username", "demo")
                    await env.page.fill("#password", PASSWORD)
                    await env.page.click("button[type=submit]")
                    await env.page.wait_for_url("**/expenses/new")
                if cart:
                    await env.page.goto(self.base_url + "/shop")
                    await env.page.get_by_role("button", name="Add to cart").first.click()
                    await env.page.wait_for_load_state()
                return await body(env)
            finally:
                await env.close()

        return self.run(main())


@pytest.fixture(scope="module")
def browser(practice_url) -> Iterator[Browser]:
    with runtime.open_browser(practice_url, Browser) as opened:
        yield opened


def judge(probe, fields: dict | None = None, policy: SafetyPolicy | None = None):
    ctx = build_context(probe, fields or {"action_type": "click"}, allowed_domains=["127.0.0.1"],
                        credential_domains=["127.0.0.1"])
    return classify(ctx, policy or SafetyPolicy(allowed_domains=["127.0.0.1"]))


@dataclass
class ReviewRecorder:
    """An in-memory RunRecorder with a review queue: `decide(question)` answers each review
    (a ReviewDecision, or a coroutine function returning one) after `delay_s` seconds."""

    decide: Callable[[ReviewQuestion], Any] = lambda q: ReviewDecision("approve", decided_by="rita")
    delay_s: float = 0.0
    records: list[StepRecord] = field(default_factory=list)
    questions: list[ReviewQuestion] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    opened: dict[str, float] = field(default_factory=dict)
    decided_at: list[float] = field(default_factory=list)
    pending: str = ""  # a resumed run's review: the first question filed gets it back
    items: list[ItemRecord] = field(default_factory=list)

    async def record_step(self, record: StepRecord) -> None:
        self.records.append(record)

    async def record_item(self, record: ItemRecord) -> None:
        self.items.append(record)

    async def heartbeat(self) -> bool:
        return True

    async def open_review(self, question: ReviewQuestion) -> str:
        if self.pending:
            ref, self.pending = self.pending, ""
            return ref
        self.questions.append(question)
        ref = str(len(self.questions))
        self.opened[ref] = time.monotonic()
        return ref

    async def wait_review(self, review: str, *, timeout_s: float | None) -> ReviewDecision | None:
        remaining = self.opened[review] + self.delay_s - time.monotonic()
        if timeout_s is not None and remaining > timeout_s:
            await asyncio.sleep(timeout_s)
            return None
        await asyncio.sleep(max(remaining, 0))
        decision = self.decide(self.questions[int(review) - 1])
        if asyncio.iscoroutine(decision):
            decision = await decision
        self.decided_at.append(time.monotonic())
        return decision

    async def note_review(self, review: str, facts: dict) -> None:
        self.notes.append({"review": review, **facts})


def checkout_spec(base_url: str, *extra: dict, card_number: str = "{{credentials.card.number}}",
                  safety: dict | None = None, **spec: Any) -> S.AutomationSpec:
    """Sign in, put a mug in the cart, fill the checkout form and place the order."""
    steps = checkout_steps(card=card_number, cvc="{{credentials.card.cvc}}", holder="{{credentials.card.name}}",
                           expiry="{{credentials.card.expiry}}", login="acme", placed=False)
    return S.AutomationSpec.model_validate({
        "start_url": base_url + "/login", "allowed_domains": ["127.0.0.1"], "steps": [*steps, *extra],
        "safety": safety or {}, **spec,
    })




def run_gated(browser: Browser, spec: S.AutomationSpec, recorder: ReviewRecorder, *, hold_s: float = 600.0,
              agent: AgentLoop | None = None) -> RunResult:
    httpx.post(browser.base_url + "/api/reset")
    runner = Runner({"web": browser.host}, agent=agent, safety=SafetyGate(hold_s=hold_s))
    return browser.run(runner.run(spec, params={}, secrets=secrets(), recorder=recorder))


def orders(browser: Browser) -> list[dict]:
    return httpx.get(browser.base_url + "/api/orders").json()


def step_named(recorder: ReviewRecorder, name: str) -> StepRecord:
    return next(r for r in recorder.records if r.name == name)
