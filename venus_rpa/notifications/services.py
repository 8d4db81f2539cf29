"""Writes for notifications: a member's channels, and the notices sent when a review waits.

A review filed (`reviews.signals.review_opened`) gets one `Notice` per member who may act on it
and per channel they turned on; each is sent by a task on the default queue (`notice_send`):
an e-mail through Django's e-mail backend to the account's address, or a JSON POST
{"text": ...} to a Slack/Teams-compatible incoming webhook, under the outbound rules of
`core.outbound` (public destinations only, pinned address, no redirects, bounded timeout).
Failures are recorded on the notice and retried a few times; none reaches the run.
"""

from __future__ import annotations

import json
import logging
import smtplib
from datetime import timedelta

from django.conf import settings
from django.core.mail import BadHeaderError, EmailMessage
from django.db import transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from venus_rpa import celery_app
from venus_rpa.accounts.models import Role, Workspace
from venus_rpa.accounts.selectors import membership_get
from venus_rpa.core.errors import InvalidInput, PermissionDenied
from venus_rpa.core.outbound import REASON_CHARS, outbound_post, outbound_url_check
from venus_rpa.notifications.models import Channel, Notice, NoticeStatus, NotificationSettings
from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.reviews.services import DECIDE_ROLES

log = logging.getLogger(__name__)
SEND_TASK = "venus_rpa.notifications.tasks.notice_send_task"
# Who hears of a review: whoever may act on it (risky actions: those who decide; CAPTCHAs and
# questions: every reviewing role).
ANSWER_ROLES = {Role.OWNER, Role.EDITOR, Role.REVIEWER}
# A claimed notice whose sender died is sent again after this long.
CLAIM_STALE = timedelta(minutes=2)


def _roles_for(kind: str) -> set[str]:
    return set(DECIDE_ROLES) if kind == ReviewKind.RISKY_ACTION else ANSWER_ROLES


def notification_settings_update(*, workspace: Workspace, user, email_enabled: bool, webhook_url: str,
                                 webhook_enabled: bool) -> NotificationSettings:
    """Save a member's own channels. Raises PermissionDenied for a role that reviews nothing and
    InvalidInput for a webhook URL that is malformed, too long, carries a password or points at
    a forbidden address, or for a channel turned on without what it needs."""
    membership = membership_get(user=user, workspace=workspace)
    if membership is None or membership.role not in ANSWER_ROLES:
        raise PermissionDenied("Notifications are for members who review (owner, editor or reviewer).")
    url = (webhook_url or "").strip()
    if url:
        outbound_url_check(url, field="webhook_url", invalid="The webhook URL is invalid.",
                           refused="Notifications cannot be sent to this address.", userinfo=False)
    if webhook_enabled and not url:
        raise InvalidInput("Give the webhook URL to turn chat notifications on.",
                           fields={"webhook_url": ["Paste the incoming-webhook URL from Slack or Teams."]})
    if email_enabled and not user.email:
        raise InvalidInput("Your account has no e-mail address.",
                           fields={"email_enabled": ["Ask a workspace owner to add your e-mail address first."]})
    row, _ = NotificationSettings.objects.update_or_create(workspace=workspace, user=user, defaults={
        "email_enabled": bool(email_enabled), "webhook_url": url, "webhook_enabled": bool(webhook_enabled)})
    return row


def review_link(review_id: int) -> str:
    """The review's page under VENUS_PUBLIC_URL (the address people reach the dashboard at)."""
    try:
        path = reverse("dashboard:review-detail", args=[review_id])
    except NoReverseMatch:  # the dashboard is not mounted
        path = f"/reviews/{review_id}/"
    return settings.VENUS_PUBLIC_URL.rstrip("/") + path


def notices_on_review_opened(*, review_id: int) -> list[Notice]:
    """One pending notice per channel of each member who may act on the review; each is sent
    after commit. Idempotent: a notice that exists already is not filed again."""
    review = ReviewRequest.objects.get(pk=review_id)
    if review.status != ReviewStatus.PENDING:
        return []
    wanted = (NotificationSettings.objects.filter(
        workspace_id=review.workspace_id, user__is_active=True, user__memberships__workspace_id=review.workspace_id,
        user__memberships__role__in=_roles_for(review.kind),
    ).filter(Q(email_enabled=True) | Q(webhook_enabled=True)).select_related("user"))
    filed = []
    for row in wanted:
        channels = ([Channel.EMAIL] if row.email_enabled and row.user.email else []) + (
            [Channel.WEBHOOK] if row.webhook_enabled and row.webhook_url else [])
        for channel in channels:
            notice, created = Notice.objects.get_or_create(review=review, user=row.user, channel=channel,
                                                           defaults={"workspace_id": review.workspace_id})
            if created:
                _enqueue(notice.pk)
                filed.append(notice)
    return filed


