"""Choosing an option in whatever list the `select` step grounded: a native `<select>`, a
listbox of options, or a combobox that opens one.

Options are matched by their visible label as people read it (case, spacing and quote style
ignored), then by value. A list without the option fails naming the options it has.
"""

from __future__ import annotations

from playwright.async_api import Locator, Page

from workers.errors import StepError
from workers.targeting import name_pattern, normalise

_OPTIONS_JS = """el => el.options ? Array.from(el.options).map(o => [o.label, o.value]) : null"""
_OWNED_JS = """el => {
  const ids = (el.getAttribute('aria-controls') || el.getAttribute('aria-owns') || '').split(/\\s+/).filter(Boolean);
  return ids.map(id => document.getElementById(id)).filter(Boolean).map(e => e.id);
}"""


async def choose(page: Page, locator: Locator, *, option: str, what: str, timeout_s: float) -> None:
    """Select `option` in the list `locator` points at (`what` names it in errors)."""
    labels = await locator.evaluate(_OPTIONS_JS)
    if labels is not None:
        await _native(locator, labels, option=option, what=what, timeout_s=timeout_s)
        return
    role = (await locator.get_attribute("role") or "").split(" ")[0]
    if role not in ("listbox", "combobox"):
        raise StepError(f"target {what} is not a select element, listbox or combobox")
    scope: Page | Locator = locator
    if role == "combobox":
        await locator.click(timeout=timeout_s * 1000)
        owned = await locator.evaluate(_OWNED_JS)
        scope = page.locator(f"#{owned[0]}") if owned else page
    options = scope.get_by_role("option").filter(visible=True)
    wanted = options.filter(has_text=name_pattern(option, "exact")).or_(
        scope.get_by_role("option", name=name_pattern(option, "exact")))
    try:
        await wanted.first.wait_for(state="visible", timeout=timeout_s * 1000)
    except Exception:  # noqa: BLE001 - Playwright's timeout: say which options exist instead
        names = ", ".join(repr(t.strip()) for t in await options.all_inner_texts())
        raise StepError(f"option {option!r} not in {what} (options: {names or 'none visible'})") from None
    await wanted.first.click(timeout=timeout_s * 1000)


async def _native(locator: Locator, labels: list, *, option: str, what: str, timeout_s: float) -> None:
    wanted = normalise(option)
    choice = next((value for label, value in labels if normalise(label) == wanted), None)
    if choice is None:
        choice = next((value for _, value in labels if value == option), None)
    if choice is None:
        names = ", ".join(repr(label) for label, _ in labels)
        raise StepError(f"option {option!r} not in {what} (options: {names})")
    await locator.select_option(value=choice, timeout=timeout_s * 1000)
