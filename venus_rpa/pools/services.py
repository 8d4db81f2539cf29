"""Writes on pools: register resources, acquire / heartbeat / release leases, reclaim expired ones.

Concurrency contract (PostgreSQL): every lease is created while its resource's row is locked
(`SELECT … FOR UPDATE SKIP LOCKED`), so two holders never race for one row — a second acquirer
skips a locked resource and takes the next free one. After locking, the resource's leases are
re-read in a fresh statement (READ COMMITTED gives each statement a new snapshot), which sees a
lease committed between the candidate query and the lock. The partial unique constraint
`one_unreleased_lease_per_resource` is the last line of defence. On SQLite, `FOR UPDATE` is not
available; its IMMEDIATE transactions serialize writers instead.
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.pools.models import (
    Lease,
    PoolResource,
    ReleaseReason,
    ResourceKind,
    ResourceStatus,
)
from venus_rpa.runs.models import TERMINAL

# A few candidates are tried per call: one may have been leased between the candidate query and
# its lock; more than that means the pool is busy and the caller should come back later.
_ACQUIRE_TRIES = 5
_TAG_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$")  # no "__": that would be a lookup


class LeaseError(ValueError):
    """A lease request that can never succeed (unknown kind, bad ttl or tags)."""


def pool_resource_register(*, kind: str, key: str, workspace: Workspace | None = None,
                           tags: dict | None = None) -> PoolResource:
    """Create the resource or refresh it (tags, workspace, `last_seen`); a disabled one stays disabled,
    an offline one comes back available."""
    _check_kind(kind)
    resource, created = PoolResource.objects.get_or_create(
        kind=kind, key=key, defaults={"workspace": workspace, "tags": tags or {}, "last_seen": timezone.now()})
    if not created:
        resource.workspace, resource.tags, resource.last_seen = workspace, tags or {}, timezone.now()
        if resource.status == ResourceStatus.OFFLINE:
            resource.status = ResourceStatus.AVAILABLE
        resource.save(update_fields=["workspace", "tags", "last_seen", "status"])
    return resource


def lease_acquire(*, kind: str, holder: str, run_id: int | None, ttl_s: float, tags: dict | None = None,
                  workspace: Workspace | None = None) -> Lease | None:
    """Lease one free, available resource of `kind` whose tags include `tags`, or return None when
    none is free. With `workspace`, the workspace's own resources are preferred over shared ones;
    without it only shared resources qualify. The least recently leased resource goes first. An
    expired, unreleased lease on the chosen resource is closed as `expired` on the way."""
    _check_kind(kind)
    if ttl_s <= 0:
        raise LeaseError("A lease needs a positive time to live.")
    tried: list[int] = []
    for _ in range(_ACQUIRE_TRIES):
        with transaction.atomic():
            now = timezone.now()
            resource = (_candidates(kind=kind, tags=tags or {}, workspace=workspace, now=now)
                        .exclude(pk__in=tried).select_for_update(skip_locked=True, of=("self",)).first())
            if resource is None:
                return None
            lease = _lease_locked(resource=resource, holder=holder, run_id=run_id, ttl_s=ttl_s)
            if lease is not None:
                return lease
            tried.append(resource.pk)
    return None


def _candidates(*, kind: str, tags: dict, workspace: Workspace | None, now) -> QuerySet[PoolResource]:
    active = Lease.objects.filter(resource=OuterRef("pk"), released_at__isnull=True, expires_at__gt=now)
    scope = Q(workspace__isnull=True) | Q(workspace=workspace) if workspace else Q(workspace__isnull=True)
    queryset = PoolResource.objects.filter(scope, kind=kind, status=ResourceStatus.AVAILABLE).exclude(Exists(active))
    for key, value in tags.items():
        if not _TAG_KEY.match(str(key)):
            raise LeaseError(f"Tag names are letters and digits joined by single underscores; got {key!r}.")
        queryset = queryset.filter(**{f"tags__{key}": value})
    return queryset.order_by(F("workspace").asc(nulls_last=True), F("last_leased_at").asc(nulls_first=True), "pk")


def _lease_locked(*, resource: PoolResource, holder: str, run_id: int | None, ttl_s: float) -> Lease | None:
    """With `resource` locked: close its expired lease, and lease it unless someone holds it."""
    now = timezone.now()
    Lease.objects.filter(resource=resource, released_at__isnull=True, expires_at__lte=now).update(
        released_at=now, release_reason=ReleaseReason.EXPIRED)
    if Lease.objects.filter(resource=resource, released_at__isnull=True).exists():
        return None  # leased by a transaction that committed after our candidate query
    PoolResource.objects.filter(pk=resource.pk).update(last_leased_at=now)
    return Lease.objects.create(resource=resource, holder=holder[:200], run_id=run_id, acquired_at=now,
                                heartbeat_at=now, expires_at=now + timedelta(seconds=ttl_s))


def lease_heartbeat(*, lease_id: int, ttl_s: float) -> bool:
    """Extend an active lease to now + `ttl_s`. False when it was released or had already expired:
    the holder has lost the resource and must stop using it."""
    now = timezone.now()
    return bool(Lease.objects.filter(pk=lease_id, released_at__isnull=True, expires_at__gt=now).update(
        heartbeat_at=now, expires_at=now + timedelta(seconds=ttl_s)))


def lease_release(*, lease_id: int, reason: str = ReleaseReason.RELEASED) -> bool:
    """Give the resource back. Idempotent: True only for the call that released it."""
    return bool(Lease.objects.filter(pk=lease_id, released_at__isnull=True).update(
        released_at=timezone.now(), release_reason=reason))


PARKED_HOLDER = "parked"  # prefix of the holder of a lease kept for a parked run (no worker holds it)


def lease_park(*, lease_id: int, run_id: int, ttl_s: float) -> bool:
    """Keep a lease for its run while the run is parked (it waits for a person; no worker holds
    it): the holder becomes `parked:run-<id>` and the lease lasts `ttl_s` without heartbeats. It
    ends when the run resumes (`lease_adopt`) or ends (`leases_release_parked`, on `run_finished`).
    False when the lease is not this run's active lease any more."""
    now = timezone.now()
    return bool(Lease.objects.filter(pk=lease_id, run_id=run_id, released_at__isnull=True, expires_at__gt=now).update(
        holder=f"{PARKED_HOLDER}:run-{run_id}", heartbeat_at=now, expires_at=now + timedelta(seconds=ttl_s)))


