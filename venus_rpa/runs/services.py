"""Writes for runs: start, dispatch (admission and enqueue), cancel, claim (worker side), finish, sweep."""

from __future__ import annotations

import json
import logging
import socket
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from referencing.exceptions import Unresolvable

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.automations.calls import called_credentials, calls_expand, calls_resolve
from venus_rpa.automations.checks import param_size
from venus_rpa.automations.crypto import decrypt_fields
from venus_rpa.automations.lifecycle import archived_refusal
from venus_rpa.automations.models import Automation, Credential
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.core.text import NOT_STORABLE, not_storable, shown
from venus_rpa import celery_app
from venus_rpa.runs import admission
from venus_rpa.runs.events import publish_run_changed, publish_run_event
from venus_rpa.runs.run_files import GivenFile, input_files_prepare, run_input_files_create
from venus_rpa.runs.items import ItemsInput, PreparedItems, items_prepare, run_items_create, run_items_settle
from venus_rpa.runs.models import TERMINAL, Run, RunContinuation, RunStatus, Trigger
from venus_rpa.runs.param_messages import param_error_text
from venus_rpa.runs.signals import run_finished
from venus_rpa.runs.waits import run_continue, run_is_parked
from workers import patterns
from workers.egress import no_fetch_registry
from workers.secrets import Credential as RuntimeCredential, SecretBox
from workers.steps import AutomationSpec

log = logging.getLogger(__name__)
EXECUTE_TASK = "venus_rpa.runs.tasks.run_execute_task"


STARTED_BY = {Trigger.API: "through the API", Trigger.DASHBOARD: "from the dashboard", Trigger.CLI: "from the command line",
              Trigger.SCHEDULE: "by a schedule", Trigger.WEBHOOK: "by a webhook"}


PARAMS_NOT_OBJECT = 'Must be an object of parameter name → value, such as {"title": "Taxi"}.'
BLANK_REQUIRED = "This parameter is required."
BLANK_REQUIRED_WITH_DEFAULT = "This parameter is required (a cleared field does not fall back to its default)."


def params_bounds_check(params: dict[str, Any]) -> None:
    """Refuse parameters holding text PostgreSQL cannot store (first: their JSON cannot even be
    encoded), or too large to store or show (settings VENUS_PARAM_MAX_CHARS per value,
    VENUS_PARAMS_MAX_KEYS, VENUS_PARAMS_MAX_BYTES of JSON in all), before anything else reads them."""
    unstorable = sorted(shown(k) for k, v in params.items() if not_storable(k) or not_storable(v))
    if unstorable:
        raise InvalidInput("A parameter holds text that cannot be stored.",
                           fields={f"params.{k}": [NOT_STORABLE] for k in unstorable})
    max_keys = settings.VENUS_PARAMS_MAX_KEYS
    if len(params) > max_keys:
        raise InvalidInput("Too many parameters.", fields={
            "params": [f"At most {max_keys} parameters may be given ({len(params)} were)."]})
    max_chars = settings.VENUS_PARAM_MAX_CHARS
    sizes = {str(k): param_size(v) for k, v in params.items()}
    long = {k: n for k, n in sizes.items() if n > max_chars}
    if long:
        raise InvalidInput(f"A parameter value may be at most {max_chars} characters long.", fields={
            f"params.{k}": [f"Must be at most {max_chars} characters long (this value has {n})."]
            for k, n in sorted(long.items())})
    max_bytes = settings.VENUS_PARAMS_MAX_BYTES
    total = len(json.dumps(params, ensure_ascii=False).encode())
    if total > max_bytes:
        raise InvalidInput("The parameters are too large.", fields={
            "params": [f"The parameters together must be at most {max_bytes} bytes of JSON (these are {total})."]})


