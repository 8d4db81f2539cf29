"""Writes for review requests. The worker that waits on a request is woken through Redis
(`review_key`), so it resumes within a second of the person's response; a run that was parked
(durable waits, `runs.waits`) gets its continuation enqueued after the decision commits.

Risky actions (`review_decide`): only the workspace's owners and reviewers decide; a decision is
taken once (a second one is a 409), never after the review expired or the run ended, and every
decision, expiry and cancellation is written to the `ReviewDecision` audit log.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from pydantic import ValidationError as PydanticValidationError

from venus_rpa.accounts.models import Role
from venus_rpa.accounts.selectors import membership_get
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.errors import Conflict, InvalidInput, PermissionDenied
from venus_rpa.reviews.models import DECIDED_WORDS, DecisionKind, ReviewDecision, ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.reviews.signals import review_opened
from venus_rpa.runs.events import publish_workspace_event
from venus_rpa.runs.models import TERMINAL, Run
from venus_rpa.runs.waits import run_continue
from workers.gates.safety.values import card_numbers, mask_card
from workers.steps import placeholders

# Who may approve, reject or edit a risky action.
DECIDE_ROLES = {Role.OWNER, Role.REVIEWER}
DECISION_STATUS = {"approve": ReviewStatus.APPROVED, "reject": ReviewStatus.REJECTED, "edit": ReviewStatus.EDITED}

log = logging.getLogger(__name__)


def review_key(review_id: int) -> str:
    return f"venus:review:{review_id}"


def reviews_changed(*, workspace_id: int) -> None:
    """After commit: tell the workspace's open pages how many reviews wait now (the nav badge and
    the overview's counter follow it live)."""

    def send() -> None:
        pending = ReviewRequest.objects.filter(workspace_id=workspace_id, status=ReviewStatus.PENDING).count()
        publish_workspace_event(workspace_id, {"type": "reviews.changed", "pending": pending})

    transaction.on_commit(send, robust=True)


def _opened(review: ReviewRequest) -> ReviewRequest:
    """A review was filed: live pages and the notification listeners hear of it."""
    reviews_changed(workspace_id=review.workspace_id)
    review_opened.send(sender=ReviewRequest, review_id=review.pk)
    return review


def review_create(*, run_id: int, kind: str, title: str, detail: dict[str, Any], screenshot: bytes | None,
                  ttl_s: float) -> ReviewRequest:
    run = Run.objects.get(pk=run_id)
    title, detail = payment_masked(title, detail)
    review = ReviewRequest(workspace_id=run.workspace_id, run=run, kind=kind, title=title[:300], detail=detail,
                           expires_at=timezone.now() + timedelta(seconds=ttl_s))
    if screenshot:
        review.screenshot.save(f"run{run_id}-{kind}.jpg", ContentFile(screenshot), save=False)
    review.save()
    return _opened(review)


def review_create_risky(*, run_id: int, title: str, detail: dict[str, Any], screenshot: bytes | None, ttl_s: float,
                        action: dict[str, Any], verdict: dict[str, Any], fingerprint: str) -> ReviewRequest:
    """File a risky action for review: the proposed action, the gate's verdict, the page fingerprint."""
    run = Run.objects.get(pk=run_id)
    title, detail = payment_masked(title, detail)
    review = ReviewRequest(
        workspace_id=run.workspace_id, run=run, kind=ReviewKind.RISKY_ACTION, title=title[:300], detail=detail,
        expires_at=timezone.now() + timedelta(seconds=ttl_s), proposed_action=action,
        category=str(verdict.get("category", ""))[:16], level=str(verdict.get("level", ""))[:4],
        reason=payment_masked(str(verdict.get("reason", "")), {})[0], fingerprint=fingerprint[:64],
    )
    if screenshot:
        review.screenshot.save(f"run{run_id}-risky.jpg", ContentFile(screenshot), save=False)
    review.save()
    return _opened(review)


def review_note(*, review_id: int, facts: dict[str, Any]) -> None:
    """Add facts for the reviewer to a pending review's detail (e.g. the browser was released)."""
    with transaction.atomic():
        review = ReviewRequest.objects.select_for_update().filter(pk=review_id).first()
        if review is not None:
            review.detail = {**review.detail, **facts}
            review.save(update_fields=["detail"])


