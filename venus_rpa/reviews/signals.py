"""Signals of the review queue. Listeners subscribe in their app's `ready()`, so `reviews` imports
none of them (notifications to a reviewer's channels, for instance).

`review_opened(sender=ReviewRequest, review_id)`: a review now waits for a person. Sent inside the
transaction that filed it; a listener that works outside the database defers with
`transaction.on_commit`, and never raises (a run must not fail because a notice could not go).
"""

from django.dispatch import Signal

review_opened = Signal()
