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

from workers.gates.safety import concepts, labels
from workers.gates.safety.fields import COMPOSER, card_like, field_kind
from workers.gates.safety.text import norm
from workers.gates.safety.urls import host_of, resolve
from workers.gates.safety.verdict import Finding
from workers.gates.safety.view import View

_CLICKS = ("click", "double_click", "submit")
# Query keys that make a GET change state: CSRF tokens, nonces, signatures, one-shot confirmations.
_STATEFUL_KEY = re.compile(r"^_?(?:csrf\w*|xsrf\w*|token|authenticity_token|nonce|_?wpnonce|sig|signature|hmac|otp)$", re.I)
_CONFIRMED = re.compile(r"^(?:confirm(?:ed)?|really|force|yes|do|execute|commit)$", re.I)
_OPENS = {"dialog", "menu", "listbox", "tree", "grid", "true", "popover", "modal", "dropdown", "collapse", "tab", "editor", "composer",
          "sheet", "share sheet", "panel", "drawer", "popup", "submenu", "form", "picker", "page"}
# A composer already open beside the control: its recipients or message box (then Reply may send).
_COMPOSING = re.compile(COMPOSER.pattern + r"|^(?:to|cc|bcc|an|à|para|a|收件人|抄送|宛先)\s*[:：]?$|收件人|recipients?")
_OPENS_HINT = re.compile(r"^opens? (?:a |the )?(?:[\w-]+ )?(?:sheet|dialog|menu|editor|composer|window|panel|popup|picker)\b|"
                         r"^(?:打开|弹出)(?:分享)?(?:面板|菜单|对话框|窗口)")


def lead_in(v: View, final: Finding) -> str:
    """Why this action only leads to a commit ("" when it may be the commit or the page does
    not say). Only consulted for consequential findings below R4."""
    if final.level >= 4 or final.out_of_scope:
        return ""
    t = v.ctx.target
    kind = v.ctx.action_type
    if t is None or t.hidden:
        return ""
    if t.scripted:  # a script decides what it does; only a Reply / Forward still just opens a composer
        return _composer(v, t, final) if kind in _CLICKS else ""
    if kind == "type" and not v.ctx.typed_text.endswith("\n") and field_kind(v) == "card" and _only_card(final):
        return ("Typing card details only fills the payment form; its submit is the commit, reviewed as a payment with the "
                "values typed (card numbers masked).")
    if kind in _CLICKS and t.form_method.lower() != "post":
        opener = _opener(v, t, final)
        if opener:
            return opener
    if v.ctx.surface != "web":
        return ""
    if kind in _CLICKS:
        if (v.kind == "link" or t.tag.lower() == "a") and t.href and not t.form_method:  # a menu item that is an <a href> too
            return _get_link(v, t.href)
        if t.form_method.lower() == "get" and v.kind == "button":  # action="#" or none: this page, its fields as the query
            return _get_link(v, t.form_action if t.form_action.strip("#") else v.ctx.url, form=True)
        return ""
    if kind == "select" and _native_select(v, t):  # a native select without a script submits nothing on change
        return "Choosing an option only fills the form; its submit is the commit, reviewed with the values chosen."
    if kind == "type" and not v.ctx.typed_text.endswith("\n") and _has_submit(v) and not _secret_finding(final):
        return (f"Typing only fills the form; its submit ('{v.ctx.form_submit or 'submit'}') is the commit, reviewed "
                "with the values typed (secrets masked).")
    return ""


def _opener(v: View, t, final: Finding) -> str:
    """A control that opens something (a dialog, menu, sheet, composer) instead of acting, on any
    surface: its `opens`, aria-haspopup / aria-expanded, a menu-button role, a label ending in an
    ellipsis ("Delete Sheet…", "共享…": the dialog asks next), a tooltip saying it opens a sheet, or
    a Reply / Forward that opens a composer (no form, nothing typed: the composer's Send is the commit)."""
    attrs = {k.lower(): str(val).lower() for k, val in t.attributes.items()}
    opens = t.opens.lower() or attrs.get("aria-haspopup", "")
    if opens in _OPENS:
        return f"It opens a {opens if opens != 'true' else 'menu'}; the commit, if any, is made inside it."
    if attrs.get("aria-expanded") in ("false", "true") or norm(t.role) in ("menubutton", "menu button", "combobox"):
        return "It expands a menu or panel; the commit, if any, is made inside it."
    label = norm(t.text or t.name or t.aria_label or t.content_desc)
    if label.endswith(("...", "…")) and len(label) > 3:
        return "Its label ends in an ellipsis: it opens a dialog that asks for the details; the commit is made there."
    if any(_OPENS_HINT.search(text) for text in (norm(attrs.get("title", "")), *(norm(n) for n in v.ctx.nearby_text[:3]))):
        return "It opens a sheet, dialog or menu (its hint says so); the commit, if any, is made there."
    return _composer(v, t, final)


def _composer(v: View, t, final: Finding) -> str:
    """A Reply / Forward with no form, nothing typed and no composer open beside it opens one."""
    label = norm(t.text or t.name or t.aria_label or t.content_desc)
    if (final.category == "SEND" and not t.form_method and not v.ctx.form_fields and not v.dialog
            and concepts.composer(label)
            and not any(_COMPOSING.search(norm(n)) for n in v.ctx.nearby_text[:4])):
        return "Reply or Forward opens a composer; sending is its Send, reviewed with the message."
    return ""


def _native_select(v: View, t) -> bool:
    """A native <select>: its tag says so, or the form lists it as a select field under the same label."""
    if t.tag.lower() == "select":
        return True
    name = norm(t.name or t.aria_label)
    return bool(name) and not t.tag and any(f.input_type.lower() == "select" and norm(f.label) == name for f in v.ctx.form_fields)