def review_decide(*, review: ReviewRequest, user, decision: str, comment: str = "",
                  edited_action: dict[str, Any] | None = None, bulk: bool = False) -> ReviewRequest:
    """Approve, reject or edit a risky action; the waiting worker resumes within a second. The
    decision is written to the workspace audit log (`bulk`: taken as part of a bulk action).

    Raises PermissionDenied (not an owner or reviewer), InvalidInput (bad decision or edit) or
    Conflict (not a risky action, decided already, expired, or the run has ended)."""
    if review.kind != ReviewKind.RISKY_ACTION:
        raise Conflict("Only risky actions are approved, rejected or edited.")
    if decision not in DECISION_STATUS:
        raise InvalidInput("The decision is approve, reject or edit.", fields={"decision": ["Unknown decision."]})
    membership = membership_get(user=user, workspace=review.workspace)
    if membership is None or membership.role not in DECIDE_ROLES:
        raise PermissionDenied("Deciding on risky actions needs the owner or reviewer role in the workspace.")
    edited = edit_validate(review=review, edited=edited_action) if decision == "edit" else {}
    comment = (comment or "").strip()[:2000]
    with transaction.atomic():
        updated = ReviewRequest.objects.filter(
            pk=review.pk, status=ReviewStatus.PENDING, expires_at__gt=timezone.now(),
        ).exclude(run__status__in=TERMINAL).update(
            status=DECISION_STATUS[decision], decided_by=user, decided_at=timezone.now(), comment=comment,
            edited_action=edited,
        )
        if updated:
            ReviewDecision.objects.create(review_id=review.pk, decision=decision, user=user, comment=comment,
                                          edited_action=edited)
            _audit_decision(review, user, decision, comment, bulk=bulk)
            transaction.on_commit(lambda: _decided(review.pk, review.run_id))
    review.refresh_from_db()
    if not updated:
        raise Conflict(_why_not_pending(review))
    return review


_AUDIT_ACTIONS = {"approve": AuditAction.REVIEW_APPROVED, "reject": AuditAction.REVIEW_REJECTED,
                  "edit": AuditAction.REVIEW_EDITED}


def _audit_decision(review: ReviewRequest, user, decision: str, comment: str, *, bulk: bool) -> None:
    said = {"approve": "approved", "reject": "rejected", "edit": "approved with changes"}[decision]
    audit_record(workspace=review.workspace, actor=user, action=_AUDIT_ACTIONS[decision], automation=review.run.automation,
                 version_number=review.run.version.number if review.run.version_id else None,
                 changes=[f"review #{review.pk} of run #{review.run_id} {said}{' (bulk)' if bulk else ''}: {review.title[:200]}"],
                 before={"review": review.pk, "run": review.run_id},
                 after={"status": DECISION_STATUS[decision], "comment": comment[:200]})


def _why_not_pending(review: ReviewRequest) -> str:
    if review.status == ReviewStatus.PENDING and review.expires_at <= timezone.now():
        review_expire(review_id=review.pk)
        return "The review has expired; the action was rejected."
    if review.status == ReviewStatus.PENDING and review.run.status in TERMINAL:
        review_cancel(review_id=review.pk)
        return f"The run has ended ({review.run.status}); nothing is waiting for this decision."
    return f"The review is not pending any more: {_outcome(review)}."


def _outcome(review: ReviewRequest) -> str:
    """"approved with changes by rita", as the Decided list says it."""
    who = f" by {review.decided_by}" if review.decided_by else ""
    return DECIDED_WORDS.get(review.status, review.status).lower() + who


