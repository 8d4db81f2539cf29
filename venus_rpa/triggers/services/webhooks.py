"""Writes for inbound webhook triggers: manage them, and receive a signed POST as a run."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings
from django.db import IntegrityError, transaction
from django.views.decorators.debug import sensitive_variables

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import Conflict, InvalidInput, ServiceError
from venus_rpa.core.parsers import json_error_text, json_loads_bounded
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.runs.items import ItemsInput, items_prepare
from venus_rpa.runs.run_files import GivenFile, input_files_prepare
from venus_rpa.runs.services import params_validate, run_start, version_spec
from workers import flow as F
from venus_rpa.triggers import signing
from venus_rpa.triggers.models import WebhookIdempotencyKey, WebhookTrigger
from venus_rpa.triggers.selectors import webhook_trigger_by_public_id
from venus_rpa.triggers.services._common import (
    automation_active_check, automation_check, checked_together, name_check, name_unique, run_api_url, secret_new,
    secret_read,
)

log = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"  # noqa: S105 -- a public prefix, not a secret
IDEMPOTENCY_HEADER = "Idempotency-Key"
PATH_RE = re.compile(r"[^.\s]+(\.[^.\s]+)*")


class SignatureRejected(ServiceError):
    code = "invalid_signature"
    status = 401


class TriggerDisabled(Conflict):
    code = "trigger_disabled"


class ReplayCheckUnavailable(ServiceError):
    code = "unavailable"
    status = 503


def _mapping_validate(*, automation: Automation, mapping: Any) -> dict[str, str]:
    """`{param: "dot.path"}`: params the automation declares (if it declares any), non-empty paths."""
    if not isinstance(mapping, dict):
        raise InvalidInput("The parameter mapping is invalid.", fields={"param_mapping": ["Must be an object."]})
    version = automation.current_version
    declared = set(((version.param_schema if version else {}) or {}).get("properties") or {})
    fields: dict[str, list[str]] = {}
    for param, path in mapping.items():
        if declared and param not in declared:
            fields[f"param_mapping.{param}"] = [f"Not a parameter of the automation ({', '.join(sorted(declared))})."]
        elif not isinstance(path, str) or not PATH_RE.fullmatch(path):
            fields[f"param_mapping.{param}"] = ["Must be a dot path into the JSON body, such as 'data.order.id'."]
    if fields:
        raise InvalidInput("The parameter mapping is invalid.", fields=fields)
    return dict(mapping)


NAME_MAX = 200  # WebhookTrigger.name
NAME_CONSTRAINT = "one_webhook_name_per_workspace"


def _name_check(*, workspace: Workspace, name: str, trigger: WebhookTrigger | None = None) -> str:
    """The name, stripped: required, bounded, and not another webhook's of the workspace (in any
    letter case): see `name_check`."""
    return name_check(objects=WebhookTrigger.objects.filter(workspace=workspace), noun="webhook", name=name,
                      limit=NAME_MAX, current=trigger)


def webhook_trigger_create(*, workspace: Workspace, user, automation: Automation, name: str,
                           param_mapping: dict[str, str] | None = None,
                           enabled: bool = True) -> tuple[WebhookTrigger, str]:
    """Create a trigger; returns it with its raw secret, which is shown this once only."""
    automation_check(workspace=workspace, automation=automation)
    automation_active_check(automation=automation)
    name, mapping = checked_together(lambda: _name_check(workspace=workspace, name=name),
                                     lambda: _mapping_validate(automation=automation, mapping=param_mapping or {}))
    raw, ciphertext = secret_new(SECRET_PREFIX)
    with name_unique(noun="webhook", name=name, constraint=NAME_CONSTRAINT):
        trigger = WebhookTrigger.objects.create(
            workspace=workspace, automation=automation, name=name, public_id=secrets.token_urlsafe(18),
            secret_ciphertext=ciphertext, param_mapping=mapping, enabled=enabled,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
    return trigger, raw


def webhook_trigger_update(*, trigger: WebhookTrigger, name: str | None = None,
                           param_mapping: dict[str, str] | None = None, enabled: bool | None = None) -> WebhookTrigger:
    if param_mapping is not None:
        trigger.param_mapping = _mapping_validate(automation=trigger.automation, mapping=param_mapping)
    if name is not None:
        trigger.name = _name_check(workspace=trigger.workspace, name=name, trigger=trigger)
    if enabled is not None:
        trigger.enabled = enabled
    with name_unique(noun="webhook", name=trigger.name, constraint=NAME_CONSTRAINT):
        trigger.save()
    return trigger


def webhook_trigger_rotate_secret(*, trigger: WebhookTrigger) -> tuple[WebhookTrigger, str]:
    """Replace the secret (the old one stops working at once); returns the new raw secret."""
    raw, trigger.secret_ciphertext = secret_new(SECRET_PREFIX)
    trigger.save(update_fields=["secret_ciphertext", "updated_at"])
    return trigger, raw


def webhook_trigger_delete(*, trigger: WebhookTrigger, user=None) -> None:
    """Delete the trigger (its URL answers 404 from now on; runs it started keep their history);
    audited when `user` is given."""
    if user is not None:
        audit_record(workspace=trigger.workspace, actor=user, action=AuditAction.WEBHOOK_DELETED,
                     automation=trigger.automation, changes=[f"deleted webhook {trigger.name!r}"],
                     before={"webhook": trigger.name, "public_id": trigger.public_id}, after={})
    trigger.delete()


@lru_cache(maxsize=4)
def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def _signature_claim(*, trigger: WebhookTrigger, signature: str) -> None:
    """Remember a verified signature; refuse it if it was seen before (a replay).

    The TTL is twice the tolerance: a timestamp is accepted from `tolerance` seconds in the
    past to `tolerance` seconds in the future, so a signature can be valid for that long.
    """
    key = f"venus:webhook:{trigger.public_id}:sig:{signature.strip()}"
    try:
        fresh = _redis(settings.REDIS_URL).set(key, 1, nx=True, ex=int(2 * settings.VENUS_WEBHOOK_TOLERANCE_SECONDS))
    except redis.RedisError as exc:  # fail closed: without the check a replay would start a run
        log.error("webhook replay check unavailable: %s", exc)
        raise ReplayCheckUnavailable("The webhook cannot be checked right now; retry with a new signature.") from None
    if not fresh:
        raise SignatureRejected("This signature was used before; sign each request anew (new timestamp).")


def _body_parse(body: bytes) -> Any:
    if not body.strip():
        return {}
    try:
        return json_loads_bounded(body)  # a 5,000-deep body is a 400, not a RecursionError
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput("The body is not valid JSON.", fields={"body": [json_error_text(exc)]}) from None


def _lookup(payload: Any, path: str) -> tuple[bool, Any]:
    value = payload
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def webhook_params(*, trigger: WebhookTrigger, payload: Any) -> dict[str, Any]:
    """Run parameters from a payload: each mapped path that is present (absent ones fall back to
    the schema's defaults); without a mapping, the body object itself."""
    if not trigger.param_mapping:
        if not isinstance(payload, dict):
            raise InvalidInput("The body must be a JSON object.", fields={"body": ["Must be a JSON object."]})
        return payload
    params = {}
    for param, path in trigger.param_mapping.items():
        found, value = _lookup(payload, path)
        if found:
            params[param] = value
    return params


ITEMS_KEYS = ("items", "items_file")


def webhook_items(*, trigger: WebhookTrigger, payload: Any) -> tuple[Any, ItemsInput | None]:
    """For an automation with a `for_each` block (runs.items): the body's `items` (a JSON array) or
    `items_file` (a CSV/XLSX sheet in base64) are the run's items, taken out of the body before
    its parameters are mapped. Other automations get the body as it is."""
    version = trigger.automation.current_version
    takes = version is not None and F.for_each_block(version_spec(version=version).steps) is not None
    if not takes or not isinstance(payload, dict):
        return payload, None
    rest = {k: v for k, v in payload.items() if k not in ITEMS_KEYS}
    if "items_file" in payload:
        if not isinstance(payload["items_file"], str):
            raise InvalidInput("items_file must be a base64 text.", fields={"items_file": ["Must be a base64 text."]})
        return rest, ItemsInput.from_base64(payload["items_file"])
    return rest, ItemsInput(array=payload["items"]) if "items" in payload else None


def webhook_files(*, trigger: WebhookTrigger, payload: Any) -> tuple[Any, dict[str, GivenFile] | None]:
    """For an automation whose upload steps take input files (runs.run_files): the body's `files`
    (`{"NAME": {"name": "…", "content": "<base64>"}}`), taken out of the body before its
    parameters are mapped. Other automations get the body as it is."""
    version = trigger.automation.current_version
    takes = version is not None and bool(F.input_files(version_spec(version=version).steps))
    if not takes or not isinstance(payload, dict) or "files" not in payload:
        return payload, None
    given = payload["files"]
    if not isinstance(given, dict):
        raise InvalidInput("files must be an object.", fields={"files": ['Give {"NAME": {"name": "…", "content": "<base64>"}}.']})
    rest = {k: v for k, v in payload.items() if k != "files"}
    return rest, {str(k): GivenFile.from_json(str(k), v) for k, v in given.items()}


def _verified_params(*, trigger: WebhookTrigger, body: bytes, headers: Mapping[str, str],
                     replay_check: bool = True) -> tuple[dict[str, Any], str, ItemsInput | None, dict | None]:
    """The checks every request passes, in order: signature (401) → replay (401) → enabled (409)
    → idempotency key length, JSON and mapping (400). Returns (params, idempotency key)."""
    signature = headers.get(signing.SIGNATURE_HEADER)
    try:
        signing.verify(secret_read(trigger.secret_ciphertext), headers.get(signing.TIMESTAMP_HEADER), body,
                       signature, tolerance=settings.VENUS_WEBHOOK_TOLERANCE_SECONDS)
    except signing.SignatureError as exc:
        raise SignatureRejected(exc.reason) from None
    if replay_check:
        _signature_claim(trigger=trigger, signature=signature)
    if not trigger.enabled:
        raise TriggerDisabled("This webhook trigger is disabled.")
    key = (headers.get(IDEMPOTENCY_HEADER) or "").strip()
    if len(key) > 255:
        raise InvalidInput("The idempotency key is too long.", fields={IDEMPOTENCY_HEADER: ["At most 255 characters."]})
    payload, items = webhook_items(trigger=trigger, payload=_body_parse(body))
    payload, files = webhook_files(trigger=trigger, payload=payload)
    return webhook_params(trigger=trigger, payload=payload), key, items, files


def webhook_receive(*, public_id: str, body: bytes, headers: Mapping[str, str]) -> tuple[Run, bool]:
    """Verify a signed webhook and start its run; returns (run, created).

    Order matters (`_verified_params`), then the parameter schema (400). With an
    `Idempotency-Key`, the first request that starts a run owns the key and later ones get that
    run back (created=False); a request whose params fail claims nothing.
    """
    trigger = webhook_trigger_by_public_id(public_id=public_id)
    params, key, items, files = _verified_params(trigger=trigger, body=body, headers=headers)
    if key:
        existing = WebhookIdempotencyKey.objects.filter(trigger=trigger, key=key, run__isnull=False).first()
        if existing is not None:
            return existing.run, False
    try:
        return _run_start_once(trigger=trigger, params=params, key=key, items=items, files=files)
    except InvalidInput as exc:
        raise _with_paths(exc, trigger.param_mapping) from None


def webhook_check(*, public_id: str, body: bytes, headers: Mapping[str, str]) -> dict[str, Any]:
    """Everything `webhook_receive` checks, on a signed request, without starting a run (the
    dashboard's "Send test event"): the same errors, or the parameters a run would get. The one
    check left out is the replay check: the server signed this request itself a moment ago, and
    leaving its signature unused lets the same body be sent for real (or by curl) at once."""
    trigger = webhook_trigger_by_public_id(public_id=public_id)
    params, _, items, files = _verified_params(trigger=trigger, body=body, headers=headers, replay_check=False)
    version = trigger.automation.current_version
    if version is None:
        raise Conflict("This automation has no version to run.")
    items_prepare(spec=version_spec(version=version), given=items)  # the same item checks as a start
    input_files_prepare(spec=version_spec(version=version), given=files)  # and file checks
    try:
        return params_validate(schema=version.param_schema, params=params)
    except InvalidInput as exc:
        raise _with_paths(exc, trigger.param_mapping) from None


def _run_start_once(*, trigger: WebhookTrigger, params: dict[str, Any], key: str,
                    items: ItemsInput | None = None, files: dict | None = None) -> tuple[Run, bool]:
    with transaction.atomic():
        record = None
        if key:
            try:
                # A concurrent request with the same key waits here for the first to commit,
                # then fails to insert and returns the first one's run.
                with transaction.atomic():
                    record = WebhookIdempotencyKey.objects.create(trigger=trigger, key=key)
            except IntegrityError:
                return WebhookIdempotencyKey.objects.select_related("run").get(trigger=trigger, key=key).run, False
        run = run_start(automation=trigger.automation, params=params, trigger=Trigger.WEBHOOK, items=items, files=files)
        if record is not None:
            record.run = run
            record.save(update_fields=["run"])
    return run, True


def _with_paths(exc: InvalidInput, mapping: dict[str, str]) -> InvalidInput:
    """Name the body path behind each bad parameter, which is what the sender controls."""
    fields = {}
    for field, messages in exc.fields.items():
        param = field.removeprefix("params.").split(".")[0]
        suffix = f" (mapped from body path '{mapping[param]}')" if param in mapping else ""
        fields[field] = [m + suffix for m in messages]
    return InvalidInput(exc.message, fields=fields)


def webhook_answer(*, run: Run) -> dict[str, Any]:
    """The body of a 202/200 answer to a webhook request."""
    return {"run_id": run.pk, "status": run.status, "url": run_api_url(run.pk)}


@sensitive_variables("secret")
def webhook_test_send(*, trigger: WebhookTrigger, body: bytes, start_run: bool = False) -> tuple[int, dict[str, Any]]:
    """"Send test event": sign `body` with the trigger's secret, as a caller would, and put it
    through the receiving path; returns the (status, JSON body) the endpoint would answer.

    Without `start_run` it stops before the run (`webhook_check`: signature, replay, enabled, JSON,
    mapping and parameter schema are all checked) and answers 200 with the parameters a run would
    get; with it, it is a real request (`webhook_receive`) and a run starts on success (202).
    """
    headers = signing.signed_headers(secret_read(trigger.secret_ciphertext), body)
    try:
        if not start_run:
            params = webhook_check(public_id=trigger.public_id, body=body, headers=headers)
            return 200, {"test": True, "run_started": False, "params": params}
        run, created = webhook_receive(public_id=trigger.public_id, body=body, headers=headers)
    except ServiceError as exc:
        return exc.status, {"error": {"code": exc.code, "message": exc.message, "fields": exc.fields}}
    return (202 if created else 200), webhook_answer(run=run)
