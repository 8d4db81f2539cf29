"""Workspaces, who belongs to them, and API tokens."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models


class Workspace(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # How many of the workspace's runs may hold a worker slot at once (runs.admission); null: the
    # platform default, VENUS_RUNS_PER_WORKSPACE. Only an owner changes it.
    max_concurrent_runs = models.PositiveIntegerField(null=True, blank=True, validators=[MinValueValidator(1)])

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    OWNER = "owner"
    EDITOR = "editor"
    REVIEWER = "reviewer"
    VIEWER = "viewer"


# Roles that may change automations and start runs.
WRITE_ROLES = {Role.OWNER, Role.EDITOR}
# How much each role may do, lowest first: a role "raises" another when its rank is higher.
ROLE_RANK = {Role.VIEWER: 0, Role.REVIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EDITOR)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token for one user in one workspace. Only its hash is stored; it acts with its
    user's role in the workspace at the time of each request (never a role of its own)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="api_tokens")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, db_index=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Null: the token works until revoked.
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def state(self, now) -> str:
        """"active", "revoked" or "expired" at `now`."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"