def lease_adopt(*, lease_id: int, run_id: int, holder: str, ttl_s: float) -> Lease | None:
    """A worker resuming a parked run takes over the lease kept for it (same row, so the resource
    is never free in between). None when it is no longer this run's active lease."""
    now = timezone.now()
    taken = Lease.objects.filter(pk=lease_id, run_id=run_id, released_at__isnull=True, expires_at__gt=now).update(
        holder=holder[:200], heartbeat_at=now, expires_at=now + timedelta(seconds=ttl_s))
    return Lease.objects.select_related("resource").get(pk=lease_id) if taken else None


def leases_release_parked(*, run_id: int) -> list[Lease]:
    """Release the leases kept for a parked run that ended without resuming (cancelled, its wait
    expired); returns them (their resources may need cleaning: a display's kept session)."""
    now = timezone.now()
    kept = list(Lease.objects.select_related("resource").filter(
        run_id=run_id, released_at__isnull=True, holder__startswith=f"{PARKED_HOLDER}:"))
    Lease.objects.filter(pk__in=[lease.pk for lease in kept], released_at__isnull=True).update(
        released_at=now, release_reason=ReleaseReason.RUN_ENDED)
    return kept


def leases_reclaim_expired() -> int:
    """Close every lease whose holder stopped heartbeating (expired) or whose run has ended; the
    sweep calls this. Returns how many leases were closed."""
    now = timezone.now()
    expired = Lease.objects.filter(released_at__isnull=True, expires_at__lte=now).update(
        released_at=now, release_reason=ReleaseReason.EXPIRED)
    ended = Lease.objects.filter(released_at__isnull=True, run__status__in=TERMINAL).update(
        released_at=now, release_reason=ReleaseReason.RUN_ENDED)
    return expired + ended


def _check_kind(kind: str) -> None:
    if kind not in ResourceKind.values:
        raise LeaseError(f"Unknown resource kind {kind!r}; use one of {', '.join(ResourceKind.values)}.")
