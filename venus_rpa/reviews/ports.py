"""The review queue as a waiting run sees it: this app's implementation of `runs.ports.ReviewPort`,
registered in `ReviewsConfig.ready()` (reviews depends on runs, never the other way round)."""

from __future__ import annotations

from typing import Any

from venus_rpa.reviews import services
from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.runs.ports import ReviewState

_DECISIONS = {ReviewStatus.APPROVED: "approve", ReviewStatus.REJECTED: "reject", ReviewStatus.EDITED: "edit",
              ReviewStatus.EXPIRED: "expired", ReviewStatus.CANCELLED: "cancelled", ReviewStatus.ANSWERED: "answered"}


def review_state(review: ReviewRequest) -> ReviewState:
    return ReviewState(
        id=review.pk, decision=_DECISIONS.get(review.status, ""), expires_at=review.expires_at, comment=review.comment,
        decided_by=review.decided_by.username if review.decided_by else "", edited_action=review.edited_action or {},
        response=review.response or {}, detail=review.detail or {}, fingerprint=review.fingerprint,
    )


class DjangoReviewPort:
    """`runs.ports.ReviewPort` on the review queue's services."""

    def key(self, review_id: int) -> str:
        return services.review_key(review_id)

    def create_captcha(self, *, run_id: int, title: str, detail: dict[str, Any], screenshot: bytes | None,
                       ttl_s: float) -> ReviewState:
        return review_state(services.review_create(run_id=run_id, kind=ReviewKind.CAPTCHA, title=title, detail=detail,
                                                   screenshot=screenshot, ttl_s=ttl_s))

    def create_risky(self, *, run_id: int, title: str, detail: dict[str, Any], screenshot: bytes | None,
                     ttl_s: float, action: dict[str, Any], verdict: dict[str, Any], fingerprint: str) -> ReviewState:
        return review_state(services.review_create_risky(
            run_id=run_id, title=title, detail=detail, screenshot=screenshot, ttl_s=ttl_s, action=action,
            verdict=verdict, fingerprint=fingerprint))

    def get(self, review_id: int) -> ReviewState:
        return review_state(ReviewRequest.objects.select_related("decided_by").get(pk=review_id))

    def expire(self, review_id: int) -> bool:
        return services.review_expire(review_id=review_id)

    def cancel(self, review_id: int) -> bool:
        return services.review_cancel(review_id=review_id)

    def note(self, review_id: int, facts: dict[str, Any]) -> None:
        services.review_note(review_id=review_id, facts=facts)
