"""Pooled resources (browser profiles, Android devices, X displays) and the leases on them.

A resource is free when it has no active lease: one with `released_at` unset and `expires_at` in
the future. A partial unique constraint keeps at most one unreleased lease per resource, so even a
bug in the acquiring code cannot hand one resource to two holders.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from venus_rpa.accounts.models import Workspace


class ResourceKind(models.TextChoices):
    BROWSER_PROFILE = "browser_profile"
    DEVICE = "device"
    DISPLAY = "display"


class ResourceStatus(models.TextChoices):
    AVAILABLE = "available"
    OFFLINE = "offline"
    DISABLED = "disabled"


class ReleaseReason(models.TextChoices):
    RELEASED = "released"  # the holder gave it back
    EXPIRED = "expired"  # no heartbeat before expires_at; reclaimed by the sweep or the next holder
    RUN_ENDED = "run_ended"  # the holding run reached a terminal state without releasing


class PoolResource(models.Model):
    """One leasable thing. `workspace` unset: shared by every workspace."""

    kind = models.CharField(max_length=32, choices=ResourceKind.choices)
    key = models.CharField(max_length=200, help_text="Profile name, device serial or display number.")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, null=True, blank=True,
                                  related_name="pool_resources")
    tags = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=ResourceStatus.choices, default=ResourceStatus.AVAILABLE)
    last_seen = models.DateTimeField(null=True, blank=True)
    last_leased_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "key"]
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="pool_resource_kind_key")]
        indexes = [models.Index(fields=["kind", "status"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.key}"


class Lease(models.Model):
    """A holder's claim on one resource until `expires_at`, extended by heartbeats."""

    resource = models.ForeignKey(PoolResource, on_delete=models.CASCADE, related_name="leases")
    holder = models.CharField(max_length=200, help_text="Worker node (Celery hostname) holding the lease.")
    run = models.ForeignKey("runs.Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="leases")
    acquired_at = models.DateTimeField()
    heartbeat_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    released_at = models.DateTimeField(null=True, blank=True)
    release_reason = models.CharField(max_length=16, choices=ReleaseReason.choices, blank=True)

    class Meta:
        ordering = ["-acquired_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["resource"], condition=Q(released_at__isnull=True),
                                    name="one_unreleased_lease_per_resource"),
        ]
        indexes = [models.Index(fields=["released_at", "expires_at"])]

    def __str__(self) -> str:
        return f"lease {self.pk} on {self.resource_id} by {self.holder}"

    @property
    def kind(self) -> str:
        return self.resource.kind
