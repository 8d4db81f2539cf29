"""Writes for review requests. The worker that waits on a request is woken through Redis
(`review_key`), so it resumes within a second of the person's response."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.runs.models import Run

log = logging.getLogger(__name__)


def review_key(review_id: int) -> str:
    return f"venus:review:{review_id}"


def review_create(*, run_id: int, kind: str, title: str, detail: dict[str, Any], screenshot: bytes | None,
                  ttl_s: float) -> ReviewRequest:
    run = Run.objects.get(pk=run_id)
    review = ReviewRequest(workspace_id=run.workspace_id, run=run, kind=kind, title=title[:300], detail=detail,
                           expires_at=timezone.now() + timedelta(seconds=ttl_s))
    if screenshot:
        review.screenshot.save(f"run{run_id}-{kind}.jpg", ContentFile(screenshot), save=False)
    review.save()
    return review


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
    if not updated:
        review.refresh_from_db()
        raise Conflict(f"The review is not pending any more ({review.status}).")
    _signal(review.pk)
    review.refresh_from_db()
    return review


def _signal(review_id: int) -> None:
    try:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        client.rpush(review_key(review_id), "1")
        client.expire(review_key(review_id), 24 * 3600)
    except Exception:  # the worker re-reads the database every few seconds as well
        log.warning("could not signal review %s through Redis", review_id, exc_info=True)


def review_expire(*, review_id: int) -> bool:
    return bool(ReviewRequest.objects.filter(pk=review_id, status=ReviewStatus.PENDING).update(
        status=ReviewStatus.EXPIRED, decided_at=timezone.now()))
