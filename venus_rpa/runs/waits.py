"""Durable waits: park a run that waits for a person, resume it when the person has answered.

A run whose wait outlasted the hold window is parked (`run_park`): its continuation is stored
encrypted, its status stays awaiting_review / awaiting_user with a reason, and its Celery task
ends. Whoever records the person's answer calls `run_continue` (a review decision, an answer to
the agent's question, a review's expiry by beat); the continuation task is enqueued after commit,
and the worker that takes it claims the continuation (`run_resume_claim`) exactly once.
"""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

from django.db import transaction
from django.utils import timezone

from venus_rpa import celery_app
from venus_rpa.automations.crypto import decrypt_fields, encrypt_fields
from venus_rpa.runs.events import publish_run_changed
from venus_rpa.runs.models import TERMINAL, Run, RunContinuation, RunStatus

log = logging.getLogger(__name__)
RESUME_TASK = "venus_rpa.runs.tasks.run_resume_task"


def run_park(*, run_id: int, status: str, reason: str, continuation: dict[str, Any], wait: str,
             review_id: int | None = None) -> bool:
    """Store a run's continuation and end its task's hold on it: the run keeps its waiting status
    (with `reason`), no worker and no heartbeat is expected. False if the run ended meanwhile (a
    cancel): nothing is stored."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).exclude(status__in=TERMINAL).first()
        if run is None or run.cancel_requested_at is not None:
            return False
        RunContinuation.objects.update_or_create(run=run, defaults={
            "wait": wait, "review_id": review_id, "resume_requested_at": None,
            "ciphertext": encrypt_fields({"continuation": json.dumps(continuation)}),
        })
        Run.objects.filter(pk=run_id).update(status=status, status_reason=reason[:5000], worker="",
                                             heartbeat_at=timezone.now())
        publish_run_changed(run_id)
    return True


def run_is_parked(*, run_id: int) -> bool:
    return RunContinuation.objects.filter(run_id=run_id).exists()


def run_continue(*, run_id: int) -> bool:
    """The person has answered (or the wait expired): enqueue the parked run's continuation after
    commit. False when the run is not parked (its worker still holds it and is woken through
    Redis, or it has ended)."""
    now = timezone.now()
    updated = RunContinuation.objects.filter(run_id=run_id).exclude(run__status__in=TERMINAL).update(
        resume_requested_at=now)
    if updated:
        # Fair admission: parking gave the run's worker slot back; the continuation takes one again
        # now, without waiting its turn (a person has waited already). It counts against its
        # workspace's limit from here, so new runs are admitted only as slots free up
        # (docs/scaling.md, "Fair concurrency").
        Run.objects.filter(pk=run_id).exclude(status__in=TERMINAL).update(admitted_at=now)
        transaction.on_commit(lambda: _enqueue_resume(run_id), robust=True)
    return bool(updated)


def _enqueue_resume(run_id: int) -> None:
    try:
        celery_app.send_task(RESUME_TASK, args=[run_id])  # to its surface's queue (runs.queues.route_run_task)
    except Exception:  # the broker is down: beat's `runs_waits_sweep` (runs.services) enqueues it again
        log.exception("could not enqueue the continuation of run %s", run_id)


def run_resume_claim(*, run_id: int) -> tuple[Run, dict[str, Any]] | None:
    """Take a parked run for this worker: its continuation (decrypted, and deleted from the
    database) and the run, now running. None if it is not parked any more (a duplicate task)."""
    with transaction.atomic():
        parked = RunContinuation.objects.select_for_update().filter(run_id=run_id).first()
        if parked is None:
            return None
        data = json.loads(decrypt_fields(parked.ciphertext)["continuation"])
        parked.delete()
        now = timezone.now()
        claimed = Run.objects.filter(pk=run_id).exclude(status__in=TERMINAL).update(
            status=RunStatus.RUNNING, status_reason="", heartbeat_at=now, worker=socket.gethostname())
        if claimed:
            publish_run_changed(run_id)
    if not claimed:
        return None
    return Run.objects.select_related("version", "automation").get(pk=run_id), data
