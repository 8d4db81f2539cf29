"""Lead-ins and commits: one review per consequential act (issue 12).

A consequential act is committed by ONE control: the button that submits the form (a "Place
order", the "Yes, I'm sure" of a confirmation page). The steps that lead to it commit nothing and
are not reviewed, judged from what the page shows:

- a link to a page of the same site: following it is a GET, which by HTTP's contract changes
  nothing ("Delete" that opens "Are you sure?", "Continue to payment");
- a button that submits a GET form ("Delete account" on a page whose form goes to the
  confirmation page);
- a control that opens a dialog, menu or popover instead of acting (aria-haspopup, a modal toggle);
- choosing an option in a native select that no script watches (Django admin's action chooser
  before "Go"): changing it submits nothing;
- a menu item that is a same-site `<a href>` (Wagtail's "Delete" menu item), like any link;
- typing into a field of a form that has a submit control: the submit is the commit, and its
  review shows every field's value (masked where secret).

Where the page does not say, the action is judged as before: an uncertain lead-in is reviewed
(a missed commit is worse than one extra review). Inline script or framework hooks (onclick,
data-method, hx-post, href "#"), a token or nonce in a link's address (a state-changing GET),
a destination outside the page's site, and prohibited findings (R4) are never lead-ins.

`form_commit` is the other half: once typing is not reviewed, the submit of a form holding card
details is a payment commit whatever its label says ("Save", "Continue").
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from workers.gates.safety import labels
from workers.gates.safety.fields import card_like
from workers.gates.safety.text import norm
from workers.gates.safety.urls import host_of, resolve
from workers.gates.safety.verdict import Finding
from workers.gates.safety.view import View

_CLICKS = ("click", "double_click", "submit")
# Query keys that make a GET change state: CSRF tokens, nonces, signatures, one-shot confirmations.
_STATEFUL_KEY = re.compile(r"^_?(?:csrf\w*|xsrf\w*|token|authenticity_token|nonce|_?wpnonce|sig|signature|hmac|otp)$", re.I)
_CONFIRMED = re.compile(r"^(?:confirm(?:ed)?|really|force|yes|do|execute|commit)$", re.I)
_OPENS = {"dialog", "menu", "listbox", "tree", "grid", "true", "popover", "modal", "dropdown", "collapse", "tab"}


def lead_in(v: View, final: Finding) -> str:
    """Why this action only leads to a commit ("" when it may be the commit or the page does
    not say). Only consulted for consequential findings below R4."""
    if final.level >= 4 or final.out_of_scope or v.ctx.surface != "web":
        return ""
    t = v.ctx.target
    kind = v.ctx.action_type
    if t is None or t.scripted or t.hidden:
        return ""
    if kind in _CLICKS:
        if t.opens.lower() in _OPENS and t.form_method.lower() != "post":
            return f"It opens a {t.opens.lower() if t.opens.lower() != 'true' else 'menu'}; the commit, if any, is made inside it."
        if (v.kind == "link" or t.tag.lower() == "a") and t.href and not t.form_method:  # a menu item that is an <a href> too
            return _get_link(v, t.href)
        if t.form_method.lower() == "get" and v.kind == "button":
            return _get_link(v, t.form_action or v.ctx.url, form=True)
        return ""
    if kind == "select" and t.tag.lower() == "select":  # a native select without a script submits nothing on change
        return "Choosing an option only fills the form; its submit is the commit, reviewed with the values chosen."
    if kind == "type" and not v.ctx.typed_text.endswith("\n") and _has_submit(v) and not _secret_finding(final):
        return (f"Typing only fills the form; its submit ('{v.ctx.form_submit or 'submit'}') is the commit, reviewed "
                "with the values typed (secrets masked).")
    return ""


def _has_submit(v: View) -> bool:
    t = v.ctx.target
    return bool(v.ctx.form_submit) and t is not None and t.form_method.lower() in ("get", "post")


def _secret_finding(final: Finding) -> bool:
    # A secret (API key, private key) typed into a page is data leaving the run: still reviewed here.
    return any(e.signal.startswith("value.") and e.signal not in ("value.card_number", "value.credential_placeholder")
               for e in final.evidence)


def _get_link(v: View, href: str, *, form: bool = False) -> str:
    url = resolve(href, v.ctx.url)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or (not parts.path.strip("/") and not parts.query and href.startswith("#")):
        return ""
    if host_of(url) != v.host:
        return ""  # another site: what it does there is not on this page
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if _STATEFUL_KEY.match(key) or (_CONFIRMED.match(key) and value.lower() in ("", "1", "yes", "true", "y", "on")):
            return ""
    what = "submits a GET form" if form else "follows a link"
    return f"It {what} to {parts.path or '/'} on this site, which only opens a page; the commit, if any, is made there."


def form_commit(v: View) -> tuple[str, str] | None:
    """(category, reason) when a click submits a form whose filled fields make it a commit."""
    t = v.ctx.target
    if v.ctx.action_type not in _CLICKS or t is None or t.form_method.lower() not in ("post", "dialog"):
        return None
    if any(f.filled and card_like(f.label, f.autocomplete, f.name) for f in v.ctx.form_fields):
        return "PAY", "It submits a form holding payment card details."
    for f in v.ctx.form_fields:  # an action chooser ("Delete selected users", then "Go")
        hits = labels.triggers_in(norm(f.chosen)) if f.chosen else []
        if hits:
            return hits[0].category, f"It submits the action chosen in '{f.label or f.name}': '{f.chosen}'."
    return None


_CONFIRMATION = re.compile(
    r"\b(?:are you sure|do you (?:really )?want to|cannot be undone|can't be undone|can not be undone|will be permanently|"
    r"permanently (?:delete|remove)|confirm (?:that|the|your|deletion|removal)|please confirm|this (?:action|step) is (?:final|"
    r"irreversible))\b|确定要|确认要|是否确认|无法(?:恢复|撤销|撤回)|不可(?:恢复|撤销|撤回)|请确认")


def confirmation_step(page_text: str, dialog_text: str = "") -> bool:
    """Does the page (or its dialog) ask to confirm an act, as a confirmation step does?"""
    return bool(_CONFIRMATION.search(norm(dialog_text)) or _CONFIRMATION.search(norm(page_text)[:3000]))