def _blank_required(schema: dict, params: dict[str, Any]) -> dict[str, list[str]]:
    """Required parameters given as empty (or only blank) text: refused, never taken as given nor
    replaced by a default. One rule for every start path (API, dashboard form, schedule, webhook)."""
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    fields = {}
    for name in required:
        value = params.get(name)
        if isinstance(value, str) and value.strip() == "":
            prop = properties.get(name)
            has_default = isinstance(prop, dict) and "default" in prop
            fields[f"params.{name}"] = [BLANK_REQUIRED_WITH_DEFAULT if has_default else BLANK_REQUIRED]
    return fields


def params_validate(*, schema: dict, params: dict[str, Any]) -> dict[str, Any]:
    """Validate run parameters against the automation's JSON Schema; apply defaults. Bounded in
    size (`params_bounds_check`); a required parameter given as empty text is missing."""
    if not isinstance(params, dict):
        raise InvalidInput("Parameters must be an object.", fields={"params": [PARAMS_NOT_OBJECT]})
    params_bounds_check(params)
    smuggled = sorted(k for k, v in params.items() if "{{" in json.dumps(v))
    if smuggled:
        raise InvalidInput("Parameters may not contain templates.",
                           fields={f"params.{k}": ["Must not contain '{{'."] for k in smuggled})
    schema = schema or {"type": "object"}
    blank = _blank_required(schema, params)
    with_defaults = {**{k: v["default"] for k, v in (schema.get("properties") or {}).items()
                        if isinstance(v, dict) and "default" in v}, **params}
    try:  # what is stored and what a retry gives again: an accepted start can always be retried
        params_bounds_check(with_defaults)
    except InvalidInput as exc:
        raise InvalidInput(f"{exc.message} (with the parameter schema's defaults added)", fields={"param_schema": [
            *(f"With its defaults added, {where}: {message}" for where, ms in exc.fields.items() for message in ms),
            "Shorten the defaults in the automation's parameter schema."]}) from None
    try:  # user regexes run bounded; a remote $ref is never fetched (refused at save, unresolvable here)
        errors = patterns.schema_errors(schema, with_defaults, registry=no_fetch_registry())
    except Unresolvable as exc:
        raise InvalidInput("The automation's parameter schema refers to a schema outside itself.",
                           fields={"param_schema": [f"$ref {exc.ref!r} cannot be resolved; remote schemas are never fetched."]}) from None
    if errors or blank:
        fields: dict[str, list[str]] = dict(blank)
        for error in errors:
            path = ".".join(str(p) for p in error.path)
            if error.path and f"params.{error.path[0]}" in blank:
                continue  # a blank required value: said once, as missing
            if error.validator == "required":
                missing = error.message.split("'")[1] if "'" in error.message else ""
                fields.setdefault(f"params.{missing}" if missing else "params", []).append(BLANK_REQUIRED)
            elif error.validator == "additionalProperties":
                unknown = sorted(set(error.instance) - set(error.schema.get("properties") or {}))
                fields.setdefault("params", []).append(f"Not a parameter of this automation: {', '.join(unknown)}.")
            else:
                fields.setdefault(f"params.{path}" if path else "params", []).append(param_error_text(error))
        raise InvalidInput("The parameters do not match the automation's parameter schema.", fields=fields)
    return with_defaults


