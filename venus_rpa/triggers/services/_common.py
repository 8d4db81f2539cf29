"""Helpers the trigger services share: signing secrets (kept encrypted at rest) and run links."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.urls import NoReverseMatch, reverse

from venus_rpa.automations.crypto import decrypt_fields, encrypt_fields
from venus_rpa.core.errors import Conflict, InvalidInput


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
