"""Reads for workspaces, memberships and API tokens."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone

from venus_rpa.accounts.models import ROLE_RANK, ApiToken, Membership, Role, Workspace, hash_token


def membership_get(*, user, workspace: Workspace) -> Membership | None:
    return Membership.objects.filter(user=user, workspace=workspace).first()


def workspace_default_for_user(*, user) -> Workspace | None:
    """The workspace a session user works in: their oldest membership."""
    membership = Membership.objects.filter(user=user).select_related("workspace").order_by("created_at").first()
    return membership.workspace if membership else None


def member_list(*, workspace: Workspace) -> QuerySet[Membership]:
    """The workspace's members, highest role first, then by username."""
    rank = Case(*(When(role=role, then=Value(-r)) for role, r in ROLE_RANK.items()), output_field=IntegerField())
    return (Membership.objects.filter(workspace=workspace).select_related("user")
            .annotate(rank=rank).order_by("rank", "user__username"))


def member_get(*, workspace: Workspace, membership_id: int) -> Membership:
    """One membership of the workspace, or 404 (also for another workspace's ids)."""
    return get_object_or_404(Membership.objects.select_related("user"), workspace=workspace, pk=membership_id)


def owner_count(*, workspace: Workspace) -> int:
    return Membership.objects.filter(workspace=workspace, role=Role.OWNER).count()


def api_token_list(*, workspace: Workspace, user=None) -> QuerySet[ApiToken]:
    """The workspace's tokens (only `user`'s when given), newest first. Metadata only: the raw value
    is never stored, and the hash is not for display."""
    tokens = ApiToken.objects.filter(workspace=workspace).select_related("user").defer("token_hash")
    if user is not None:
        tokens = tokens.filter(user=user)
    return tokens.order_by("-created_at", "-id")


def api_token_get(*, workspace: Workspace, token_id: int) -> ApiToken:
    """One token of the workspace, or 404 (also for another workspace's ids)."""
    return get_object_or_404(ApiToken.objects.select_related("user"), workspace=workspace, pk=token_id)


def api_token_resolve(*, raw: str) -> ApiToken | None:
    """The live token with this raw value: not revoked and not past its expiry; None otherwise."""
    now = timezone.now()
    token = (
        ApiToken.objects.select_related("user", "workspace")
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now), token_hash=hash_token(raw), revoked_at__isnull=True)
        .first()
    )
    if token is not None:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token
