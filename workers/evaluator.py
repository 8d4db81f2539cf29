"""The step evaluator (deterministic part): did an action have its intended effect?

Contract:
- `watch_effect(env, action, act)` reads the page before the action (`env.page_state(action)`,
  when the surface has one), runs `act()` (the executor call), reads the page again and returns the
  action's outcome with an `Effect`; surfaces without `page_state` get no verdict (None).
- `judge(action, before, after, typed=...)` is pure: a click is effective when the page navigated,
  its DOM text or a control's state changed, or focus moved into a field; ineffective when its
  target was disabled, nothing changed, or the same page came back with other parameters showing
  exactly the same; an error when the new document answered HTTP 4xx/5xx, when an error message
  appeared on the same page or on the same address reloaded (a form the server sent back), or
  when the browser refused a submit for an invalid field, or when a form sent landed on a page
  showing an error named as such; ineffective too when a status message says nothing was done, a
  link to the page already shown brought it back (digits aside; from the site's navigation
  whatever the text), a GET form sent as served brought its page back but for a line, or only the
  URL's fragment changed with nothing moving; a `Type` is effective when the focused field now
  holds what was typed, at the caret wherever it was (a maxlength, a number field or a read-only
  field refusing it is not); a scroll must move the page; an error message that appeared is its
  own verdict ("error").
- The page is read first once it holds still (`env.ready()`, where the surface has it): the answer
  to an earlier action or a page still drawing after its load is not credited to this action.
- The fetch/XHR requests and websocket exchanges the action started (`env.requests_mark` /
  `requests_settled`, where the surface counts them) are waited for, `REQUEST_WAIT_S` at most,
  before the page is read again.
- Evidence never holds a field's value or typed text (it may be a secret): lengths and booleans,
  and for a secret not even lengths. Error messages are page text; the recorder scrubs them like
  every other text of a step record.
- A change of the text alone (`page_changed`) is looked at again once the page holds still: a
  "Loading" line that came and went is not an effect, what the page settles on is judged.
- A change that lands late (a handler with a timer) is waited for briefly: when nothing changed,
  the page is read again up to `LATE_READS` times `LATE_PAUSE_S` apart.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from workers import actions as A

LATE_READS = 3
LATE_PAUSE_S = 0.2
# The page's own requests (fetch, XHR) an action started are waited for this long before the page
# is read again: a form sent by script answers its errors, a modal is fetched, after the click.
REQUEST_WAIT_S = 3.0
# A form sent unchanged that brought its page back with at most this many lines differing (added
# or gone, digits aside) brought the same page back.
SAME_PAGE_LINES = 2
# A status message saying the action changed nothing ("Nothing changed, nothing saved.", "No
# changes were made", "not saved"): the app's own word that it did nothing.
NOTHING_DONE = re.compile(
    r"\b(nothing|no changes?)\b[^.!]{0,30}?\b(changed|saved|updated|modified|made|to (save|update|change))\b"
    r"|\b(was|were|has|have been|been) not (been )?(saved|changed|updated|modified)\b|\bnot saved\b", re.I)
# A message whose only number is a count of zero: "0 orders marked as shipped", "0 ordini segnati
# come spediti" (in any language: nothing was done to anything).
ZERO_COUNT = re.compile(r"(?<![\w.,:/-])0(?![\d.,:/%])\s*\w")
CLICKS = (A.Click, A.DoubleClick, A.LongPress)
CHECKED = CLICKS + (A.Type, A.PressEnter, A.Scroll, A.SelectOption, A.Drag)


@dataclass(frozen=True)
class PageState:
    """What the evaluator compares across an action. `target` and `active` describe the element
    under the action's point and the focused element (tag, disabled, checked, expanded, value
    length, maxlength...); `value` is the focused field's value (memory only, never recorded)."""

    url: str = ""
    digest: str = ""
    folded: str = ""  # the digest with digits folded (a render time, a clock)
    scroll: tuple[int, int] = (0, 0)
    target: dict[str, Any] = field(default_factory=dict)
    active: dict[str, Any] = field(default_factory=dict)
    value: str | None = None
    errors: tuple[str, ...] = ()
    strong_errors: tuple[str, ...] = ()  # of `errors`, those named errors (not warnings)
    red_errors: tuple[str, ...] = ()  # of `errors`, those known only by their red beside a form's field
    notices: tuple[str, ...] = ()  # status messages of any kind (flash, toast, role=status)
    lines: frozenset[str] = frozenset()  # digests of the visible text's lines, digits folded
    bare: str = ""  # the text's digest without open lists (list boxes, menus) and tooltips
    invalid: tuple[str, ...] = ()
    document: str = ""  # the document's identity: a navigation or a reload makes a new one
    status: int = 0  # the HTTP status the document was served with (0: unknown)

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}{parts.path}"


