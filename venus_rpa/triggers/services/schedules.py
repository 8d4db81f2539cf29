"""Writes for schedules: create/update/pause/resume/delete (kept in step with their
django-celery-beat PeriodicTask) and the fire that beat triggers at every cron tick."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.automations import checks
from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import InvalidInput, ServiceError
from venus_rpa.runs.models import Trigger
from venus_rpa.runs.services import params_validate, run_start
from venus_rpa.triggers.cron import Cron, CronError, cron_parse, latest_tick, timezone_get
from venus_rpa.triggers.models import Schedule, ScheduleFire
from venus_rpa.triggers.services._common import (
    automation_active_check, automation_check, checked_together, name_check, name_unique,
)

log = logging.getLogger(__name__)

FIRE_TASK = "venus_rpa.triggers.tasks.schedule_fire_task"
FIRE_QUEUE = "default"
# As an automation's name: shown on the schedules list and in audit lines (the column holds 200,
# and a longer name saved before this bound is kept while it is not changed).
NAME_MAX = checks.NAME_MAX
NAME_CONSTRAINT = "one_schedule_name_per_workspace"


def periodic_task_name(schedule_id: int) -> str:
    return f"venus-schedule-{schedule_id}"


def schedule_when_check(*, cron: str, timezone_name: str) -> tuple[Cron | None, dict[str, list[str]]]:
    """The parsed cron expression (None when bad) and the cron's and time zone's field errors."""
    fields: dict[str, list[str]] = {}
    parsed = None
    try:
        parsed = cron_parse(cron)
    except CronError as exc:
        fields["cron"] = [str(exc)]
    try:
        timezone_get(timezone_name)
    except CronError as exc:
        fields["timezone"] = [str(exc)]
    return parsed, fields


def _schedule_validate(*, automation: Automation, cron: str, timezone_name: str, params: Any) -> Cron:
    """Check cron, time zone and params together, so one 400 lists every bad field."""
    parsed, fields = schedule_when_check(cron=cron, timezone_name=timezone_name)
    version = automation.current_version
    try:
        params_validate(schema=version.param_schema if version else {}, params=params)
    except InvalidInput as exc:
        fields.update(exc.fields)
    if fields:
        raise InvalidInput("The schedule is invalid.", fields=fields)
    return parsed


def _name_check(*, workspace: Workspace, name: str, schedule: Schedule | None = None) -> str:
    """The name, stripped: required, bounded, and not another schedule's of the workspace (in
    any letter case): see `name_check`."""
    return name_check(objects=Schedule.objects.filter(workspace=workspace), noun="schedule", name=name,
                      limit=NAME_MAX, current=schedule)


def _periodic_task_sync(*, schedule: Schedule, cron: Cron) -> None:
    """Create or update the schedule's PeriodicTask (and its own CrontabSchedule).

    Saved through the models, not `.update()`: django-celery-beat's signals tell a running beat
    that its schedule changed.
    """
    task = schedule.periodic_task
    if task is None:
        crontab = CrontabSchedule.objects.create(**cron.fields, timezone=schedule.timezone)
        task = PeriodicTask(name=periodic_task_name(schedule.pk), task=FIRE_TASK, crontab=crontab,
                            args=json.dumps([schedule.pk]), queue=FIRE_QUEUE)
    else:
        crontab = task.crontab
        for name, value in cron.fields.items():
            setattr(crontab, name, value)
        crontab.timezone = schedule.timezone
        crontab.save()
    # An archived automation's schedules keep their own enabled flag but beat does not send them.
    task.enabled = schedule.enabled and schedule.automation.archived_at is None
    task.description = f"Venus RPA schedule {schedule.pk}: {schedule.name}"
    task.save()
    if schedule.periodic_task_id != task.pk:
        schedule.periodic_task = task
        schedule.save(update_fields=["periodic_task"])


@transaction.atomic
def schedule_create(*, workspace: Workspace, user, automation: Automation, name: str, cron: str,
                    timezone_name: str = "UTC", params: dict[str, Any] | None = None,
                    enabled: bool = True) -> Schedule:
    """Create a schedule and its beat entry. Params are checked against the automation's
    parameter schema now (and again at every fire, as the schema may change); the name is
    bounded and unique in the workspace (`name_check`: a name in use is a Conflict)."""
    params = {} if params is None else params
    automation_check(workspace=workspace, automation=automation)
    automation_active_check(automation=automation)
    name, parsed = checked_together(
        lambda: _name_check(workspace=workspace, name=name),
        lambda: _schedule_validate(automation=automation, cron=cron, timezone_name=timezone_name, params=params))
    with name_unique(noun="schedule", name=name, constraint=NAME_CONSTRAINT):
        schedule = Schedule.objects.create(
            workspace=workspace, automation=automation, name=name, cron=parsed.expression, timezone=timezone_name,
            params=params, enabled=enabled, created_by=user if getattr(user, "is_authenticated", False) else None,
        )
    _periodic_task_sync(schedule=schedule, cron=parsed)
    return schedule


@transaction.atomic
def schedule_update(*, schedule: Schedule, name: str | None = None, cron: str | None = None,
                    timezone_name: str | None = None, params: dict[str, Any] | None = None) -> Schedule:
    schedule = Schedule.objects.select_for_update(of=("self",)).select_related("automation__current_version",
                                                                   "periodic_task__crontab").get(pk=schedule.pk)
    cron = schedule.cron if cron is None else cron
    timezone_name = schedule.timezone if timezone_name is None else timezone_name
    params = schedule.params if params is None else params
    name, parsed = checked_together(
        lambda: schedule.name if name is None else _name_check(workspace=schedule.workspace, name=name,
                                                               schedule=schedule),
        lambda: _schedule_validate(automation=schedule.automation, cron=cron, timezone_name=timezone_name,
                                   params=params))
    schedule.name = name
    schedule.cron, schedule.timezone, schedule.params = parsed.expression, timezone_name, params
    with name_unique(noun="schedule", name=name, constraint=NAME_CONSTRAINT):
        schedule.save()
    _periodic_task_sync(schedule=schedule, cron=parsed)
    return schedule


@transaction.atomic
def schedule_set_enabled(*, schedule: Schedule, enabled: bool) -> Schedule:
    """Pause (False) or resume (True). Idempotent. Beat does not catch up on ticks missed while
    paused: django-celery-beat forgets a disabled task's last run."""
    schedule = (Schedule.objects.select_for_update(of=("self",)).select_related("periodic_task__crontab")
                .get(pk=schedule.pk))
    schedule.enabled = enabled
    schedule.save(update_fields=["enabled", "updated_at"])
    _periodic_task_sync(schedule=schedule, cron=cron_parse(schedule.cron))
    return schedule


