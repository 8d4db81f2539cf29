"""Writes for workspaces, memberships and tokens."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.text import slugify

from venus_rpa.accounts.models import ApiToken, Membership, Role, Workspace, hash_token

TOKEN_PREFIX = "vrpa_"  # noqa: S105 -- a public prefix, not a secret


@transaction.atomic
def workspace_create(*, name: str, owner, slug: str | None = None) -> Workspace:
    workspace = Workspace.objects.create(name=name, slug=slug or slugify(name)[:80])
    Membership.objects.create(workspace=workspace, user=owner, role=Role.OWNER)
    return workspace


def membership_add(*, workspace: Workspace, user, role: str) -> Membership:
    membership, _ = Membership.objects.update_or_create(workspace=workspace, user=user, defaults={"role": role})
    return membership


def api_token_create(*, workspace: Workspace, user, name: str) -> tuple[ApiToken, str]:
    """Create a token and return it with its raw value, which is shown once and never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        workspace=workspace, user=user, name=name, prefix=raw[: len(TOKEN_PREFIX) + 6], token_hash=hash_token(raw)
    )
    return token, raw


def user_create(*, username: str, password: str, email: str = ""):
    return get_user_model().objects.create_user(username=username, password=password, email=email)
