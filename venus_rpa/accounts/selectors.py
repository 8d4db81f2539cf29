"""Reads for workspaces and memberships."""

from __future__ import annotations

from django.utils import timezone

from venus_rpa.accounts.models import ApiToken, Membership, Workspace, hash_token


def membership_get(*, user, workspace: Workspace) -> Membership | None:
    return Membership.objects.filter(user=user, workspace=workspace).first()


def workspace_default_for_user(*, user) -> Workspace | None:
    """The workspace a session user works in: their oldest membership."""
    membership = Membership.objects.filter(user=user).select_related("workspace").order_by("created_at").first()
    return membership.workspace if membership else None


def api_token_resolve(*, raw: str) -> ApiToken | None:
    token = (
        ApiToken.objects.select_related("user", "workspace")
        .filter(token_hash=hash_token(raw), revoked_at__isnull=True)
        .first()
    )
    if token is not None:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token