@dataclass(frozen=True)
class Effect:
    """An action's verdict: `verdict` is "effective", "ineffective" or "error" (an error message
    appeared); `check` names the check that decided; `evidence` what it saw."""

    verdict: str
    check: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def effective(self) -> bool:
        return self.verdict == "effective"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


async def watch_effect(env, action: A.ActionModel, act: Callable[[], Awaitable[Any]]) -> tuple[Any, Effect | None]:
    """Run `act()` (which executes `action` on `env`) between two reads of the page; its result
    and the verdict (None when the action or the surface is not checked)."""
    probe = getattr(env, "page_state", None)
    if probe is None or not isinstance(action, CHECKED):
        return await act(), None
    ready = getattr(env, "ready", None)
    if ready is not None:  # what an earlier action or the page's loading still draws is not this action's effect
        await ready()
    before = await _read(probe, action)
    mark = getattr(env, "requests_mark", None)
    since = mark() if mark is not None else None
    outcome = await act()
    if since is not None:  # what the action asked the server for (a form sent by script, a modal fetched)
        await env.requests_settled(since, REQUEST_WAIT_S)
    after = await _read(probe, action)
    settle = getattr(env, "settle", None)
    if after is None and before is not None and settle is not None:  # read mid-navigation (a POST's redirect)
        try:
            await settle()
        except Exception:  # the new document never came: no verdict
            return outcome, None
        after = await _read(probe, action)
    if before is None or after is None:
        return outcome, None
    typed = getattr(env, "last_typed", None) if isinstance(action, A.Type) else None
    answered = getattr(env, "requests_answers", None)

    def answers() -> tuple[int, ...]:
        return tuple(answered(since)) if answered is not None and since is not None else ()

    effect = judge(action, before, after, typed=typed, answers=answers())
    if effect.check == "page_changed" and ready is not None:
        # Only the text changed: once the page holds still, is the change still there? A status
        # line the app shows while it works ("Loading", a progress tracker) that goes away again
        # is not the action's effect; what the page settles on is.
        await ready()
        settled = await _read(probe, action)
        if settled is not None and settled.digest != after.digest:
            effect = judge(action, before, settled, typed=typed, answers=answers())
    for _ in range(LATE_READS):
        if effect.verdict != "ineffective" or isinstance(action, A.Type):
            break
        await asyncio.sleep(LATE_PAUSE_S)
        if since is not None:  # a request whose event came in after the first look
            await env.requests_settled(since, REQUEST_WAIT_S)
        later = await _read(probe, action)
        if later is None:
            break
        effect = judge(action, before, later, typed=typed, answers=answers())
    return outcome, effect


async def _read(probe, action: A.ActionModel) -> PageState | None:
    try:
        return await probe(action)
    except Exception:  # a page mid-navigation has nothing to read: no verdict rather than a wrong one
        return None