def run_start(*, automation: Automation, params: dict[str, Any], user=None, trigger: str = Trigger.API,
              retry_of: Run | None = None, items: ItemsInput | PreparedItems | None = None,
              files: dict[str, GivenFile] | None = None) -> Run:
    """Create a queued run of the automation's current version; after commit the dispatcher
    admits it when its workspace's turn comes (`runs_dispatch`). An archived automation is
    refused (Conflict) whatever the path. `retry_of`: the run this one retries (runs.reruns).
    `items`: for an automation with a `for_each` block, its items (runs.items): checked before
    the run is created, stored with it in one transaction. `files`: the input files its upload
    steps take (runs.run_files), checked and stored the same way; a retry takes its original's."""
    # Read the current version afresh: the caller's object may predate an edit.
    fresh = Automation.objects.select_related("current_version").get(pk=automation.pk)
    if fresh.archived_at is not None:  # every start path comes here: dashboard, API, schedule, webhook, retry
        raise archived_refusal(fresh)
    version = fresh.current_version
    if version is None:
        raise Conflict("This automation has no version to run.")
    clean = params_validate(schema=version.param_schema, params=params)
    spec = version_spec(version=version)
    prepared = items if isinstance(items, PreparedItems) else items_prepare(spec=spec, given=items)
    inputs = input_files_prepare(spec=spec, given=files, retry_of=retry_of)
    call_versions, problems = calls_resolve(workspace=automation.workspace, spec=spec, slug=fresh.slug)
    if problems:  # a called automation archived, or changed so that this call no longer fits it
        raise Conflict("This automation calls another that cannot run now: "
                       + " ".join(m for messages in problems.values() for m in messages), fields=problems)
    with transaction.atomic():
        run = Run.objects.create(
            workspace=automation.workspace, automation=automation, version=version, params=clean,
            trigger=trigger, created_by=user if getattr(user, "is_authenticated", False) else None,
            retry_of=retry_of, call_versions=call_versions,
        )
        if prepared is not None:
            run_items_create(run=run, prepared=prepared)
        run_input_files_create(run=run, prepared=inputs)
        if retry_of is None:  # a retry is audited as such by `runs.reruns`
            audit_record(workspace=automation.workspace, actor=user, action=AuditAction.RUN_STARTED,
                         automation=fresh, version_number=version.number,
                         changes=[f"run #{run.pk} started {STARTED_BY.get(trigger, trigger)}"], before={},
                         after={"run": run.pk, "trigger": trigger})
        publish_run_changed(run.pk)
        transaction.on_commit(runs_dispatch, robust=True)  # beat's dispatch is the safety net
    return run


def runs_dispatch() -> list[int]:
    """Admit what the concurrency limits allow (`admission.runs_admit`) and send each admitted run
    to Celery after commit. Called after every change that may free a slot or queue a run (a run
    created, ended, parked or cancelled; a limit raised) and by beat as a safety net. Returns the
    admitted run ids."""
    admitted = admission.runs_admit()
    if admitted:
        transaction.on_commit(lambda: _send_admitted(admitted))
    return admitted


def _send_admitted(run_ids: list[int]) -> None:
    for index, run_id in enumerate(run_ids):
        if not run_enqueue(run_id=run_id):  # the broker is down: the rest go back in line with this one
            Run.objects.filter(pk__in=run_ids[index:], status=RunStatus.QUEUED).update(admitted_at=None)
            run_ids = run_ids[:index]
            break
    for run_id in run_ids:
        publish_run_event(run_id, {"type": "run.status", "status": RunStatus.QUEUED, "queue_position": 0})
        publish_run_changed(run_id)
    _publish_queue_positions(workspace_ids=set(Run.objects.filter(pk__in=run_ids).values_list("workspace", flat=True)))


def run_enqueue(*, run_id: int, count: bool = True) -> bool:
    """Send the run's task (a new message id each time). False if the broker was unreachable:
    the run stays queued and the sweep tries again. `count`: the send counts towards the
    sweep's VENUS_REQUEUE_MAX (not when the earlier message may still exist)."""
    updated = Run.objects.filter(pk=run_id, status=RunStatus.QUEUED).update(
        enqueue_count=F("enqueue_count") + int(count), enqueued_at=timezone.now())
    if not updated:
        return False
    sent = Run.objects.filter(pk=run_id).values_list("enqueue_count", flat=True).get()
    task_id = f"run-{run_id}-{sent}" + ("" if count else f"-{int(time.time() * 1000) % 100000}")
    Run.objects.filter(pk=run_id).update(task_id=task_id)
    try:
        # By name: the tasks module imports this one, never the other way round (no import cycle).
        celery_app.send_task(EXECUTE_TASK, args=[run_id], task_id=task_id, retry=True,
                             retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5})
    except Exception:  # broker down: the run stays queued; the sweep sends it again
        log.warning("could not send run %s to the broker; the sweep will retry", run_id, exc_info=True)
        return False
    return True


