"""What this app does when a review is filed (`reviews.signals.review_opened`)."""

from __future__ import annotations

import logging

from django.db import transaction

from venus_rpa.notifications.services import notices_on_review_opened

log = logging.getLogger(__name__)


def notify_review_opened(sender, *, review_id: int, **kwargs) -> None:
    """File the notices; never raises: the run that filed the review goes on whatever happens here
    (a notice that could not even be filed is logged, and the queue still shows the review)."""
    try:
        with transaction.atomic():  # a savepoint: a database error here leaves the caller's transaction usable
            notices_on_review_opened(review_id=review_id)
    except Exception:
        log.exception("could not file the notifications of review %s", review_id)