def judge(action: A.ActionModel, before: PageState, after: PageState, *, typed: str | None = None,
          answers: tuple[int, ...] = ()) -> Effect:
    """The verdict on `action` from the page before and after it (pure; see the module contract);
    `answers`: the HTTP statuses of the fetch/XHR requests the action started."""
    new_errors = [e for e in after.errors if e not in before.errors]
    if not _submitted(action, before):  # red beside a field says "refused" only when a form was sent
        new_errors = [e for e in new_errors if e not in after.red_errors or e in after.strong_errors]
    if isinstance(action, A.Type):
        return _judge_type(action, before, after, typed, new_errors)
    if new_errors and _went_well_with_warnings(before, after, new_errors):
        new_errors = []
    reloaded = after.document != before.document or _page(after.url) != _page(before.url)
    if reloaded and after.status >= 400:
        return Effect("error", "http_status", {"status": after.status})
    # A page routed by script (no new document) whose data the server refused: the app's error page.
    failed = [s for s in answers if s >= 400]
    if reloaded and after.document == before.document and failed and len(failed) == len(answers):
        return Effect("error", "http_status", {"status": failed[0], "routed": True})
    # A new document at the same address with an error on it is the form sent back (a server-side
    # validation error); a different page may show its own warnings after a success, but not an
    # error after a submit (a search refused, a form answered on a page of its own).
    if new_errors and (not reloaded or after.path == before.path):
        return Effect("error", "error_message", {"errors": new_errors[:3], "reloaded": reloaded})
    strong = [e for e in after.strong_errors if e not in before.errors]
    if reloaded and strong and _submitted(action, before):
        return Effect("error", "error_message", {"errors": strong[:3], "reloaded": True, "submitted": True})
    # A form sent from one page (a modal's) and answered at its own address with a new error or
    # warning: the form the server sent back.
    action_url = _sent_form(action, before).get("action") or ""
    if reloaded and new_errors and action_url and _page(after.url) == _page(action_url):
        return Effect("error", "error_message", {"errors": new_errors[:3], "reloaded": True, "submitted": True})
    said = [n for n in after.notices if n not in before.notices and _says_nothing_done(n)]
    if said:
        return Effect("ineffective", "nothing_done_message", {"message": said[0]})
    if reloaded:
        # The same page served again (a form sent back as it was, an empty search, a filter that
        # changed nothing) showing exactly what it showed: nothing happened that the user can see.
        # A save that answers with the same page and no message looks the same: the step judge
        # is asked on this verdict when configured (`workers.step_judge.WEAK_CHECKS`).
        if after.path == before.path and (after.digest == before.digest or (after.bare and after.bare == before.bare)):
            return Effect("ineffective", "reloaded_unchanged", {})
        # A link to the page already shown (a GET changes nothing on the server) that brought the
        # same text back, a clock or a render time aside; one in the site's navigation (a menu,
        # a header) whatever the text, which differs by the menu it was clicked in.
        link = before.target.get("href") or ""
        if _page(after.url) == _page(before.url) == _page(link) and (
                before.target.get("in_nav") or (after.folded and after.folded == before.folded)):
            return Effect("ineffective", "same_page_link", {})
        # A search or filter form sent as the page served it (nothing typed, chosen or ticked)
        # back to the same page, which came back the same but for a line (a sort order named, a
        # time): the same query again. A form whose hidden fields ask for more (a reply box) shows more.
        form = _sent_form(action, before)
        if form.get("method") == "get" and form.get("pristine") and after.path == before.path:
            changed = len(before.lines ^ after.lines)
            if changed <= SAME_PAGE_LINES:
                return Effect("ineffective", "form_sent_unchanged", {"lines_changed": changed})
        return Effect("effective", "navigation", {"url_changed": after.url != before.url})
    moved = after.scroll != before.scroll
    if after.url != before.url and (moved or after.digest != before.digest):  # an in-page link that went somewhere
        return Effect("effective", "navigation", {"url_changed": True, "scrolled": moved})
    if isinstance(action, A.Scroll):
        if after.scroll != before.scroll:
            return Effect("effective", "scrolled", {"before": list(before.scroll), "after": list(after.scroll)})
        return Effect("ineffective", "nothing_scrolled", {"scroll": list(after.scroll)})
    changed = _state_changes(before.target, after.target)
    if changed:
        return Effect("effective", "element_state", {"changed": changed})
    # The option already chosen, picked again: its list closed and the rest of the page is as it was.
    if isinstance(action, CLICKS) and _chosen_option(before.target) and after.bare == before.bare:
        return Effect("ineffective", "option_already_selected", {})
    # A link in the site's navigation to the page already shown, routed by the page's script (no
    # new document): the same page but for a line or two (what hovering the menu shows).
    link = before.target.get("href") or ""
    if (link and before.target.get("in_nav") and _page(after.url) == _page(before.url) == _page(link)
            and len(before.lines ^ after.lines) <= SAME_PAGE_LINES):
        return Effect("ineffective", "same_page_link", {})
    if after.digest != before.digest:
        return Effect("effective", "page_changed", {})
    # A submit the browser refused for an invalid field (it focuses that field: not a click's effect).
    # (a field already invalid before: a form, a modal, that the action only showed is not refused)
    refused = [f for f in after.invalid if f in before.invalid]
    if refused and ((isinstance(action, A.PressEnter) and before.active.get("form")) or _submits(before.target)):
        return Effect("error", "form_invalid", {"invalid_fields": refused[:5]})
    # Focus moving into a field or a select is what a click on it is for; a button taking focus is not.
    if after.active.get("key") != before.active.get("key") and (after.active.get("editable")
                                                                 or after.active.get("tag") == "select"):
        return Effect("effective", "focus_moved", {"focused": after.active.get("tag", "")})
    if isinstance(action, CLICKS) and before.target.get("disabled"):
        return Effect("ineffective", "target_disabled", {"target": _describe(before.target)})
    # ... or a click on a control of a form (not a link or a button outside any form: a required
    # field elsewhere on the page is not what it sent).
    if refused and before.target.get("form") and isinstance(action, CLICKS):
        return Effect("error", "form_invalid", {"invalid_fields": refused[:5]})
    return Effect("ineffective", "nothing_changed", {"target": _describe(before.target)})


