"""The worker's side of a review (`DjangoRecorder.open_review` / `wait_review` / `note_review`)
against the real database and Redis: a decision wakes the run at once, the hold window, expiry
and cancellation."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.db import connection

from tests.reviews.conftest import question
from venus_rpa.reviews.models import ReviewDecision, ReviewRequest, ReviewStatus
from venus_rpa.runs.execution import DjangoRecorder
from venus_rpa.runs.models import Run

pytestmark = pytest.mark.django_db(transaction=True)


def later(seconds: float, fn) -> threading.Thread:
    """Call fn from another thread (its own database connection) after `seconds`."""

    def body():
        time.sleep(seconds)
        try:
            fn()
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    return thread


def recorded(run, coro_fn):
    """Run coro_fn(recorder) on a fresh event loop, as the worker's runtime loop would."""
    recorder = DjangoRecorder(run.pk)

    async def main():
        try:
            return await coro_fn(recorder)
        finally:
            await recorder.close()

    return asyncio.run(main())


def decide(reviewer, decision: str = "approve", **kwargs):
    from venus_rpa.reviews.services import review_decide

    review = ReviewRequest.objects.get(status=ReviewStatus.PENDING)
    review_decide(review=review, user=reviewer, decision=decision, **kwargs)


def test_a_decision_wakes_the_waiting_run_within_a_second(waiting_run, reviewer):
    Run.objects.filter(pk=waiting_run.pk).update(status="running")

    async def body(recorder):
        ref = await recorder.open_review(question())
        status = await recorder._db(lambda: Run.objects.get(pk=waiting_run.pk).status)
        thread = later(0.3, lambda: decide(reviewer, "edit", comment="smaller", edited_action={"target": "Pay later"}))
        started = time.monotonic()
        decision = await recorder.wait_review(ref, timeout_s=30)
        waited = time.monotonic() - started
        thread.join()
        return ref, status, decision, waited

    ref, status, decision, waited = recorded(waiting_run, body)
    assert status == "awaiting_review"
    assert decision.decision == "edit" and decision.decided_by == "rita" and decision.comment == "smaller"
    assert decision.action["target"] == {"text": "Pay later"} and decision.action["kind"] == "click"
    assert 0.3 <= waited < 1.9  # woken by the Redis signal, not by the 2 s database re-check
    review = ReviewRequest.objects.get(pk=int(ref))
    assert review.kind == "risky_action" and review.screenshot and review.category == "PAY"
    assert review.detail["step"]["name"] == "Place the order" and review.proposed_action["kind"] == "click"
    assert Run.objects.get(pk=waiting_run.pk).status == "running"


def test_the_hold_window_ends_the_wait_but_not_the_review(waiting_run):
    async def body(recorder):
        ref = await recorder.open_review(question())
        started = time.monotonic()
        decision = await recorder.wait_review(ref, timeout_s=0.3)
        await recorder.note_review(ref, {"session": "saved", "released_after_s": 0.3})
        return ref, decision, time.monotonic() - started

    ref, decision, waited = recorded(waiting_run, body)
    assert decision is None and waited < 1.5
    review = ReviewRequest.objects.get(pk=int(ref))
    assert review.status == ReviewStatus.PENDING and review.detail["session"] == "saved"
    assert review.detail["description"] == "Click the button 'Place order'"  # the note adds, it keeps
    assert Run.objects.get(pk=waiting_run.pk).status == "awaiting_review"


def test_a_review_nobody_decides_expires_as_a_rejection(waiting_run):
    async def body(recorder):
        ref = await recorder.open_review(question(timeout_s=1))
        return ref, await recorder.wait_review(ref, timeout_s=None)

    ref, decision = recorded(waiting_run, body)
    assert decision.decision == "expired"
    review = ReviewRequest.objects.get(pk=int(ref))
    assert review.status == ReviewStatus.EXPIRED
    assert ReviewDecision.objects.get(review=review).decision == "expire"


def test_cancelling_the_wait_cancels_the_review(waiting_run):
    async def body(recorder):
        ref = await recorder.open_review(question())
        task = asyncio.ensure_future(recorder.wait_review(ref, timeout_s=None))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return ref

    ref = recorded(waiting_run, body)
    assert ReviewRequest.objects.get(pk=int(ref)).status == ReviewStatus.CANCELLED