# Live queue positions are pushed to this many waiting runs per workspace (their pages refresh);
# runs further back show their position as of the last page load.
QUEUE_EVENTS_MAX = 20


def _publish_queue_positions(*, workspace_ids: set[int]) -> None:
    for workspace_id in workspace_ids:
        ahead = Run.objects.filter(admission.waiting(), workspace_id=workspace_id).order_by("pk")
        for position, run_id in enumerate(ahead.values_list("pk", flat=True)[:QUEUE_EVENTS_MAX], start=1):
            publish_run_event(run_id, {"type": "run.queue", "queue_position": position})


def run_slot_release(*, run_id: int) -> bool:
    """Give back the slot of a run whose wait has parked it (its task ended; a decision will
    enqueue its continuation), so the next waiting run is admitted. False if it held none."""
    released = Run.objects.filter(pk=run_id, status__in=[RunStatus.AWAITING_REVIEW, RunStatus.AWAITING_USER],
                                  admitted_at__isnull=False).update(admitted_at=None)
    if released:
        transaction.on_commit(runs_dispatch, robust=True)
    return bool(released)


def workspace_run_limit_set(*, workspace: Workspace, max_concurrent_runs: int | None) -> Workspace:
    """Set how many of the workspace's runs may hold slots at once (None: the platform default).
    A raised limit admits waiting runs at once."""
    ceiling = settings.VENUS_RUNS_PER_WORKSPACE_MAX
    if max_concurrent_runs is not None and not 1 <= max_concurrent_runs <= ceiling:
        raise InvalidInput("The concurrency limit is out of range.",
                           fields={"max_concurrent_runs": [f"Must be between 1 and {ceiling}, or null for the default."]})
    workspace.max_concurrent_runs = max_concurrent_runs
    workspace.save(update_fields=["max_concurrent_runs"])
    transaction.on_commit(runs_dispatch, robust=True)
    return workspace


def cancel_reason(*, run: Run, user=None, at: str = "", waiting: str = "") -> str:
    """Why a cancelled run ended: who asked (`user`, else the run's `cancel_requested_by`; "user" when
    nobody is known) and how far it had got: "before it started" only for a run that never started
    (no start time, no step recorded); else "while running" (or `waiting`, e.g. "waiting for a
    person") and where. `at`: the step its worker stopped it at, as the editor numbers it
    ("step 4 (Click Next)", `workers.run_state.RunResult.at`), as failure reasons name steps. Without
    it (nobody was running it), "after step #N": its last trace record, numbered as the run page
    numbers its records."""
    if not getattr(user, "is_authenticated", False):
        user = run.cancel_requested_by if run.cancel_requested_by_id else None
    who = user.get_username() if user is not None else "user"
    last = run.steps.order_by("-index").values_list("index", flat=True).first()
    if run.started_at is None and last is None:
        return f"cancelled by {who} before it started"
    if at:
        where = at if at.startswith(("before ", "after ")) else f"at {at}"
    else:
        where = f"after step #{last}" if last is not None else "before its first step"
    return f"cancelled by {who} while {waiting or 'running'}, {where}"


