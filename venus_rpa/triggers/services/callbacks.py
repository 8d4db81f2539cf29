"""Writes for outbound callbacks: endpoints, and the signed `run.finished` deliveries with
retries, an attempt log, resend, and a sweep that catches what the hook could not."""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from venus_rpa import celery_app
from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import Conflict
from venus_rpa.core.outbound import outbound_post, outbound_url_check
from venus_rpa.runs.models import TERMINAL, Run
from venus_rpa.runs.services import secrets_for
from venus_rpa.triggers import signing
from venus_rpa.triggers.models import CallbackAttempt, CallbackDelivery, CallbackEndpoint, DeliveryStatus
from venus_rpa.triggers.services._common import (
    automation_check, run_api_url, run_dashboard_url, secret_new, secret_read,
)

log = logging.getLogger(__name__)
DELIVER_TASK = "venus_rpa.triggers.tasks.callback_deliver_task"

SECRET_PREFIX = "cbsec_"  # noqa: S105 -- a public prefix, not a secret
EVENT = "run.finished"
UNSET = object()
# A due attempt may start this early (task ETAs and the database clock are not one clock).
EARLY = timedelta(seconds=1)
# The sweep creates deliveries the finish hook missed for runs that ended this recently, and
# re-sends pending deliveries whose attempt is this overdue (a lost task message, a dead worker).
SWEEP_WINDOW = timedelta(hours=1)
OVERDUE = timedelta(seconds=60)


def _url_validate(url: str) -> str:
    """The URL if callbacks may be sent there (`core.outbound`: http(s), a real host, no spaces,
    at most 2000 characters, a public or operator-listed address). No user name or password in it:
    the signature authenticates a delivery, and the URL is shown on the dashboard to every member."""
    return outbound_url_check(url, field="url", invalid="The callback URL is invalid.",
                              refused="Callbacks cannot be sent to this address.", userinfo=False)


def callback_endpoint_create(*, workspace: Workspace, user, url: str, automation: Automation | None = None,
                             enabled: bool = True) -> tuple[CallbackEndpoint, str]:
    """Create an endpoint (for one automation, or all when None); returns it with its raw
    signing secret, shown this once only."""
    automation_check(workspace=workspace, automation=automation)
    raw, ciphertext = secret_new(SECRET_PREFIX)
    endpoint = CallbackEndpoint.objects.create(
        workspace=workspace, automation=automation, url=_url_validate(url), secret_ciphertext=ciphertext,
        enabled=enabled, created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    return endpoint, raw


def callback_endpoint_update(*, endpoint: CallbackEndpoint, url: str | None = None, automation=UNSET,
                             enabled: bool | None = None) -> CallbackEndpoint:
    """Change the URL, the automation (None: all automations) or enabled; only what is given."""
    if url is not None:
        endpoint.url = _url_validate(url)
    if automation is not UNSET:
        automation_check(workspace=endpoint.workspace, automation=automation)
        endpoint.automation = automation
    if enabled is not None:
        endpoint.enabled = enabled
    endpoint.save()
    return endpoint


def callback_endpoint_rotate_secret(*, endpoint: CallbackEndpoint) -> tuple[CallbackEndpoint, str]:
    raw, endpoint.secret_ciphertext = secret_new(SECRET_PREFIX)
    endpoint.save(update_fields=["secret_ciphertext", "updated_at"])
    return endpoint, raw


def callback_endpoint_delete(*, endpoint: CallbackEndpoint) -> None:
    endpoint.delete()


def run_payload(run: Run) -> dict:
    """The `run.finished` event. No parameters, credentials or secrets: what the run produced,
    scrubbed once more of the run's vault values (the worker scrubbed them first)."""
    def iso(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return _scrubbed(run, {
        "event": EVENT,
        "run": {
            "id": run.pk, "automation": run.automation.slug, "status": run.status,
            "status_reason": run.status_reason, "output": run.output, "verdict": run.verdict,
            "started_at": iso(run.started_at), "finished_at": iso(run.finished_at),
        },
        "links": {"api": run_api_url(run.pk), "dashboard": run_dashboard_url(run.pk)},
    })


def _scrubbed(run: Run, payload: dict) -> dict:
    """payload without the run's secrets; if the credentials cannot be read any more (deleted,
    key rotated) the worker's scrubbing stands alone."""
    try:
        secrets = secrets_for(run=run)
    except Exception:
        log.warning("could not load run %s's credentials to scrub its callback body", run.pk, exc_info=True)
        return payload
    return secrets.scrub_data(payload)


def _delivery_create(*, endpoint: CallbackEndpoint, run: Run, now: datetime) -> CallbackDelivery | None:
    """A pending delivery, or None if the endpoint has one for this run already."""
    try:
        with transaction.atomic():
            delivery = CallbackDelivery.objects.create(endpoint=endpoint, run=run, payload=run_payload(run),
                                                       next_attempt_at=now)
    except IntegrityError:
        return None
    _enqueue(delivery.pk)
    return delivery


def _enqueue(delivery_id: int, *, countdown: float = 0) -> None:
    """Send the attempt task after commit (by name: the tasks module imports this one). If the
    broker is down, the sweep sends it later."""

    def send() -> None:
        try:
            celery_app.send_task(DELIVER_TASK, args=(delivery_id,), countdown=countdown or None)
        except Exception:
            log.warning("could not enqueue callback delivery %s; the sweep will retry it", delivery_id, exc_info=True)

    transaction.on_commit(send)


def _endpoints_for(run: Run):
    return CallbackEndpoint.objects.filter(workspace_id=run.workspace_id, enabled=True).filter(
        Q(automation__isnull=True) | Q(automation_id=run.automation_id))


def callbacks_on_run_finished(*, run_id: int) -> list[CallbackDelivery]:
    """The hook `run_finish` calls after commit: one pending delivery per matching enabled
    endpoint, each sent by a task on the default queue."""
    run = Run.objects.select_related("automation").get(pk=run_id)
    if run.status not in TERMINAL:
        return []
    now = timezone.now()
    created = [_delivery_create(endpoint=endpoint, run=run, now=now) for endpoint in _endpoints_for(run)]
    return [delivery for delivery in created if delivery is not None]


def _post(endpoint: CallbackEndpoint, delivery: CallbackDelivery) -> tuple[int | None, str]:
    """One signed POST; (status code or None, error text or "")."""
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json", "User-Agent": "VenusRPA-Callbacks/1", "X-Venus-Event": EVENT,
        "X-Venus-Delivery": str(delivery.pk), **signing.signed_headers(secret_read(endpoint.secret_ciphertext), body),
    }
    return outbound_post(endpoint.url, body=body, headers=headers, timeout=settings.VENUS_CALLBACK_TIMEOUT_SECONDS)


def backoff_seconds(attempts: int) -> float:
    """Wait after the `attempts`-th failed attempt: base, 2×base, 4×base…"""
    return settings.VENUS_CALLBACK_BACKOFF_SECONDS * 2 ** (attempts - 1)


def callback_delivery_attempt(*, delivery_id: int) -> CallbackDelivery | None:
    """Make the delivery's next attempt if it is pending and due; None otherwise.

    Connection errors, timeouts and non-2xx answers (redirects included) are retried with
    exponential backoff until VENUS_CALLBACK_MAX_ATTEMPTS; every attempt is logged. The attempt
    is claimed by pushing `next_attempt_at` past the request timeout first, so a duplicate
    task message finds nothing due and a crashed attempt is picked up by the sweep.
    """
    now = timezone.now()
    lease = now + timedelta(seconds=settings.VENUS_CALLBACK_TIMEOUT_SECONDS) + OVERDUE
    if not CallbackDelivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING,
                                           next_attempt_at__lte=now + EARLY).update(next_attempt_at=lease):
        return None
    delivery = CallbackDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    if not delivery.endpoint.enabled:
        return _delivery_end(delivery, DeliveryStatus.FAILED, error="endpoint disabled")
    started = time.monotonic()
    status_code, error = _post(delivery.endpoint, delivery)
    with transaction.atomic():
        CallbackAttempt.objects.create(delivery=delivery, at=now, status_code=status_code, error=error,
                                       duration_ms=(time.monotonic() - started) * 1000)
        delivery.attempts += 1
        delivery.last_status_code = status_code
        if not error:
            return _delivery_end(delivery, DeliveryStatus.DELIVERED)
        if delivery.attempts >= settings.VENUS_CALLBACK_MAX_ATTEMPTS:
            return _delivery_end(delivery, DeliveryStatus.FAILED, error=error)
        wait = backoff_seconds(delivery.attempts)
        delivery.last_error, delivery.next_attempt_at = error, timezone.now() + timedelta(seconds=wait)
        delivery.save(update_fields=["attempts", "last_status_code", "last_error", "next_attempt_at"])
        _enqueue(delivery.pk, countdown=wait)
    return delivery


