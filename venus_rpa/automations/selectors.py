"""Reads for automations and credentials, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation, Credential


def automation_list(*, workspace: Workspace) -> QuerySet[Automation]:
    return Automation.objects.filter(workspace=workspace).select_related("current_version")


def automation_get(*, workspace: Workspace, slug: str) -> Automation:
    """The workspace's automation with this slug, or 404 (also for other workspaces' slugs)."""
    return get_object_or_404(automation_list(workspace=workspace), slug=slug)


def credential_list(*, workspace: Workspace) -> QuerySet[Credential]:
    return Credential.objects.filter(workspace=workspace)