def edit_validate(*, review: ReviewRequest, edited: Any) -> dict[str, Any]:
    """The complete edited action: the proposed one with the reviewer's changes to its editable
    fields, valid as a step (or UI-Venus action) of the same kind. No new placeholders."""
    from workers.actions import parse_browser_action
    from workers.steps import STEPS

    if not isinstance(edited, dict) or not edited:
        raise InvalidInput("An edit needs the changed action.", fields={"action": ["Give the changed fields."]})
    proposed = review.proposed_action or {}
    marker = "kind" if "kind" in proposed else "type"
    if edited.get(marker, proposed.get(marker)) != proposed.get(marker):
        raise InvalidInput("An edit keeps the kind of action.", fields={f"action.{marker}": ["Cannot be changed."]})
    shown = (review.detail or {}).get("action") or {}
    # A card number the reviewer saw masked and left as it was keeps its real value.
    edited = {k: proposed[k] if k in proposed and v == shown.get(k) != proposed[k] else v for k, v in edited.items()}
    editable = set(review.detail.get("editable") or [])
    changed = {k for k, v in edited.items() if k != marker and proposed.get(k) != v}
    if changed - editable:
        allowed = ", ".join(sorted(editable)) or "nothing"
        raise InvalidInput(f"Only these fields can be edited: {allowed}.",
                           fields={f"action.{k}": ["Cannot be edited."] for k in sorted(changed - editable)})
    merged = {**proposed, **edited}
    (found, count), (known, known_count) = _templates(merged), _templates(proposed)
    if found - known or count > known_count:
        raise InvalidInput("An edit may not add placeholders.", fields={"action": ["Must not contain '{{'."]})
    try:
        if marker == "kind":
            return STEPS.validate_python([merged])[0].model_dump(mode="json", exclude_none=True)
        return parse_browser_action(merged).model_dump(mode="json")
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        # The location without list indexes and the union's tag ("click", "Type").
        where = ".".join(str(p) for p in first["loc"] if not isinstance(p, int) and p != merged.get(marker))
        raise InvalidInput("The edited action is invalid.", fields={f"action.{where}" if where else "action": [first["msg"]]})


def _templates(value: Any) -> tuple[set[str], int]:
    """Placeholders in an action as the runtime tokenizes them (on the strings themselves, so a
    tab or newline inside the braces counts), and how many '{{' it holds."""
    texts = _strings(value)
    return {p for text in texts for p in placeholders(text)}, sum(text.count("{{") for text in texts)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*_strings(k), *_strings(v)]]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


# Fields for a card's security code, by label (English and Chinese).
_CVC_LABEL = re.compile(r"cvc|cvv|cvn|csc|cid\b|security code|card code|card verification|安全码|验证码", re.IGNORECASE)
_DIGITS = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_TYPED_CODE = re.compile(r"(Type ')(\d{3,4})(')")


def mask_cards(text: str) -> str:
    """text with every payment card number shown as its last 4 digits only."""
    return _DIGITS.sub(lambda m: mask_card(card_numbers(m.group(0))[0]) if card_numbers(m.group(0)) else m.group(0),
                       text)


