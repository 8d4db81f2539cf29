"""Reads for the audit log."""

from __future__ import annotations

from django.db.models import QuerySet

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditEvent


def audit_list(*, workspace: Workspace, automation=None) -> QuerySet[AuditEvent]:
    """The workspace's events, newest first; only one automation's when given."""
    events = AuditEvent.objects.filter(workspace=workspace).select_related("actor")
    return events.filter(automation=automation) if automation is not None else events
