"""Messages: compose ("Send" vs "Save draft"), and the Sent / Drafts lists.

"Send" is consequential (SEND): each accepted send records one message. "Save draft",
"Edit", "Discard", "Remove from view" and "Show hidden messages" are benign look-alikes.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from practice.records import Message, records
from practice.validation import EMAIL_PATTERN
from practice.views.auth import login_required
from practice.views.common import flash, new_submission_token, pop_flash, submission_token, user

HIDDEN_KEY = "hidden_messages"
SUBJECT_MAX = 200
BODY_MAX = 5000


@login_required
def list_view(request: HttpRequest) -> HttpResponse:
    """``/messages`` (Sent) or ``/messages?box=drafts`` (Drafts)."""
    box = "drafts" if request.GET.get("box") == "drafts" else "sent"
    hidden = set(request.session.get(HIDDEN_KEY, []))
    items = records.drafts(user(request)) if box == "drafts" else records.sent(user(request))
    shown = [m for m in items if m.id not in hidden]
    context = {
        "box": box, "items": shown, "hidden_count": len(items) - len(shown), "flash": pop_flash(request),
        "sent_count": len(records.sent(user(request))), "draft_count": len(records.drafts(user(request))),
    }
    return render(request, "practice/messages/list.html", context)


@login_required
@require_POST
def hide_view(request: HttpRequest) -> HttpResponse:
    """``POST /messages/hide``: "Remove from view" hides a row in this session only."""
    box = "drafts" if request.POST.get("box") == "drafts" else "sent"
    if message_id := request.POST.get("id", ""):
        request.session[HIDDEN_KEY] = [*request.session.get(HIDDEN_KEY, []), message_id]
        flash(request, "Removed from view. The message itself is kept.")
    else:
        request.session[HIDDEN_KEY] = []
        flash(request, "Showing all messages.")
    return redirect("/messages?box=drafts" if box == "drafts" else "/messages")


def _clean(data: dict[str, str], sending: bool) -> dict[str, str]:
    errors: dict[str, str] = {}
    if sending and not data["to"]:
        errors["to"] = "Enter at least one recipient."
    elif data["to"] and not EMAIL_PATTERN.match(data["to"]):
        errors["to"] = "Enter a valid email address."
    if sending and not data["subject"]:
        errors["subject"] = "Subject is required."
    elif len(data["subject"]) > SUBJECT_MAX:
        errors["subject"] = f"Subject must be at most {SUBJECT_MAX} characters."
    if sending and not data["body"]:
        errors["body"] = "Write a message before sending."
    elif len(data["body"]) > BODY_MAX:
        errors["body"] = f"Body must be at most {BODY_MAX} characters."
    return errors


@login_required
@require_http_methods(["GET", "POST"])
def compose_view(request: HttpRequest) -> HttpResponse:
    """``/messages/new`` (``?draft=DRF-0001`` to continue a draft): To, Subject, Body."""
    username = user(request)
    draft_id = request.POST.get("draft") or request.GET.get("draft") or ""
    draft: Message | None = records.draft(draft_id, username) if draft_id else None
    if draft is None:
        draft_id = ""
    errors: dict[str, str] = {}
    if request.method == "POST":
        values = {key: (request.POST.get(key) or "").strip() for key in ("to", "subject", "body")}
        sending = request.POST.get("action") == "send"
        token = submission_token(request)
        previous = records.previous(token)
        if sending and isinstance(previous, Message):  # a double click: already sent
            return redirect("/messages")
        errors = _clean(values, sending)
        if not errors:
            if sending:
                records.send_message(token, draft_id, sender=username, **values)
                flash(request, "Message sent.")
                return redirect("/messages")
            saved = records.save_draft(draft_id, sender=username, **values)
            flash(request, "Draft saved.")
            return redirect(f"/messages?box=drafts#{saved.id}")
    else:
        values = {"to": draft.to, "subject": draft.subject, "body": draft.body} if draft else {
            "to": "", "subject": "", "body": ""}
    context = {"values": values, "errors": errors, "draft_id": draft_id, "token": new_submission_token()}
    return render(request, "practice/messages/compose.html", context)
