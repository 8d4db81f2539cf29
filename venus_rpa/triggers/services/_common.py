"""Helpers the trigger services share: signing secrets (kept encrypted at rest), names unique in
a workspace, and run links."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import NoReverseMatch, reverse

from venus_rpa.automations.crypto import decrypt_fields, encrypt_fields
from venus_rpa.core.errors import Conflict, InvalidInput, ServiceError

T = TypeVar("T")


def secret_new(prefix: str) -> tuple[str, str]:
    """A new random signing secret and its ciphertext. The raw value is shown once, never stored."""
    raw = prefix + secrets.token_urlsafe(32)
    return raw, encrypt_fields({"secret": raw})


def secret_read(ciphertext: str) -> str:
    """The raw secret, to compute an HMAC with. Never log it or return it from the API."""
    return decrypt_fields(ciphertext)["secret"]


def automation_check(*, workspace, automation) -> None:
    """Triggers only start automations of their own workspace."""
    if automation is not None and automation.workspace_id != workspace.pk:
        raise InvalidInput("Unknown automation.", fields={"automation": ["Not an automation of this workspace."]})


def automation_active_check(*, automation) -> None:
    """A new schedule or webhook only for an automation that can run: an archived one is never
    started by any path (`automations.lifecycle`), so a trigger made for it would only ever fail."""
    if automation is not None and type(automation).objects.filter(pk=automation.pk, archived_at__isnull=False).exists():
        raise Conflict(f"“{automation.name[:120]}” is archived: restore it from the archive before giving it a "
                       "schedule or a webhook.", fields={"automation": ["This automation is archived."]})


def name_check(*, objects, noun: str, name: str, limit: int, current=None) -> str:
    """The name of a new trigger (or `current`, renamed), stripped: required, at most `limit`
    characters (a name saved before that bound may be kept as it is), and no other's of `objects`
    (the workspace's schedules or webhooks) in any letter case. They are told apart by name on
    their list and in the audit log: a second "ERP" beside the first would leave its owner
    guessing which is theirs. The database holds the same rule (a UniqueConstraint on the
    workspace and the lowercased name, `triggers.models`) against two saves at once."""
    name = name.strip()
    if not name:
        raise InvalidInput(f"A {noun} needs a name.", fields={"name": ["A name is required."]})
    if len(name) > limit and (current is None or name != current.name):
        raise InvalidInput("The name is too long.",
                           fields={"name": [f"At most {limit} characters (this one has {len(name):,})."]})
    others = objects.filter(name__iexact=name)
    if current is not None:
        others = others.exclude(pk=current.pk)
    if others.exists():
        raise name_taken(noun=noun, name=name)
    return name


def name_taken(*, noun: str, name: str) -> Conflict:
    """The error for a name another schedule or webhook of the workspace has (409, `fields.name`)."""
    return Conflict(f"A {noun} named “{name[:120]}” exists already in this workspace: give this one another name.",
                    fields={"name": [f"Another {noun} has this name."]})


def checked_together(check_name: Callable[[], str], validate: Callable[[], T]) -> tuple[str, T]:
    """(`check_name()`, `validate()`), both run so that one answer lists every bad field: when
    both fail, their field errors together (InvalidInput, 400); when one fails, its error as it
    is (a name in use stays a 409)."""
    name_error = None
    try:
        name = check_name()
    except ServiceError as exc:
        name_error = exc
    try:
        value = validate()
    except ServiceError as exc:
        if name_error is not None:
            raise InvalidInput(exc.message, fields={**name_error.fields, **exc.fields}) from exc
        raise
    if name_error is not None:
        raise name_error
    return name, value


@contextmanager
def name_unique(*, noun: str, name: str, constraint: str):
    """Saves in the block that break the `constraint` on names (a same-named trigger saved
    meanwhile, after `name_check`) raise `name_taken`, not a 500. A savepoint, so the caller's
    transaction goes on."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError as exc:
        if constraint in str(exc):
            raise name_taken(noun=noun, name=name) from exc
        raise


def run_api_url(run_id: int) -> str:
    """The run's REST URL under VENUS_PUBLIC_URL (requests may arrive through a proxy)."""
    return settings.VENUS_PUBLIC_URL.rstrip("/") + reverse("run-detail", args=[run_id])


def run_dashboard_url(run_id: int) -> str:
    """The run's dashboard page (`/runs/<id>/` while the dashboard is not mounted)."""
    try:
        path = reverse("dashboard:run-detail", args=[run_id])
    except NoReverseMatch:
        path = f"/runs/{run_id}/"
    return settings.VENUS_PUBLIC_URL.rstrip("/") + path
