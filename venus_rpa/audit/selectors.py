"""Reads for the audit log."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction, AuditEvent


def audit_list(*, workspace: Workspace, automation=None, search: str = "", action: str | None = None) -> QuerySet[AuditEvent]:
    """The workspace's events, newest first; only one automation's when given. `search`: words
    each found in who acted, the automation or what changed; `action`: one kind of event."""
    events = AuditEvent.objects.filter(workspace=workspace).select_related("actor", "automation")
    if automation is not None:
        events = events.filter(automation=automation)
    if action in AuditAction.values:
        events = events.filter(action=action)
    for word in search.split()[:5]:
        events = events.filter(Q(actor_name__icontains=word) | Q(automation_slug__icontains=word)
                               | Q(changes__icontains=word))
    return events
