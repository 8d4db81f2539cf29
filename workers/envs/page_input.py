"""Raw input on a browser page, for the UI-Venus actions of `workers.envs.browser`.

- `navigation_watch`: around a raw mouse or key event, waits for the document a navigation it
  started brings (Playwright's locator actions do so themselves; raw events do not). It reads
  the navigations the page counted with `NAV_COUNTER_SCRIPT`, which the pool installs in every
  context (`workers.envs.pool`).
- `type_text`: typing that date, time and similar inputs accept.
- `select_options` / `select_focused`: a native select's options, listed for the model (its popup
  is not in screenshots) and picked by index.
- `key_name`: a model's key name ("ctrl", "esc") as Playwright spells it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError, Page

from workers.errors import StepError
from workers.loop import bounded

# Counts navigations the page begins (beforeunload fires synchronously when one starts).
# A submitted form or a followed link starts its navigation in a later task, so those are counted
# too (in the bubbling phase on window, after the page's own handlers had their chance to cancel).
NAV_COUNTER_SCRIPT = """
(() => {
  const bump = () => { window.__venusNav = (window.__venusNav || 0) + 1; };
  window.addEventListener('beforeunload', bump, true);
  window.addEventListener('submit', e => { if (!e.defaultPrevented && !(e.target && e.target.target === '_blank')) bump(); });
  window.addEventListener('click', e => {
    const a = e.target && e.target.closest ? e.target.closest('a[href]') : null;
    if (!a || e.defaultPrevented || a.target === '_blank') return;
    const url = new URL(a.href, location.href);
    if (url.href.split('#')[0] !== location.href.split('#')[0]) bump();
  });
})();
"""
NAV_COMMIT_TIMEOUT_S = 10
NAV_PROBE = "() => { const n = window.__venusNav || 0; window.__venusNav = 0; return n > 0; }"
_FOCUSED_SELECT_OPTIONS = ("() => { const el = document.activeElement; return el && el.tagName === 'SELECT' ?"
                           " Array.from(el.options).map(o => o.label) : null; }")
_KEY_NAMES = {"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "win": "Meta",
              "alt": "Alt", "shift": "Shift", "enter": "Enter", "esc": "Escape", "escape": "Escape",
              "tab": "Tab", "backspace": "Backspace", "delete": "Delete", "space": " "}


@contextlib.asynccontextmanager
async def navigation_watch(page: Page, settle: Callable[[], Awaitable[None]]):
    """Around a raw mouse or key action on `page`: if it started a navigation of the page (a form
    submit, a link, a script setting location), wait for the new document, then `settle()`,
    before the next screenshot.

    The page counts `beforeunload` events (init script), which fire synchronously when a
    navigation begins, so one round trip tells whether to wait, instead of a fixed delay."""
    committed = asyncio.Event()

    def on_navigated(frame) -> None:
        if frame == page.main_frame:
            committed.set()

    page.on("framenavigated", on_navigated)
    try:
        yield
        try:
            navigating = await page.evaluate(NAV_PROBE)
        except PlaywrightError:
            navigating = True  # the old document is already gone
        if not navigating and not committed.is_set():
            return
        try:  # bounded, not wait_for: a lane stopped by a takeover as the navigation commits stops
            await bounded(committed.wait(), NAV_COMMIT_TIMEOUT_S)
        except TimeoutError:
            pass  # cancelled, a download or a 204: the page stays where it is
        await settle()
    finally:
        page.remove_listener("framenavigated", on_navigated)


async def type_text(page: Page, text: str) -> None:
    """Type `text` into the focused element."""
    # Date, time and similar inputs ignore inserted text; they take a value through fill().
    kind = await page.evaluate("() => document.activeElement && document.activeElement.type || ''")
    if kind in {"date", "time", "datetime-local", "month", "week", "color", "range"}:
        await page.locator("*:focus").fill(text)
    else:
        await page.keyboard.insert_text(text)


async def select_options(page: Page) -> str:
    """After a click on a native select, list its options for the model (the popup is not
    in screenshots); SelectOption(index) then picks one. "" when no select is focused."""
    try:
        options = await page.evaluate(_FOCUSED_SELECT_OPTIONS)
    except PlaywrightError:
        return ""  # the click navigated away: nothing is focused any more
    if not options:
        return ""
    listed = "; ".join(f"{i}: {label}" for i, label in enumerate(options))
    return f"The clicked select has options (use SelectOption(index=n)): {listed}"


async def select_focused(page: Page, index: int) -> str:
    """Pick option `index` of the focused select; what was selected, for the model (a StepError
    when no select is focused or it has no such option)."""
    options = await page.evaluate(_FOCUSED_SELECT_OPTIONS)
    if options is None:
        raise StepError("SelectOption needs a select element: click one first")
    if index >= len(options):
        raise StepError(f"the select has {len(options)} options; index {index} does not exist")
    await page.locator("select:focus").select_option(index=index)
    return f"Selected option {index}: {options[index]}"


def key_name(key: str) -> str:
    """A model's key name ("ctrl", "esc", "a") as Playwright's keyboard spells it."""
    key = key.strip()
    return _KEY_NAMES.get(key.lower(), key if len(key) > 1 else key.lower())
