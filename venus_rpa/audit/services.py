"""Writes for the audit log."""

from __future__ import annotations

from typing import Any

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditEvent


def audit_record(*, workspace: Workspace, actor, action: str, automation=None, version_number: int | None = None,
                 changes: list[str], before: dict[str, Any], after: dict[str, Any]) -> AuditEvent:
    """Append one event. `actor` None means the system (a management command, a seed)."""
    return AuditEvent.objects.create(
        workspace=workspace, actor=actor if getattr(actor, "pk", None) else None,
        actor_name=getattr(actor, "username", "") or "", action=action, automation=automation,
        automation_slug=getattr(automation, "slug", "") or "", version_number=version_number,
        changes=changes, before=before, after=after,
    )
