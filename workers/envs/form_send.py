"""A click or key press that was to send a form the browser refused as invalid.

A required field left empty (a file not chosen, a box not ticked) makes the browser stop the
submission and show its own bubble ("Please select a file."); the page stays as it was and the
step would look done. `act_on_form` runs the click or key press and, when it was to send a form
and the browser's own check stopped it, fails the step at once with the browser's message for
each field: "The page did not send the form: 'Receipt': Please select a file."

How it tells: one evaluate on the element before acting finds the form it sends (a submit
button's, `form` attribute included; for Enter in a field, the form's default button) and whether
that form is invalid now. Nothing else happens unless it is (no form, `novalidate`,
`formnovalidate` or a valid form: one evaluate in all). If it is, a watch is armed in the page:
the browser's interactive check fires `invalid` at each bad field after the click's (or key's)
own dispatch is over, and `submit` if the form went; a page script that calls `checkValidity()`
from its own handler does so during a dispatch and is not counted, and a click the page cancels
(an app's own "Next" that only shows more fields) runs no check at all. A second read after the
act says what was caught. The messages come from the browser; a field's value quoted in one
("'bob' is missing an '@'") is left out, and password fields are never read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError, Locator, Page

from workers.errors import StepError
from workers.loop import bounded

READ_S = 5.0  # the most either read waits (a page busy navigating is taken as sending)
SHOWN = 5  # fields quoted at most
LABEL_CHARS = 80
MESSAGE_CHARS = 200  # a page's own message (setCustomValidity) can be any length

# (element, {click, enter}) -> whether a watch was armed. `click`: activating a submit button
# (a click; Enter or Space on the button); `enter`: Enter in a field, which sends the form through
# its default button (implicit submission).
ARM_JS = r"""
(el, args) => {
  const KEY = Symbol.for('venus.formSend');
  if (!el || el.nodeType !== 1) return false;
  const SUBMITS = ['submit', 'image'];
  const isSubmit = e => e && (e.tagName === 'BUTTON' || e.tagName === 'INPUT') && SUBMITS.includes(e.type);
  let submitter = null;
  if (args.click) {
    const b = el.closest('button, input');
    if (isSubmit(b)) submitter = b;
  }
  if (!submitter && args.enter && el.tagName === 'INPUT' && el.form
      && !['button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(el.type))
    submitter = Array.from(el.form.elements).find(isSubmit) || null;
  const form = submitter && submitter.form;
  if (!form || submitter.disabled || form.noValidate || submitter.formNoValidate) return false;
  if (Array.from(form.elements).every(e => !e.willValidate || e.validity.valid)) return false;
  let state = window[KEY];
  if (!state) {
    state = window[KEY] = {armed: null, dispatching: []};
    // Events being dispatched right now: an `invalid` fired while one is comes from a page
    // script's own checkValidity(), not from the browser refusing to send the form.
    for (const type of ['click', 'keydown', 'keypress', 'keyup', 'mousedown', 'mouseup', 'pointerup'])
      window.addEventListener(type, e => { state.dispatching = [...state.dispatching.slice(-7), e]; }, true);
    const labelOf = e => {
      const byIds = (e.getAttribute('aria-labelledby') || '').split(/\s+/)
        .map(id => id && document.getElementById(id)).filter(Boolean).map(n => n.innerText || n.textContent).join(' ');
      return [byIds, e.getAttribute('aria-label'), e.labels && e.labels.length ? e.labels[0].innerText : '',
              e.getAttribute('title'), e.getAttribute('placeholder'), e.getAttribute('name')]
        .map(s => (s || '').replace(/\s+/g, ' ').trim()).find(Boolean) || e.type || e.tagName.toLowerCase();
    };
    const messageOf = e => {
      let m = (e.validationMessage || '').replace(/\s+/g, ' ').trim();
      const v = e.type === 'password' ? '' : String(e.value || '');
      if (v) m = m.split(`'${v}'`).join("'…'");
      if (v.length >= 3) m = m.split(v).join('…');
      return m;
    };
    window.addEventListener('invalid', e => {
      const a = state.armed;
      if (!a || !e.target || e.target.form !== a.form) return;
      if (state.dispatching.some(d => d.eventPhase !== 0)) return;
      if (!a.blocked.some(b => b.el === e.target))
        a.blocked.push({el: e.target, label: labelOf(e.target), message: messageOf(e.target)});
    }, true);
    window.addEventListener('submit', e => { if (state.armed && e.target === state.armed.form) state.armed.sent = true; }, true);
  }
  state.armed = {form, blocked: [], sent: false};
  return true;
}
"""
ARM_AT_POINT_JS = f"([x, y, args]) => ({ARM_JS})(document.elementFromPoint(x, y), args)"
ARM_FOCUSED_JS = f"(args) => ({ARM_JS})(document.activeElement, args)"

# () -> [[label, message], ...] for the fields the browser refused the armed form over, or null.
READ_JS = """() => {
  const state = window[Symbol.for('venus.formSend')];
  const armed = state && state.armed;
  if (!armed) return null;
  state.armed = null;
  if (armed.sent || !armed.blocked.length) return null;
  return armed.blocked.map(b => [b.label, b.message]);
}"""


async def act_on_form(page: Page, act: Callable[[], Awaitable[None]], *, locator: Locator | None = None,
                      point: tuple[int, int] | None = None, key: str | None = None) -> None:
    """Run `act` (a click on `locator` or at `point`; with `key`, that key pressed on `locator` or
    the focused element); when it was to send a form and the browser refused the form as invalid,
    raise StepError quoting the browser's message for each field."""
    args = {"click": key is None or key in ("Enter", " ", "Space"), "enter": key == "Enter"}
    armed = False
    if args["click"]:
        armed = await _arm(page, locator, point, args)
    await act()
    if armed:
        refused = await _read(page.evaluate(READ_JS))
        if refused:
            raise StepError(refused_message(refused))


async def _arm(page: Page, locator: Locator | None, point: tuple[int, int] | None, args: dict) -> bool:
    if locator is not None:
        reading = locator.evaluate(ARM_JS, args, timeout=READ_S * 1000)
    elif point is not None:
        reading = page.evaluate(ARM_AT_POINT_JS, [point[0], point[1], args])
    else:
        reading = page.evaluate(ARM_FOCUSED_JS, args)
    return bool(await _read(reading))


async def _read(reading: Awaitable):
    """A read of the page, or None: a page that cannot answer now (a navigation under way, a
    document replaced) is not refusing a form, and the act itself reports what went wrong."""
    with contextlib.suppress(PlaywrightError, TimeoutError):
        return await bounded(reading, READ_S)
    return None


def refused_message(fields: list[list[str]]) -> str:
    """e.g. "The page did not send the form: 'Receipt': Please select a file." """
    quoted = [f"{_short(label, LABEL_CHARS)!r}: {_short(message, MESSAGE_CHARS).rstrip('.') or 'invalid'}"
              for label, message in fields[:SHOWN]]
    more = f"; and {len(fields) - SHOWN} more field(s)" if len(fields) > SHOWN else ""
    return f"The page did not send the form: {'; '.join(quoted)}{more}."


def _short(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars - 1] + "…"
