"""Who may see and do what in the dashboard.

Every page works in the signed-in user's workspace (their oldest membership, as for the API's
session auth). Objects of other workspaces are 404 through the workspace-scoped selectors; a
role that may not do something gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from venus_rpa.accounts.models import WRITE_ROLES, Role, Workspace
from venus_rpa.accounts.selectors import membership_get, workspace_default_for_user

# Roles that may answer CAPTCHAs and decide risky actions.
REVIEW_ROLES = {Role.OWNER, Role.EDITOR, Role.REVIEWER}


@dataclass(frozen=True)
class Access:
    workspace: Workspace
    role: str

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES

    @property
    def can_review(self) -> bool:
        return self.role in REVIEW_ROLES


def access_for(user) -> Access | None:
    """The user's dashboard workspace (oldest membership, as for the API) and role there, or None."""
    workspace = workspace_default_for_user(user=user)
    membership = membership_get(user=user, workspace=workspace) if workspace else None
    return Access(workspace, membership.role) if membership else None


def member_view(*, write: bool = False, review: bool = False) -> Callable:
    """Decorate a view: login required, `request.access` set, role checked (403 otherwise)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            access = access_for(request.user)
            if access is None:
                raise PermissionDenied("You are not a member of any workspace.")
            if write and not access.can_write:
                raise PermissionDenied("This needs the owner or editor role in the workspace.")
            if review and not access.can_review:
                raise PermissionDenied("This needs the owner, editor or reviewer role in the workspace.")
            request.access = access
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


def require_write(request: HttpRequest) -> None:
    """For views that read for everyone but write only for editors (on POST)."""
    if not request.access.can_write:
        raise PermissionDenied("This needs the owner or editor role in the workspace.")
