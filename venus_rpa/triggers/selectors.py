"""Reads for schedules, webhook triggers and callbacks, scoped to one workspace (except the
public webhook lookup, which is by the trigger's unguessable public id)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.triggers.cron import CronError, cron_parse, next_fire_times, timezone_get
from venus_rpa.triggers.models import (
    CallbackDelivery, CallbackEndpoint, Schedule, ScheduleFire, WebhookTrigger,
)


def _searched(objects: QuerySet, search: str) -> QuerySet:
    """Each word in the object's name or its automation's name."""
    for word in search.split()[:5]:
        objects = objects.filter(Q(name__icontains=word) | Q(automation__name__icontains=word))
    return objects


def schedule_list(*, workspace: Workspace, search: str = "") -> QuerySet[Schedule]:
    return _searched(Schedule.objects.filter(workspace=workspace).select_related("automation"), search)


def schedule_get(*, workspace: Workspace, schedule_id: int) -> Schedule:
    return get_object_or_404(schedule_list(workspace=workspace), pk=schedule_id)


def schedule_next_fire_times(*, schedule: Schedule, count: int = 5, after: datetime | None = None) -> list[datetime]:
    """The next ticks of an enabled schedule, in its time zone; none while it is paused."""
    if not schedule.enabled:
        return []
    try:
        return next_fire_times(cron_parse(schedule.cron), timezone_get(schedule.timezone),
                               after=after or timezone.now(), count=count)
    except CronError:  # saved through the services, so only a hand-edited row gets here
        return []


def schedule_fire_list(*, schedule: Schedule, limit: int = 10) -> QuerySet[ScheduleFire]:
    return schedule.fires.order_by("-fire_time")[:limit]


def webhook_trigger_list(*, workspace: Workspace, search: str = "") -> QuerySet[WebhookTrigger]:
    return _searched(WebhookTrigger.objects.filter(workspace=workspace).select_related("automation"), search)


def webhook_trigger_get(*, workspace: Workspace, trigger_id: int) -> WebhookTrigger:
    return get_object_or_404(webhook_trigger_list(workspace=workspace), pk=trigger_id)


def webhook_trigger_by_public_id(*, public_id: str) -> WebhookTrigger:
    """The trigger behind `/hooks/<public_id>/`, or 404."""
    return get_object_or_404(WebhookTrigger.objects.select_related("automation"), public_id=public_id)


def callback_endpoint_list(*, workspace: Workspace) -> QuerySet[CallbackEndpoint]:
    return CallbackEndpoint.objects.filter(workspace=workspace).select_related("automation")


def callback_endpoint_get(*, workspace: Workspace, endpoint_id: int) -> CallbackEndpoint:
    return get_object_or_404(callback_endpoint_list(workspace=workspace), pk=endpoint_id)


def callback_delivery_list(*, workspace: Workspace, run_id: int | None = None, endpoint_id: int | None = None,
                           status: str | None = None) -> QuerySet[CallbackDelivery]:
    deliveries = (CallbackDelivery.objects.filter(endpoint__workspace=workspace)
                  .select_related("endpoint").prefetch_related("attempt_log"))
    if run_id is not None:
        deliveries = deliveries.filter(run_id=run_id)
    if endpoint_id is not None:
        deliveries = deliveries.filter(endpoint_id=endpoint_id)
    if status:
        deliveries = deliveries.filter(status=status)
    return deliveries


def callback_delivery_get(*, workspace: Workspace, delivery_id: int) -> CallbackDelivery:
    return get_object_or_404(callback_delivery_list(workspace=workspace), pk=delivery_id)


def _sample_value(prop: Any) -> Any:
    prop = prop if isinstance(prop, dict) else {}
    for key in ("default", "const"):
        if key in prop:
            return prop[key]
    if isinstance(prop.get("examples"), list) and prop["examples"]:
        return prop["examples"][0]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    kind = prop.get("type", "string")
    if prop.get("format") == "date":
        return timezone.localdate().isoformat()
    return {"integer": 1, "number": 1.5, "boolean": False, "array": [], "object": {}}.get(kind, "example")


def _place(body: dict[str, Any], path: str, value: Any) -> None:
    """Put value at a dot path, making the objects and lists on the way (`items.0.sku`); a path
    that clashes with one placed before is skipped."""
    parts = path.split(".")
    node: Any = body
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        fresh = value if last else ([] if parts[index + 1].isdigit() else {})
        if isinstance(node, list) and part.isdigit():
            position = int(part)
            node.extend([None] * (position + 1 - len(node)))
            if last or node[position] is None:
                node[position] = fresh
            node = node[position]
        elif isinstance(node, dict):
            if last or part not in node:
                node[part] = fresh
            node = node[part]
        else:
            return


def webhook_sample_body(*, trigger: WebhookTrigger) -> dict[str, Any]:
    """A JSON body that would start a run: each parameter's default, example, first choice or a
    plain value of its type, at its mapped path (the body itself when there is no mapping)."""
    version = trigger.automation.current_version
    schema = (version.param_schema if version else {}) or {}
    properties = schema.get("properties") or {}
    wanted = trigger.param_mapping or {name: name for name in (schema.get("required") or properties)}
    body: dict[str, Any] = {}
    for param, path in wanted.items():
        if isinstance(path, str) and path:
            _place(body, path, _sample_value(properties.get(param)))
    return body