def run_cancel(*, run: Run, user=None) -> Run:
    """Cancel a queued run at once; ask a running one to stop (its worker ends it as cancelled).
    `user`, who asks, is named in the reason the run ends with (`cancel_reason`)."""
    now = timezone.now()
    if run.status in TERMINAL:
        raise Conflict(f"The run has already ended ({run.status}).")
    by = user if getattr(user, "is_authenticated", False) else None
    current = Run.objects.get(pk=run.pk)  # its start time as it is now (the caller's object may be older)
    updated = Run.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
        status=RunStatus.CANCELLED, status_reason=cancel_reason(run=current, user=by), finished_at=now,
        cancel_requested_at=now, cancel_requested_by=by,
    )
    if updated:
        _finished(run.pk)
    elif run_is_parked(run_id=run.pk):  # no worker holds it: end it here
        Run.objects.filter(pk=run.pk).update(cancel_requested_by=by)
        run_finish(run_id=run.pk, status=RunStatus.CANCELLED,
                   reason=cancel_reason(run=current, user=by, waiting="waiting for a person"))
    else:  # its worker ends it (runs.execution), or the sweep if the worker is gone (runs.recovery)
        Run.objects.filter(pk=run.pk).exclude(status__in=TERMINAL).update(cancel_requested_at=now,
                                                                          cancel_requested_by=by)
    run.refresh_from_db()
    if updated:  # a waiting run moves the runs behind it up (`_finished` frees an admitted one's slot)
        transaction.on_commit(lambda: _publish_queue_positions(workspace_ids={run.workspace_id}), robust=True)
    return run


def run_claim(*, run_id: int) -> Run | None:
    """Move an admitted, queued run to running for this worker. None if it is not queued any more
    (a replayed or duplicate task, or a cancelled run) or was never admitted (a message that
    skipped the dispatcher: the run keeps its place in the queue): replays are harmless."""
    now = timezone.now()
    worker = f"{socket.gethostname()}"
    claimed = Run.objects.filter(pk=run_id, status=RunStatus.QUEUED, admitted_at__isnull=False).update(
        status=RunStatus.RUNNING, started_at=now, heartbeat_at=now, worker=worker
    )
    if not claimed:
        return None
    _publish_status(run_id)
    return Run.objects.select_related("version", "automation").get(pk=run_id)


def run_status_set(*, run_id: int, status: str) -> bool:
    """Move a run between its in-progress states (running, awaiting_review, awaiting_user), as its
    worker does when it waits for a person and when it goes on; an ended run is left alone.
    The workspace's live pages hear of it. False if nothing changed."""
    changed = Run.objects.filter(pk=run_id, status__in=[RunStatus.RUNNING, RunStatus.AWAITING_USER,
                                                        RunStatus.AWAITING_REVIEW]).exclude(status=status).update(status=status)
    if changed:
        publish_run_changed(run_id)
    return bool(changed)


def run_finish(*, run_id: int, status: str, reason: str, output: dict | None = None, verdict: dict | None = None,
               only_from: set[str] | None = None, attempt: int | None = None) -> bool:
    """Put a run in a terminal state unless it is in one already (the sweep may have won);
    with `only_from`, only from one of those states; with `attempt`, only while the run is on
    that attempt (an execution the sweep has retried does not end the retry). Listeners of `runs.signals.run_finished`
    hear of it (callbacks, pending reviews); its slot goes to the next waiting run."""
    with transaction.atomic():
        runs = Run.objects.filter(pk=run_id).exclude(status__in=TERMINAL)
        if only_from is not None:
            runs = runs.filter(status__in=only_from)
        if attempt is not None:
            runs = runs.filter(attempt=attempt)
        updated = runs.update(
            status=status, status_reason=reason[:5000], output=output or {}, verdict=verdict or {},
            finished_at=timezone.now(),
        )
        if updated:
            run_items_settle(run_id=run_id, reason=reason)
            _finished(run_id)
    return bool(updated)


def _finished(run_id: int) -> None:
    """After a run reached a terminal state: its saved session goes, the live page and the
    listeners hear of it, and the dispatcher gives its slot to the next waiting run."""
    RunContinuation.objects.filter(run_id=run_id).delete()
    _publish_status(run_id)
    run_finished.send(sender=Run, run_id=run_id, status=Run.objects.values_list("status", flat=True).get(pk=run_id))
    transaction.on_commit(runs_dispatch, robust=True)


