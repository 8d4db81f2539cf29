"""Nothing stranded, nothing done twice: delivering runs to workers and recovering them.

- `run_enqueue` (services) sends a queued run's task with a known id (`run-<id>-<n>`) and notes when.
  A broker that cannot be reached leaves the run queued: the sweep sends it again.
- `runs_sweep` (beat, every VENUS_SWEEP_SECONDS) finds
  * queued runs whose message is gone (a broker restarted without its data, a lost message, a
    message a dead worker had taken but never started) and sends them again, or ends them with a
    reason after VENUS_REQUEUE_MAX sends;
  * active runs whose worker stopped sending heartbeats. Such a run is retried (up to
    VENUS_RUN_MAX_ATTEMPTS executions) unless that could repeat an action that changes the world:
    an action journaled as intended but not done is *in doubt* and the run fails saying so; a
    run with agent steps fails "worker lost" (its actions are not journaled). A retry resumes
    after the last action journaled as done (`run_resume_point`), never before it.
  * broker messages parked in Redis for runs that no longer need them (a killed worker's
    unacknowledged messages), removed instead of waiting out the visibility timeout.
Every replay is harmless: `run_claim` only takes a queued run.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from venus_rpa.automations.crypto import decrypt_fields
from venus_rpa.runs.events import publish_run_changed
from venus_rpa.runs.models import ACTIVE, TERMINAL, ActionStatus, Run, RunStatus
from venus_rpa.runs.queues import surface_queues
from venus_rpa.runs.services import run_enqueue, run_finish
from workers.flow import step_kinds
from workers.journal import Resume

log = logging.getLogger(__name__)


# -- the broker's view ----------------------------------------------------------------------
@dataclass(frozen=True)
class BrokerMessage:
    task_id: str
    delivery_tag: str = ""  # set for a message a worker has taken and not acknowledged
    taken_at: float = 0.0


def broker_messages(queues: tuple[str, ...] | None = None) -> list[BrokerMessage] | None:
    """Every task message in the Redis broker: waiting in `queues` (every surface's queue and the default one)
    or taken and unacknowledged. None when the broker is not Redis or cannot be read (the sweep
    then leaves queued runs be)."""
    from venus_rpa.celery import app

    queues = queues or (*surface_queues().values(), settings.CELERY_TASK_DEFAULT_QUEUE)

    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            client = getattr(channel, "client", None)
            if client is None or not hasattr(channel, "unacked_key"):
                return None
            found: list[BrokerMessage] = []
            names = {channel._q_for_pri(q, p) for q in queues for p in channel.priority_steps}
            for name in names:
                for raw in client.lrange(name, 0, -1):
                    found.append(BrokerMessage(_task_id(json.loads(raw))))
            taken = dict(client.zrange(channel.unacked_index_key, 0, -1, withscores=True))
            for tag, raw in client.hgetall(channel.unacked_key).items():
                tag = tag.decode() if isinstance(tag, bytes) else tag
                payload = json.loads(raw)[0]
                found.append(BrokerMessage(_task_id(payload), tag, float(taken.get(tag.encode(), taken.get(tag, 0)))))
            return found
    except Exception:
        log.warning("could not read the broker's queues", exc_info=True)
        return None


@dataclass(frozen=True)
class Held:
    answered: bool  # at least one live worker answered
    ids: frozenset[str]


def live_workers_task_ids() -> Held:
    """The tasks live workers have reserved or are running (one broadcast)."""
    from venus_rpa.celery import app

    ids: set[str] = set()
    answered = False
    try:
        inspect = app.control.inspect(timeout=2.0)
        for answer in (inspect.reserved(), inspect.active()):
            answered = answered or bool(answer)
            ids.update(task["id"] for tasks in (answer or {}).values() for task in tasks)
    except Exception:
        log.warning("could not ask the workers what they hold", exc_info=True)
    return Held(answered, frozenset(ids))


def _task_id(payload: dict) -> str:
    return str((payload.get("headers") or {}).get("id") or (payload.get("properties") or {}).get("correlation_id") or "")


def _drop_unacked(tags: list[str]) -> None:
    from venus_rpa.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        with channel.client.pipeline() as pipe:
            for tag in tags:
                pipe.zrem(channel.unacked_index_key, tag).hdel(channel.unacked_key, tag)
            pipe.execute()


# -- the sweep ------------------------------------------------------------------------------
def runs_sweep() -> dict[str, list[int]]:
    """One pass of recovery (see the module docstring). Returns the run ids it acted on."""
    messages = broker_messages()
    done = {"resent": [], "abandoned": [], "retried": [], "failed": [], "cancelled": []}
    for run_id, outcome in _sweep_stale_heartbeats().items():
        done[outcome].append(run_id)
    if messages is not None:
        resent, abandoned = _sweep_queued(messages)
        done["resent"], done["abandoned"] = resent, abandoned
        _drop_parked(messages)
    if any(done.values()):
        log.warning("runs sweep: %s", {k: v for k, v in done.items() if v})
    return done


def _sweep_queued(messages: list[BrokerMessage]) -> tuple[list[int], list[int]]:
    """Queued runs whose message is neither waiting nor taken by a live worker."""
    grace = settings.VENUS_QUEUED_STALE_SECONDS
    cutoff = timezone.now() - timedelta(seconds=grace)
    waiting = {m.task_id for m in messages if not m.delivery_tag}
    taken = {m.task_id for m in messages if m.delivery_tag}
    held_long = {m.task_id for m in messages if m.delivery_tag and m.taken_at < time.time() - grace}
    resent, abandoned = [], []
    stranded = list(Run.objects.filter(Q(enqueued_at__lt=cutoff) | Q(enqueued_at__isnull=True, created_at__lt=cutoff),
                                       status=RunStatus.QUEUED, admitted_at__isnull=False)  # others wait their turn
                    .only("pk", "task_id", "enqueue_count"))
    held = None
    for run in stranded:
        if run.task_id in waiting:
            continue
        if run.task_id in taken:
            # Taken long ago and still queued: its worker may have died, or may hold it until a
            # thread frees. Re-send only when the live workers answer and none holds it; a
            # duplicate is harmless, so this never counts towards giving up.
            if run.task_id not in held_long:
                continue
            held = live_workers_task_ids() if held is None else held
            if held.answered and run.task_id not in held.ids and run_enqueue(run_id=run.pk, count=False):
                resent.append(run.pk)
            continue
        if run.enqueue_count >= settings.VENUS_REQUEUE_MAX:
            reason = (f"its task was lost {run.enqueue_count} times (a broker restart or a lost message) "
                      "and it never started; gave up")
            if run_finish(run_id=run.pk, status=RunStatus.FAILED, reason=reason, only_from={RunStatus.QUEUED}):
                abandoned.append(run.pk)
            continue
        if run_enqueue(run_id=run.pk):
            resent.append(run.pk)
    return resent, abandoned


def _drop_parked(messages: list[BrokerMessage]) -> None:
    """Unacknowledged messages older than the grace period whose run no longer waits for them
    (ended, running elsewhere, or sent again under a new id): nobody will ever ack them."""
    horizon = time.time() - settings.VENUS_QUEUED_STALE_SECONDS
    old = [m for m in messages if m.delivery_tag and m.taken_at < horizon and m.task_id.startswith("run-")]
    if not old:
        return
    ids = {int(m.task_id.split("-")[1]) for m in old}
    current = {pk: (status, task_id) for pk, status, task_id in
               Run.objects.filter(pk__in=ids).values_list("pk", "status", "task_id")}
    parked = []
    for m in old:
        status, task_id = current.get(int(m.task_id.split("-")[1]), (RunStatus.FAILED, ""))
        if status in TERMINAL or task_id != m.task_id:
            parked.append(m.delivery_tag)
    if parked:
        _drop_unacked(parked)
        log.info("dropped %d parked broker message(s) of ended or re-sent runs", len(parked))


def _sweep_stale_heartbeats() -> dict[int, str]:
    stale_s = settings.VENUS_HEARTBEAT_STALE_SECONDS
    cutoff = timezone.now() - timedelta(seconds=stale_s)
    outcomes: dict[int, str] = {}
    # A parked run (durable waits: its continuation is stored) has no worker and sends no
    # heartbeat: it is not lost. Beat's waits sweeps look after it (runs.waits, reviews).
    lost = Run.objects.filter(status__in=ACTIVE, heartbeat_at__lt=cutoff, continuation__isnull=True)
    for run_id in lost.values_list("pk", flat=True):
        with transaction.atomic():
            run = Run.objects.select_for_update(of=("self",)).select_related("version").filter(
                pk=run_id, status__in=ACTIVE, heartbeat_at__lt=cutoff, continuation__isnull=True).first()
            if run is None:
                continue
            outcome, reason = _after_worker_lost(run, stale_s)
            if outcome == "cancelled":
                run_finish(run_id=run_id, status=RunStatus.CANCELLED, reason=reason)
            elif outcome == "retried":
                Run.objects.filter(pk=run_id).update(status=RunStatus.QUEUED, status_reason=reason, heartbeat_at=None,
                                                     attempt=F("attempt") + 1, worker="")
                publish_run_changed(run_id)
                transaction.on_commit(lambda run_id=run_id: run_enqueue(run_id=run_id))
            else:
                run_finish(run_id=run_id, status=RunStatus.FAILED, reason=reason)
            outcomes[run_id] = outcome
    return outcomes


def _after_worker_lost(run: Run, stale_s: float) -> tuple[str, str]:
    """("retried" | "failed" | "cancelled", reason) for an active run whose worker is gone."""
    lost = f"worker lost: no heartbeat for over {stale_s:g}s"
    if run.cancel_requested_at is not None:  # someone asked it to stop: never start it again
        who = run.cancel_requested_by.get_username() if run.cancel_requested_by_id else "user"
        return "cancelled", f"cancelled by {who}; {lost} before it could stop"
    doubt = run.actions.filter(status=ActionStatus.INTENT).order_by("position").first()
    if doubt is not None:
        return "failed", (f"{lost}, while '{doubt.name or doubt.kind}' (step at position {doubt.position}) was being "
                          "done: it may or may not have taken effect, so it is not repeated; check the site")
    if run.status != RunStatus.RUNNING:
        return "failed", f"{lost} while waiting for a person"
    if "agent" in step_kinds(run.version.steps):
        return "failed", f"{lost} (runs with agent steps are not retried: their actions are not journaled)"
    if run.attempt >= settings.VENUS_RUN_MAX_ATTEMPTS:
        return "failed", f"{lost}; gave up after {run.attempt} attempt(s)"
    done = run.actions.filter(status=ActionStatus.DONE).order_by("-done_at", "-position").first()
    where = f"after '{done.name or done.kind}', which was done" if done else "from the start"
    return "retried", f"{lost}; retrying (attempt {run.attempt + 1}) {where}"


def run_resume_point(*, run: Run) -> Resume | None:
    """Where a retried run continues: right after its last action journaled as done, with the
    session (cookies, storage) and output it had then; from the beginning (position 0, a fresh
    session) when nothing was done, its records after those the lost attempt left. None: start
    from the beginning with nothing recorded yet."""
    last = run.steps.order_by("-index").values_list("index", flat=True).first()
    next_index = 0 if last is None else last + 1
    # The latest done, not the highest position: inside a repeat block positions come round again.
    done = run.actions.filter(status=ActionStatus.DONE).order_by("-done_at", "-position").first()
    if done is None:
        return Resume(position=0, url="", storage_state=None, output={}, next_index=next_index) if next_index else None
    saved: dict[str, Any] = json.loads(decrypt_fields(done.session)["data"]) if done.session else {}
    return Resume(position=done.position + 1, url=done.url_after, storage_state=saved.get("state"),
                  output=saved.get("output") or {}, next_index=max(next_index, done.next_index))