def payment_masked(title: str, detail: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A review's title and detail with card numbers cut to their last 4 digits and a code typed
    into a CVC/CVV field masked whole: the queue, history and audit never show a full card."""
    is_cvc = bool(_CVC_LABEL.search(title) or _CVC_LABEL.search(json.dumps((detail or {}).get("target") or "")))

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            value = mask_cards(value)
            return _TYPED_CODE.sub(r"\1•••\3", value) if is_cvc else value
        if isinstance(value, dict):
            return {k: "•••" if is_cvc and k in _TYPED_KEYS and isinstance(v, str) and v.strip().isdigit()
                    else clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(title), clean(detail)


_TYPED_KEYS = {"value", "content", "text", "typed_text"}


def action_masked(review: ReviewRequest, action: dict[str, Any]) -> dict[str, Any]:
    """A review's action (proposed or edited) masked as its own detail was when it was filed: what
    the dashboard and the API show of it."""
    return payment_masked(review.title, {"action": action or {}, "target": (review.detail or {}).get("target")})[1]["action"]


def _validate_captcha_response(review: ReviewRequest, response: dict[str, Any]) -> dict[str, Any]:
    text = response.get("text")
    clicks = response.get("clicks")
    if isinstance(text, str) and text.strip():
        return {"text": text.strip()}
    if isinstance(clicks, list) and clicks:
        width = review.detail.get("width") or 10**6
        height = review.detail.get("height") or 10**6
        points = []
        for click in clicks:
            if (not isinstance(click, (list, tuple)) or len(click) != 2
                    or not all(isinstance(v, (int, float)) for v in click)):
                raise InvalidInput("Each click is [x, y] in screenshot pixels.", fields={"clicks": ["Bad point."]})
            x, y = click
            if not (0 <= x < width and 0 <= y < height):
                raise InvalidInput("A click is outside the screenshot.", fields={"clicks": [f"{click} is outside."]})
            points.append([round(x), round(y)])
        return {"clicks": points}
    raise InvalidInput("Give the typed answer (text) or the clicks on the screenshot (clicks).",
                       fields={"text": ["Give text or clicks."]})


def review_respond(*, review: ReviewRequest, user, response: dict[str, Any]) -> ReviewRequest:
    """A person's answer to a CAPTCHA review: typed text or clicks on the screenshot."""
    if review.kind != ReviewKind.CAPTCHA:
        raise Conflict("Only CAPTCHA reviews take a typed or clicked answer.")
    clean = _validate_captcha_response(review, response)
    with transaction.atomic():
        updated = ReviewRequest.objects.filter(pk=review.pk, status=ReviewStatus.PENDING,
                                               expires_at__gt=timezone.now()).update(
            status=ReviewStatus.ANSWERED, response=clean, decided_by=user, decided_at=timezone.now())
        if updated:
            transaction.on_commit(lambda: _decided(review.pk, review.run_id))
    if not updated:
        review.refresh_from_db()
        raise Conflict(f"The review is not pending any more: {_outcome(review)}.")
    review.refresh_from_db()
    return review


def _decided(review_id: int, run_id: int) -> None:
    """After a review's outcome is committed: wake the worker holding the run, or, when the run
    was parked, enqueue its continuation (a run parking right now checks after its own commit)."""
    _signal(review_id)
    run_continue(run_id=run_id)
    workspace_id = ReviewRequest.objects.filter(pk=review_id).values_list("workspace_id", flat=True).first()
    if workspace_id is not None:
        reviews_changed(workspace_id=workspace_id)


def reviews_sweep() -> dict[str, list[int]]:
    """Beat: expire pending reviews past their expiry (a parked run then goes on and applies its
    policy: a risky action's expiry is a rejection), and enqueue the continuation of parked runs
    whose review was settled but whose continuation was never asked for."""
    due = list(ReviewRequest.objects.filter(status=ReviewStatus.PENDING, expires_at__lte=timezone.now())
               .values_list("pk", flat=True))
    expired = [review_id for review_id in due if review_expire(review_id=review_id)]
    settled = list(ReviewRequest.objects.exclude(status=ReviewStatus.PENDING).filter(
        run__continuation__review_id=F("pk"), run__continuation__resume_requested_at__isnull=True,
    ).values_list("run_id", flat=True))
    for run_id in settled:
        with transaction.atomic():
            run_continue(run_id=run_id)
    return {"expired": expired, "resumed": settled}


def _signal(review_id: int) -> None:
    try:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        client.rpush(review_key(review_id), "1")
        client.expire(review_key(review_id), 24 * 3600)
    except Exception:  # the worker re-reads the database every few seconds as well
        log.warning("could not signal review %s through Redis", review_id, exc_info=True)


def review_expire(*, review_id: int) -> bool:
    """A pending review nobody decided in time; a risky action's expiry counts as a rejection."""
    return _close(review_id, ReviewStatus.EXPIRED, DecisionKind.EXPIRE)


def review_cancel(*, review_id: int) -> bool:
    """A pending review nothing waits for any more (the run was cancelled or ended)."""
    return _close(review_id, ReviewStatus.CANCELLED, DecisionKind.CANCEL)


def _close(review_id: int, status: str, audit: str) -> bool:
    with transaction.atomic():
        closed = bool(ReviewRequest.objects.filter(pk=review_id, status=ReviewStatus.PENDING).update(
            status=status, decided_at=timezone.now()))
        if closed and ReviewRequest.objects.filter(pk=review_id, kind=ReviewKind.RISKY_ACTION).exists():
            ReviewDecision.objects.create(review_id=review_id, decision=audit)
        if closed:
            run_id = ReviewRequest.objects.values_list("run_id", flat=True).get(pk=review_id)
            transaction.on_commit(lambda: _decided(review_id, run_id))
    return closed
