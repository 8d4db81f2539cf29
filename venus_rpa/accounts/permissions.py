"""Workspace resolution and role checks shared by the API and the dashboard."""

from __future__ import annotations

from rest_framework import exceptions

from venus_rpa.accounts.models import WRITE_ROLES, Workspace
from venus_rpa.accounts.selectors import membership_get, workspace_default_for_user


def request_workspace(request) -> Workspace:
    """The caller's workspace: the API token's, else the session user's oldest membership."""
    workspace = getattr(request, "workspace", None) or getattr(getattr(request, "_request", None), "workspace", None)
    if workspace is None:
        workspace = workspace_default_for_user(user=request.user)
    if workspace is None:
        raise exceptions.PermissionDenied("You are not a member of any workspace.")
    return workspace


def require_write(request, workspace: Workspace) -> None:
    membership = membership_get(user=request.user, workspace=workspace)
    if membership is None or membership.role not in WRITE_ROLES:
        raise exceptions.PermissionDenied("This needs the owner or editor role in the workspace.")