def _only_card(final: Finding) -> bool:
    signals = {e.signal for e in final.evidence}
    return final.category == "PAY" and bool(signals & {"value.card_number", "field.card"}) and not any(
        s.startswith("value.") and s != "value.card_number" for s in signals)


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
    for f in v.ctx.form_fields:
        # An action chooser ("Delete selected users", then "Go") commits what it names; any other
        # select only when it sets who can see what is submitted ("Exposure: Public"), not when an
        # option merely contains a verb (a "Spring release" milestone).
        hits = labels.triggers_in(norm(f.chosen)) if f.chosen else []
        if not _ACTION_FIELD.search(norm(f"{f.label} {f.name}")):
            hits = [h for h in hits if h.category == "SHARE"]
        if hits:
            return hits[0].category, f"It submits the action chosen in '{f.label or f.name}': '{f.chosen}'."
    return None


# A select that chooses what the form does to the selected rows (Django admin's "Action:").
_ACTION_FIELD = re.compile(r"\b(?:actions?|bulk|with selected|aktion|acci[oó]n|azione|a[cç][aã]o|actie|akcja|действие|дія)\b|操作|アクション|작업")
# What a record form's submit says: saving or creating the record, not sending it to anyone.
_SAVE_VERB = re.compile(r"^(?:submit|save|update|create|apply|store|commit)\b(?! (?:a |the |your )?(?:message|comment|reply|post|"
                        r"feedback|request|application|form|report|ticket|review))")
_RECIPIENT = re.compile(r"\b(?:to|cc|bcc|recipients?|send to|email to|reply-to)\b|收件人|抄送")
# What a submit hands to other people to act on (approve, pay out, fulfil), named by the submit itself
# ("Submit expense", "Submit for approval") or by the form's title and headings ("New expense report").
_HANDED_OBJECT = re.compile(r"^submit (?:(?:a|an|the|this|my|your) )?(?:new )?(?:expenses?|claims?|reimbursements?|requests?|"
                            r"requisitions?|applications?|orders?|leave|timesheets?|invoices?|proposals?|appeals?|refunds?|"
                            r"nominations?)\b|^submit for\b")
_HANDED_CONTEXT = re.compile(r"\b(?:expense (?:reports?|claims?)|reimbursements?|for approval|approvers?|(?:leave|time[- ]off|absence|"
                             r"purchase|refund) requests?|purchase (?:orders?|requisitions?)|timesheets?|(?:job|loan|visa|grant|"
                             r"credit|rental|mortgage) applications?)\b|报销|审批|请假")


def handed_over(v: View, final: Finding) -> str:
    """Why a form's "Submit …" hands what it holds to other people to act on ("" when it does not say):
    an expense claim goes to whoever approves and pays it, a leave request to a manager, an application
    to whoever decides it. Such a submit is judged by what it does (SEND, reviewed), never as a save."""
    t = v.ctx.target
    if (final.category != "SEND" or final.level != 3 or t is None or v.ctx.action_type not in _CLICKS
            or not v.label.startswith("submit")):
        return ""
    said = "" if _HANDED_OBJECT.search(v.label) else next(
        (f" (the page says '{m.group(0)}')" for m in [_HANDED_CONTEXT.search(" | ".join([v.titles, v.nearby]))] if m), None)
    if said is None:
        return ""
    return (f"Clicking '{v.label}' submits it to other people to act on{said}: a claim, request, application or order goes "
            "to whoever approves or fulfils it, so it does more than save a record.")


def record_save(v: View, final: Finding) -> str:
    """Why a SEND reading of a form's submit is really saving a record in the application ("Submit
    changes" on a ticket, "Submit New Entry" on an issue): the submit names no message, no
    recipient field of the form is filled (an empty Cc is not a message), and it holds the record's own fields (a select's choice, or three or
    more fields). A message form (recipients, or only a message box) is still sending, and so is a
    submit that hands a claim, request, application or order to others (`handed_over`)."""
    t = v.ctx.target
    if (final.category != "SEND" or final.level != 3 or t is None or v.ctx.action_type not in _CLICKS
            or t.form_method.lower() != "post" or not _SAVE_VERB.match(v.label) or v.dialog or handed_over(v, final)):
        return ""
    fields = v.ctx.form_fields
    if any((f.filled or f.chosen) and _RECIPIENT.search(norm(f"{f.label} {f.name} {f.autocomplete}")) for f in fields):
        return ""
    message = [f for f in fields if COMPOSER.search(norm(f"{f.label} {f.name}"))]
    record = [f for f in fields if f not in message]
    if any(f.chosen for f in record) or len(record) >= 3:
        return f"'{v.label}' saves this record in the application (its own fields, no recipients); it sends no message."
    return ""


_CONFIRMATION = re.compile(
    r"\b(?:are you sure|do you (?:really )?want to|cannot be undone|can't be undone|can not be undone|will be permanently|"
    r"permanently (?:delete|remove)|confirm (?:that|the|your|deletion|removal)|please confirm|this (?:action|step) is (?:final|"
    r"irreversible))\b|确定要|确认要|是否确认|无法(?:恢复|撤销|撤回)|不可(?:恢复|撤销|撤回)|请确认")


def confirmation_step(page_text: str, dialog_text: str = "") -> bool:
    """Does the page (or its dialog) ask to confirm an act, as a confirmation step does?"""
    return bool(_CONFIRMATION.search(norm(dialog_text)) or _CONFIRMATION.search(norm(page_text)[:3000]))
