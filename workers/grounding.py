"""Grounding explicit steps on the DOM, without a model.

A target is looked up in tiers, most specific first; the first tier with any visible match
decides. One match: act on it. Several: a clear "ambiguous" error naming them (use `nth` or a
role to choose). None after the step's timeout: a clear "not found" error.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Literal

from playwright.async_api import Locator, Page

from workers.errors import StepError
from workers.steps import Target

Purpose = Literal["click", "input", "any"]
CLICK_ROLES = ("button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch")
INPUT_ROLES = ("textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio", "listbox", "slider", "switch")
POLL_S = 0.1


@dataclass
class Grounded:
    locator: Locator
    strategy: str
    box: dict | None = None

    def record(self) -> dict:
        return {"strategy": self.strategy, "box": self.box}


def _roles_union(page: Page, roles: tuple[str, ...], name: str, exact: bool) -> Locator:
    locator = page.get_by_role(roles[0], name=name, exact=exact)
    for role in roles[1:]:
        locator = locator.or_(page.get_by_role(role, name=name, exact=exact))
    return locator


def _tiers(page: Page, target: Target, purpose: Purpose) -> list[tuple[str, Locator]]:
    """Candidate locators in order of preference."""
    if target.css:
        return [(f"css {target.css!r}", page.locator(target.css))]
    if target.role:
        return [(f"role {target.role} {target.name!r}", page.get_by_role(target.role, name=target.name, exact=True))
                if target.name else (f"role {target.role}", page.get_by_role(target.role))]
    if target.label:
        return [(f"label {target.label!r}", page.get_by_label(target.label, exact=True)),
                (f"label ~{target.label!r}", page.get_by_label(target.label))]
    if target.placeholder:
        return [(f"placeholder {target.placeholder!r}", page.get_by_placeholder(target.placeholder, exact=True))]
    text = target.text or ""
    by_label = page.get_by_label(text, exact=True).or_(page.get_by_placeholder(text, exact=True))
    if purpose == "input":
        return [
            (f"label {text!r}", by_label),
            (f"input named {text!r}", _roles_union(page, INPUT_ROLES, text, True)),
            (f"label ~{text!r}", page.get_by_label(text).or_(page.get_by_placeholder(text))),
        ]
    tiers = [
        (f"control named {text!r}", _roles_union(page, CLICK_ROLES, text, True)),
        (f"label {text!r}", by_label),
        (f"text {text!r}", page.get_by_text(text, exact=True)),
        (f"control named ~{text!r}", _roles_union(page, CLICK_ROLES, text, False)),
        (f"text ~{text!r}", page.get_by_text(text)),
    ]
    return tiers


async def _describe(locator: Locator, count: int) -> str:
    described = []
    for i in range(min(count, 5)):
        item = locator.nth(i)
        info = await item.evaluate(
            "el => (el.getAttribute('role') || el.tagName.toLowerCase()) + ' ' +"
            " JSON.stringify((el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 40))"
        )
        described.append(info)
    more = f" and {count - 5} more" if count > 5 else ""
    return ", ".join(described) + more


async def locate_all(page: Page, target: Target, *, purpose: Purpose, timeout_s: float) -> tuple[str, Locator, int]:
    """The first tier with visible matches: (strategy, locator, count), waiting up to timeout_s."""
    deadline = time.monotonic() + timeout_s
    tiers = [(name, loc.filter(visible=True)) for name, loc in _tiers(page, target, purpose)]
    while True:
        for strategy, locator in tiers:
            count = await locator.count()
            if count:
                return strategy, locator, count
        if time.monotonic() >= deadline:
            raise StepError(f"target {target.describe()} not found on {page.url} after {timeout_s:g}s")
        await asyncio.sleep(POLL_S)


async def locate(page: Page, target: Target, *, purpose: Purpose, timeout_s: float, with_box: bool = True) -> Grounded:
    """Find exactly one visible element for target, waiting up to timeout_s for it to appear."""
    strategy, locator, count = await locate_all(page, target, purpose=purpose, timeout_s=timeout_s)
    if target.nth is not None:
        if target.nth >= count:
            raise StepError(f"target {target.describe()} has {count} matches; nth={target.nth} does not exist")
        return await _grounded(locator.nth(target.nth), f"{strategy} #{target.nth}", with_box)
    if count > 1:
        raise StepError(
            f"target {target.describe()} is ambiguous: {count} matches ({await _describe(locator, count)}); "
            "name a role or set nth"
        )
    return await _grounded(locator, strategy, with_box)


async def _grounded(locator: Locator, strategy: str, with_box: bool) -> Grounded:
    box = await locator.bounding_box() if with_box else None
    if box is not None:
        box = {k: round(v, 1) for k, v in box.items()}
    return Grounded(locator=locator, strategy=strategy, box=box)