def _enqueue(notice_id: int, *, countdown: float = 0) -> None:
    def send() -> None:
        try:  # by name: the tasks module imports this one
            celery_app.send_task(SEND_TASK, args=(notice_id,), countdown=countdown or None)
        except Exception:
            log.warning("could not enqueue notice %s", notice_id, exc_info=True)

    transaction.on_commit(send, robust=True)


def notice_send(*, notice_id: int) -> Notice | None:
    """Send one pending notice (claimed first: a duplicate task finds nothing to do). Not sent
    when the review was settled meanwhile, the channel was turned off or the member may no longer
    act on it. A failure is recorded and retried with backoff up to VENUS_NOTIFY_MAX_ATTEMPTS."""
    now = timezone.now()
    if not Notice.objects.filter(pk=notice_id, status=NoticeStatus.PENDING).filter(
            Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_STALE)).update(claimed_at=now):
        return None
    notice = Notice.objects.select_related("review__run__automation", "user", "workspace").get(pk=notice_id)
    skip = _why_skip(notice)
    if skip:
        return _end(notice, NoticeStatus.SKIPPED, skip)
    row = NotificationSettings.objects.get(workspace_id=notice.workspace_id, user_id=notice.user_id)
    error = _email(notice) if notice.channel == Channel.EMAIL else _webhook(notice, row.webhook_url)
    notice.attempts += 1
    if not error:
        notice.sent_at = timezone.now()
        return _end(notice, NoticeStatus.SENT, "")
    if notice.attempts >= settings.VENUS_NOTIFY_MAX_ATTEMPTS:
        return _end(notice, NoticeStatus.FAILED, error)
    notice.last_error, notice.claimed_at = error, None
    notice.save(update_fields=["attempts", "last_error", "claimed_at"])
    _enqueue(notice.pk, countdown=settings.VENUS_NOTIFY_BACKOFF_SECONDS * 2 ** (notice.attempts - 1))
    return notice


def _why_skip(notice: Notice) -> str:
    if notice.review.status != ReviewStatus.PENDING:
        return f"the review was {notice.review.get_status_display().lower()} before the notice went"
    membership = membership_get(user=notice.user, workspace=notice.workspace)
    if membership is None or membership.role not in _roles_for(notice.review.kind) or not notice.user.is_active:
        return "the member may no longer act on this review"
    row = NotificationSettings.objects.filter(workspace_id=notice.workspace_id, user_id=notice.user_id).first()
    enabled = row is not None and (row.email_enabled and bool(notice.user.email) if notice.channel == Channel.EMAIL
                                   else row.webhook_enabled and bool(row.webhook_url))
    return "" if enabled else "the channel was turned off"


def _end(notice: Notice, status: str, error: str) -> Notice:
    notice.status, notice.last_error = status, error[:REASON_CHARS]
    notice.save(update_fields=["status", "attempts", "last_error", "sent_at"])
    return notice


def notice_text(review: ReviewRequest) -> tuple[str, str]:
    """(subject, text) of a review's notice: what waits, where, why, and the link to decide."""
    what = " ".join(review.title.split())[:200]
    automation = review.run.automation.name
    lines = [f"A review is waiting in {review.workspace.name}: {what}",
             f"Run #{review.run_id} of {automation}."]
    if review.kind == ReviewKind.RISKY_ACTION:
        why = " ".join(part for part in (review.level, review.category.lower()) if part)
        lines.append(f"Why: {why}{' - ' if why and review.reason else ''}{' '.join(review.reason.split())[:300]}")
    elif review.kind == ReviewKind.CAPTCHA:
        lines.append("The run needs a person to solve a CAPTCHA.")
    lines.append(f"Open the review: {review_link(review.pk)}")
    subject = f"Review waiting: {what}"[:150]
    return subject, "\n".join(lines)


def _email(notice: Notice) -> str:
    subject, text = notice_text(notice.review)
    message = EmailMessage(subject=subject, body=text, to=[notice.user.email])
    try:
        message.send(fail_silently=False)
    except (smtplib.SMTPException, OSError, BadHeaderError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"[:REASON_CHARS]
    return ""


def slack_escaped(text: str) -> str:
    """Text for a Slack/Teams message: `<`, `>` and `&` escaped, so a page's words cannot become a
    link, a mention (`<!channel>`) or markup."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _webhook(notice: Notice, url: str) -> str:
    _subject, text = notice_text(notice.review)
    body = json.dumps({"text": slack_escaped(text)}).encode()
    _status, error = outbound_post(url, body=body, timeout=settings.VENUS_NOTIFY_TIMEOUT_SECONDS,
                                   headers={"Content-Type": "application/json", "User-Agent": "VenusRPA-Notify/1"})
    return error
