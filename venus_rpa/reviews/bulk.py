"""Bulk rejection of pending risky actions, one result per review (`core.bulk`)."""

from __future__ import annotations

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.bulk import BulkResult, bulk_apply, bulk_ids_check
from venus_rpa.core.errors import InvalidInput
from venus_rpa.reviews.models import ReviewRequest
from venus_rpa.reviews.services import review_decide

NOT_FOUND = "No such review in this workspace."


def reviews_bulk_reject(*, workspace: Workspace, ids: list[int], user, comment: str) -> list[BulkResult]:
    """Reject each pending risky action with the same comment (`review_decide`: role, expiry and
    state are checked per review, so some may fail and say why)."""
    comment = (comment or "").strip()
    if not comment:
        raise InvalidInput("Say why these actions are rejected.", fields={"comment": ["A comment is required."]})
    found = ReviewRequest.objects.filter(workspace=workspace, pk__in=bulk_ids_check(ids)).select_related("run")

    def reject(review: ReviewRequest) -> BulkResult:
        review = review_decide(review=review, user=user, decision="reject", comment=comment)
        audit_record(workspace=workspace, actor=user, action=AuditAction.REVIEW_REJECTED,
                     automation=review.run.automation, changes=[f"review #{review.pk} of run #{review.run_id} rejected "
                                                              "(bulk)"],
                     before={"review": review.pk}, after={"status": review.status, "comment": comment[:200]})
        return BulkResult(review.pk, True, f"Rejected: {review.title}")

    return bulk_apply(ids=ids, found=found, act=reject, not_found=NOT_FOUND)