def _delivery_end(delivery: CallbackDelivery, status: str, *, error: str = "") -> CallbackDelivery:
    delivery.status, delivery.last_error, delivery.next_attempt_at = status, error, None
    delivery.delivered_at = timezone.now() if status == DeliveryStatus.DELIVERED else None
    delivery.save(update_fields=["status", "attempts", "last_status_code", "last_error", "next_attempt_at",
                                 "delivered_at"])
    return delivery


def callback_delivery_resend(*, delivery: CallbackDelivery) -> CallbackDelivery:
    """Send a failed (or delivered) delivery again, with a fresh set of attempts."""
    updated = CallbackDelivery.objects.filter(pk=delivery.pk).exclude(status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=timezone.now(), delivered_at=None,
    )
    if not updated:
        raise Conflict("This delivery is still being sent.")
    _enqueue(delivery.pk)
    delivery.refresh_from_db()
    return delivery


def callbacks_sweep(*, now: datetime | None = None) -> int:
    """Create deliveries for recently ended runs that have none (runs ended by the stale-run
    sweep or cancelled while queued do not pass through `run_finish`), and re-send overdue
    pending deliveries. Idempotent; returns how many deliveries it enqueued."""
    now = now or timezone.now()
    count = 0
    for endpoint in CallbackEndpoint.objects.filter(enabled=True):
        runs = Run.objects.filter(workspace_id=endpoint.workspace_id, status__in=TERMINAL,
                                  finished_at__gte=max(now - SWEEP_WINDOW, endpoint.created_at))
        if endpoint.automation_id:
            runs = runs.filter(automation_id=endpoint.automation_id)
        for run in runs.exclude(callback_deliveries__endpoint=endpoint).select_related("automation"):
            count += _delivery_create(endpoint=endpoint, run=run, now=now) is not None
    overdue = CallbackDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lt=now - OVERDUE)
    for delivery_id in overdue.values_list("pk", flat=True):
        _enqueue(delivery_id)
        count += 1
    return count