def schedules_sync_archived(*, automation_id: int) -> None:
    """After the automation was archived or restored: its schedules' beat entries follow."""
    for schedule in Schedule.objects.filter(automation_id=automation_id).select_related(
            "automation", "periodic_task__crontab"):
        _periodic_task_sync(schedule=schedule, cron=cron_parse(schedule.cron))


@transaction.atomic
def schedule_delete(*, schedule: Schedule, user=None) -> None:
    """Delete the schedule and its beat entry (runs it started keep their history); audited
    when `user` is given."""
    task = schedule.periodic_task
    if user is not None:
        audit_record(workspace=schedule.workspace, actor=user, action=AuditAction.SCHEDULE_DELETED,
                     automation=schedule.automation, changes=[f"deleted schedule {schedule.name!r}"],
                     before={"schedule": schedule.name, "cron": schedule.cron, "timezone": schedule.timezone}, after={})
    schedule.delete()
    if task is not None:
        _periodic_task_delete(task)


def _periodic_task_delete(task: PeriodicTask) -> None:
    crontab = task.crontab
    task.delete()
    if crontab is not None and not crontab.periodictask_set.exists():
        crontab.delete()


def schedule_fire(*, schedule_id: int, now: datetime | None = None) -> ScheduleFire | None:
    """Start the run of the cron tick that `now` belongs to (the latest tick at or before it).

    At most one run per (schedule, tick): the ScheduleFire row is inserted first and its unique
    constraint makes a second delivery of the same tick (beat sending twice, a redelivered
    message, two workers at once) fail to insert and start nothing. Returns None when nothing
    was fired: the schedule is gone or paused, the tick predates the schedule, or the tick was
    fired already. Parameters that no longer validate are recorded on the fire and the
    schedule (`last_error`) instead of raising.
    """
    now = now or timezone.now()
    schedule = Schedule.objects.select_related("automation").filter(pk=schedule_id).first()
    if schedule is None:
        _orphan_task_delete(schedule_id)
        return None
    if not schedule.enabled:
        return None
    tick = latest_tick(cron_parse(schedule.cron), timezone_get(schedule.timezone), at=now)
    if tick is None or tick < schedule.created_at:
        return None
    try:
        with transaction.atomic():
            fire = ScheduleFire.objects.create(schedule=schedule, fire_time=tick)
            try:
                fire.run = run_start(automation=schedule.automation, params=schedule.params,
                                     trigger=Trigger.SCHEDULE)
            except ServiceError as exc:
                fire.error = _error_text(exc)
                log.warning("schedule %s: the fire at %s started no run: %s", schedule.pk, tick, fire.error)
            fire.save(update_fields=["run", "error"])
            Schedule.objects.filter(pk=schedule.pk).update(last_fired_at=tick, last_error=fire.error)
    except IntegrityError:
        log.info("schedule %s: the tick %s was fired already", schedule.pk, tick)
        return None
    return fire


def _error_text(exc: ServiceError) -> str:
    details = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in exc.fields.items())
    return f"{exc.message} {details}".strip()


def _orphan_task_delete(schedule_id: int) -> None:
    """A beat entry whose schedule is gone (deleted with its automation): remove it."""
    task = PeriodicTask.objects.filter(name=periodic_task_name(schedule_id), task=FIRE_TASK).first()
    if task is not None:
        _periodic_task_delete(task)
