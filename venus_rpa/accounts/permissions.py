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
    require_role(request, workspace, WRITE_ROLES, "This needs the owner or editor role in the workspace.")


def require_role(request, workspace: Workspace, roles, message: str) -> None:
    """403 with `message` unless the caller's role in `workspace` is one of `roles`; views call it
    before reading the body, so a caller without the role learns nothing from validation errors."""
    membership = membership_get(user=request.user, workspace=workspace)
    if membership is None or membership.role not in roles:
        raise exceptions.PermissionDenied(message)
