"""The step picker's job on a worker: open the page a step acts on, take a masked screenshot and
an element map, release the browser.

Contract (`picker_snapshot`): in a fresh browser context of the host (the run's egress policy:
only `allowed_domains` are reachable, credentials are typed only on their own domains), open the
automation's start URL and perform its explicit steps before the chosen one, each cleared by the
run's safety gate; a step the gate would hold for a reviewer or block is not done, and the picker
fails naming it (a picker never commits a consequential act, and never waits for a person). Then
the page is shown whole (the viewport grows to the page's height, up to `MAX_HEIGHT`), the
screenshot is taken through the run's mask (`workers.envs.masking`: fields that received a vault
value, password fields and echoed secrets are painted over), and the element map is computed
(`workers.picking`). The context is closed on every path. Failures raise `PickFailed` with a
message for people: which step failed and why, a time-out, a page outside the allowed domains.
Nothing here imports Django.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError

from workers import steps as S
from workers.envs.base import Host
from workers.errors import EnvironmentLost, StepError
from workers.gates.guard import ActionGuard
from workers.gates.review import ReviewQuestion
from workers.grounding import QUIET_JS
from workers.picking import element_map
from workers.secrets import SecretBox, scrubbing_logs
from workers.targeting import Purpose

MAX_HEIGHT = 3000  # page pixels shown; a longer page is cut there
STILL_S = 0.3  # the page's DOM unchanged this long counts as drawn
PURPOSES: dict[str, Purpose] = {"click": "click", "fill": "fill", "select": "select", "check": "check",
                                "upload": "input", "download": "click", "press": "any", "wait_for": "any", "assert": "any",
                                "extract": "any"}
_HEIGHT_JS = "() => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)"


class PickFailed(Exception):
    """The picker could not show the page; the message says which step or setting and why."""


@dataclass
class Snapshot:
    url: str
    screenshot: bytes
    width: int
    height: int
    purpose: str
    elements: list[dict[str, Any]] = field(default_factory=list)


class _NoReviews:
    """The picker's review channel: a step that needs a reviewer is not done."""

    async def open_review(self, question: ReviewQuestion) -> str:
        category = question.verdict.get("category", "")
        raise StepError(f"it needs a reviewer's approval ({category}: {question.description}); the picker does not "
                        "perform consequential steps. Pick on a step before it, or run the automation")

    async def wait_review(self, review: str, *, timeout_s: float | None):  # never reached
        return None

    async def note_review(self, review: str, facts: dict[str, Any]) -> None:
        return None


def purpose_for(kind: str) -> Purpose:
    """What the step's target must be able to do (fill: typed into, ...)."""
    return PURPOSES.get(kind, "any")


async def picker_snapshot(host: Host, spec: S.AutomationSpec, *, step: int, kind: str, params: dict[str, Any],
                          secrets: SecretBox, timeout_s: float = 90) -> Snapshot:
    """The page step `step` (0-based index into `spec.steps`; `len(spec.steps)` for a new last
    step) acts on, seen by a step of `kind`. Raises PickFailed."""
    if spec.surface != "web":
        raise PickFailed(f"the picker works on web automations; this one runs on {spec.surface!r}")
    if not spec.start_url:
        raise PickFailed("the automation has no start URL to open")
    if not 0 <= step <= len(spec.steps):
        raise PickFailed(f"there is no step {step + 1}: the automation has {len(spec.steps)} steps")
    for number, before in enumerate(spec.steps[:step + 1], start=1):
        if isinstance(before, S.BLOCKS):  # the picker replays a straight list (docs/workflows.md)
            raise PickFailed(f"step {number} is an {before.kind!r} block; the picker works on the steps before the "
                             "first block")
        if isinstance(before, S.AgentStep) and number <= step:
            raise PickFailed(f"step {number} ({before.name or 'agent'}) is an agent step; the picker replays "
                             "explicit steps only")
    secrets.default_domains = list(spec.allowed_domains)
    with scrubbing_logs(secrets):
        where = ["opening the browser"]
        try:
            async with asyncio.timeout(timeout_s):
                return await _snapshot(host, spec, step=step, kind=kind, params=params, secrets=secrets, where=where)
        except TimeoutError:
            raise PickFailed(f"the picker timed out after {timeout_s:g}s while {where[0]}") from None
        except EnvironmentLost as exc:
            raise PickFailed(secrets.scrub(f"the browser was lost while {where[0]}: {exc}")) from None


async def _snapshot(host: Host, spec: S.AutomationSpec, *, step: int, kind: str, params: dict[str, Any],
                    secrets: SecretBox, where: list[str]) -> Snapshot:
    env = await host.new_environment(allowed_domains=list(spec.allowed_domains), secrets=secrets)
    try:
        guard = ActionGuard(settings=spec.safety, allowed_domains=list(spec.allowed_domains), secrets=secrets,
                            reviews=_NoReviews(), wait_for_person=lambda ask, *budgets: ask, hold_s=None)
        executor = host.explicit_executor(env, start_url=spec.start_url, guard=guard)
        plan = [("open the start URL", S.GotoStep(url=spec.start_url))]
        plan += [(f"step {n} ({s.name or s.kind})", s) for n, s in enumerate(spec.steps[:step], start=1)]
        for label, before in plan:
            where[0] = f"doing {label}"
            await _perform(executor, before, label, params, secrets)
        where[0] = "taking the screenshot"
        return await _capture(env, purpose_for(kind))
    finally:
        await env.close()


async def _perform(executor, step, label: str, params: dict[str, Any], secrets: SecretBox) -> None:
    try:
        step = S.render_step(step, params)
    except KeyError as exc:
        raise PickFailed(f"{label} uses the parameter {exc.args[0]!r}: give it a value to pick with") from None
    except ValueError as exc:
        raise PickFailed(f"{label}: {exc}") from None
    try:
        outcome = await executor.run(step)
    except StepError as exc:
        raise PickFailed(secrets.scrub(f"{label} failed: {exc}")) from None
    if outcome.grounding.get("skipped"):
        raise PickFailed(f"{label} was not done (a reviewer's rejection)")


async def _capture(env, purpose: Purpose) -> Snapshot:
    page = env.page
    await _drawn(page)
    width = page.viewport_size["width"] if page.viewport_size else 1280
    height = min(max(int(await page.evaluate(_HEIGHT_JS)), 200), MAX_HEIGHT)
    await page.set_viewport_size({"width": width, "height": height})
    await page.evaluate("() => window.scrollTo(0, 0)")
    await _drawn(page)
    elements = await element_map(page, purpose=purpose, max_height=height)
    # Whole vault values (and encoded forms) leave the map, as from a run's grounding record; not
    # fragments: a target reading "Password" must stay usable when the secret is "demo-password".
    observation = await env.observe()  # masked exactly as a run's screenshots are
    return Snapshot(url=env.secrets.scrub(page.url), screenshot=observation.screenshot, width=width, height=height,
                    purpose=purpose, elements=env.secrets.scrub_data(elements, fragments=False))


async def _drawn(page, limit_s: float = 3.0) -> None:
    """Wait (up to limit_s) until the page's DOM has held still for STILL_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while loop.time() < deadline:
        with contextlib.suppress(PlaywrightError):  # a navigation replaced the document: wait on
            if await page.evaluate(QUIET_JS) >= STILL_S * 1000:
                return
        await asyncio.sleep(0.1)