def _judge_type(action: A.Type, before: PageState, after: PageState, typed: str | None,
                new_errors: list[str]) -> Effect:
    secret = typed is not None and typed != action.content  # a vault value: no lengths either
    text = action.content if typed is None else typed
    if not after.active.get("editable"):
        return Effect("ineffective", "no_field_focused", {"focused": after.active.get("tag", "")})
    same_field = before.active.get("key") == after.active.get("key")
    expected = (before.value or "") + text if same_field else text
    ok = after.value is not None and (after.value == expected or after.value.endswith(text)
                                      or (same_field and _inserted(before.value or "", after.value, text)))
    evidence: dict[str, Any] = {"matches": ok, "secret": secret}
    if not secret:
        evidence.update(expected_length=len(expected), length=len(after.value or ""))
    if after.active.get("maxlength", -1) not in (-1, None):
        evidence["maxlength"] = after.active["maxlength"]
    if after.active.get("readonly"):
        evidence["readonly"] = True
    if new_errors:
        return Effect("error", "error_message", {**evidence, "errors": new_errors[:3]})
    return Effect("effective" if ok else "ineffective", "field_value", evidence)


def _inserted(before: str, after: str, text: str) -> bool:
    """Whether `after` is `before` with `text` typed in at the caret, wherever it was (a textarea's
    line ends may come back as \\n)."""
    before, after, text = (v.replace("\r\n", "\n") for v in (before, after, text))
    if len(after) != len(before) + len(text):
        return False
    at = after.find(text)
    while at != -1:
        if after[:at] + after[at + len(text):] == before:
            return True
        at = after.find(text, at + 1)
    return False


STATE_KEYS = ("checked", "aria_checked", "expanded", "selected", "open", "pressed", "value_length", "selected_index",
              "marked", "disabled")


def _went_well_with_warnings(before: PageState, after: PageState, new_errors: list[str]) -> bool:
    """Whether the new messages are warnings only (none named an error), shown beside a new status
    message that is none of them ("Stored 1 entries." and "File change detected") or with the
    clicked control's own state changed: it went well, with a warning."""
    if any(e in after.strong_errors for e in new_errors):
        return False
    if after.document == before.document and _state_changes(before.target, after.target):
        return True  # the control clicked changed (a save button greyed out)
    return any(n not in before.notices and n not in after.errors and not any(e in n for e in new_errors)
               and not NOTHING_DONE.search(n) for n in after.notices)


def _chosen_option(target: dict[str, Any]) -> bool:
    """An option already chosen: `role=option` with `aria-selected`, or a drop-down's option whose
    class says `selected` (selectize, select2)."""
    if target.get("role") == "option":
        return target.get("selected") == "true"
    return bool(target.get("in_dropdown")) and any(w.lower().endswith("selected") for w in
                                                   (target.get("marked") or "").split())


def _says_nothing_done(message: str) -> bool:
    return bool(NOTHING_DONE.search(message)) or (bool(ZERO_COUNT.search(message))
                                                   and not re.search(r"[1-9]", message))


def _page(url: str) -> str:
    return url.split("#")[0]


def _submitted(action: A.ActionModel, before: PageState) -> bool:
    """Whether the action sent a form: Enter in a field, or a click on a submit button."""
    if isinstance(action, A.PressEnter):
        return bool(before.active.get("editable"))
    return isinstance(action, CLICKS) and _submits(before.target)


def _sent_form(action: A.ActionModel, before: PageState) -> dict[str, Any]:
    """The form the action sent (method, pristine), or {}."""
    if not _submitted(action, before):
        return {}
    return (before.active if isinstance(action, A.PressEnter) else before.target).get("form") or {}


def _submits(target: dict[str, Any]) -> bool:
    return target.get("type") in ("submit", "image") and target.get("tag") in ("button", "input")


def _state_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    if not before or before.get("key") != after.get("key"):
        return []
    return [k for k in STATE_KEYS if before.get(k) != after.get(k)]


def _describe(target: dict[str, Any]) -> dict[str, Any]:
    return {k: target[k] for k in ("tag", "role", "disabled", "name") if target.get(k) not in (None, "")}


def worst(effects: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The turn's summary verdict: the first error or ineffective action, else the last effective one."""
    for verdict in ("error", "ineffective"):
        for effect in effects:
            if effect.get("verdict") == verdict:
                return effect
    return effects[-1] if effects else None
