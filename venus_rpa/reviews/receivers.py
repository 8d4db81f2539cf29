"""What the review queue does when a run ends (`runs.signals.run_finished`): reviews still pending
for it have nothing waiting on them any more and are cancelled (audited as such)."""

from __future__ import annotations

from venus_rpa.reviews.models import ReviewRequest, ReviewStatus
from venus_rpa.reviews.services import review_cancel


def cancel_pending_reviews(sender, *, run_id: int, **kwargs) -> None:
    for review_id in ReviewRequest.objects.filter(run_id=run_id, status=ReviewStatus.PENDING).values_list("pk", flat=True):
        review_cancel(review_id=review_id)
