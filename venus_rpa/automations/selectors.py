"""Reads for automations and credentials, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import (Automation, AutomationVersion, Credential, LoginSession, ReplayPath,
                                         SiteLetterCase)


def automation_list(*, workspace: Workspace, archived: bool | None = None, search: str = "") -> QuerySet[Automation]:
    """The workspace's automations; `archived` False/True: only active/only archived (None: all);
    `search`: words in the name, slug or description."""
    automations = Automation.objects.filter(workspace=workspace).select_related("current_version")
    if archived is not None:
        automations = automations.filter(archived_at__isnull=not archived)
    for word in search.split()[:5]:
        automations = automations.filter(Q(name__icontains=word) | Q(slug__icontains=word)
                                         | Q(description__icontains=word))
    return automations


def automation_get(*, workspace: Workspace, slug: str) -> Automation:
    """The workspace's automation with this slug, or 404 (also for other workspaces' slugs)."""
    return get_object_or_404(automation_list(workspace=workspace), slug=slug)


def credential_list(*, workspace: Workspace, search: str = "") -> QuerySet[Credential]:
    credentials = Credential.objects.filter(workspace=workspace)
    for word in search.split()[:5]:
        credentials = credentials.filter(name__icontains=word)
    return credentials


def version_get(*, automation: Automation, number: int) -> AutomationVersion:
    """One version of the automation by number, or 404."""
    return get_object_or_404(automation.versions.all(), number=number)


def credential_get(*, workspace: Workspace, name: str) -> Credential:
    """The workspace's credential with this name, or 404 (also for other workspaces' names)."""
    return get_object_or_404(credential_list(workspace=workspace), name=name)


def login_session_list(*, credential: Credential) -> QuerySet[LoginSession]:
    """The credential's saved sign-in sessions (metadata only is ever shown), by domain."""
    return LoginSession.objects.filter(credential=credential, workspace=credential.workspace).defer("ciphertext")


def login_session_get(*, credential: Credential, session_id: int) -> LoginSession:
    """One of the credential's saved sessions, or 404."""
    return get_object_or_404(login_session_list(credential=credential), pk=session_id)


def replay_path_turns(*, version_id: int, step_key: str) -> list | None:
    """The cached turns of one agent step of one automation version (JSON), or None."""
    return ReplayPath.objects.filter(version_id=version_id, step_key=step_key).values_list("turns", flat=True).first()


def replay_path_list(*, automation: Automation) -> QuerySet[ReplayPath]:
    """The cached paths of the automation's current version (what the next run replays)."""
    return ReplayPath.objects.filter(version_id=automation.current_version_id).order_by("step_key")


def site_letter_case_list(*, automation: Automation) -> QuerySet[SiteLetterCase]:
    """What each site's verdicts taught about its text CAPTCHAs' letter case, for the editor: the
    50 sites answered most recently."""
    return SiteLetterCase.objects.filter(automation=automation).order_by("-updated_at", "host")[:50]