def _publish_status(run_id: int) -> None:
    run = Run.objects.get(pk=run_id)
    publish_run_event(run_id, {"type": "run.status", "status": run.status, "reason": run.status_reason})
    publish_run_changed(run_id)


def secrets_for(*, run: Run) -> SecretBox:
    """The vault values the run's version and the versions it calls name (worker side only)."""
    return version_secrets(workspace=run.workspace, version=run.version,
                           also=called_credentials(frozen=run.call_versions or {}))


def version_secrets(*, workspace, version, also: list[str] = ()) -> SecretBox:
    """The vault values of the credentials an automation version names, and `also` (worker side only)."""
    box = SecretBox()
    for credential in Credential.objects.filter(workspace=workspace, name__in=[*version.credentials, *also]):
        box.credentials[credential.name] = RuntimeCredential(
            name=credential.name, fields=decrypt_fields(credential.ciphertext), domains=credential.domains
        )
    return box


def spec_for(*, run: Run) -> AutomationSpec:
    """The run's spec: its version's, with the steps of the versions it calls in place."""
    return calls_expand(workspace=run.workspace, spec=version_spec(version=run.version),
                        slug=run.automation.slug, frozen=run.call_versions or {})


def version_spec(*, version) -> AutomationSpec:
    """The runtime's definition of an automation version."""
    return AutomationSpec.model_validate({name: getattr(version, name) for name in AutomationSpec.model_fields})


def answer_key(run_id: int) -> str:
    """Redis list the worker waits on (BLPOP) for a person's answer to the agent's question."""
    return f"venus:run:{run_id}:answers"


def run_answer(*, run: Run, answer: str) -> Run:
    """Answer the question of a run awaiting_user; its worker resumes within a second, or, when
    the run was parked, its continuation is enqueued after commit."""
    answer = answer.strip()
    if not answer:
        raise InvalidInput("The answer is empty.", fields={"answer": ["This field may not be blank."]})
    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, status=RunStatus.AWAITING_USER).exclude(question="").update(
            answer=answer)
        if not updated:
            raise Conflict(f"The run is not waiting for an answer (it is {Run.objects.get(pk=run.pk).status}).")
        # After commit: a worker parking the run at this moment checks for an answer after its own commit.
        transaction.on_commit(lambda: run_continue(run_id=run.pk))
    try:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        client.rpush(answer_key(run.pk), answer)
        client.expire(answer_key(run.pk), 24 * 3600)
    except Exception:  # the worker also re-reads the database every few seconds
        log.warning("could not signal the answer for run %s through Redis", run.pk, exc_info=True)
    run.refresh_from_db()
    return run


def runs_waits_sweep() -> dict[str, list[int]]:
    """Beat: end parked runs whose question nobody answered in time, and enqueue again the
    continuations whose task was asked for but never started (a broker that was down)."""
    now = timezone.now()
    expired = []
    cutoff = now - timedelta(seconds=settings.VENUS_ANSWER_TIMEOUT_SECONDS)
    for run in Run.objects.filter(status=RunStatus.AWAITING_USER, continuation__wait=RunContinuation.Wait.ANSWER,
                                  continuation__resume_requested_at__isnull=True, question_asked_at__lt=cutoff):
        reason = (f"nobody answered the agent's question within {settings.VENUS_ANSWER_TIMEOUT_SECONDS:g}s: "
                  f"{run.question}")
        if run_finish(run_id=run.pk, status=RunStatus.FAILED, reason=reason):
            expired.append(run.pk)
    stuck = list(RunContinuation.objects.filter(
        resume_requested_at__lt=now - timedelta(seconds=settings.VENUS_HEARTBEAT_STALE_SECONDS),
    ).exclude(run__status__in=TERMINAL).values_list("run_id", flat=True))
    for run_id in stuck:
        with transaction.atomic():
            run_continue(run_id=run_id)
    return {"expired": expired, "re_enqueued": stuck}
