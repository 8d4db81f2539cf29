"""Reads on pools: active leases and counts for the dashboard and the metrics endpoint."""

from __future__ import annotations

from django.db.models import Count, QuerySet
from django.utils import timezone

from venus_rpa.pools.models import Lease, PoolResource
from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.runs.models import Run, RunStatus


def leases_active(*, kind: str | None = None) -> QuerySet[Lease]:
    """Leases that hold their resource now: not released and not expired."""
    queryset = Lease.objects.filter(released_at__isnull=True, expires_at__gt=timezone.now()).select_related("resource")
    return queryset.filter(resource__kind=kind) if kind else queryset


def lease_counts_by_kind() -> dict[str, int]:
    """Active leases per resource kind (kinds without one are absent)."""
    rows = leases_active().values("resource__kind").annotate(n=Count("id")).order_by()
    return {row["resource__kind"]: row["n"] for row in rows}


def pool_resource_counts() -> dict[tuple[str, str], int]:
    """Resources per (kind, status)."""
    rows = PoolResource.objects.values("kind", "status").annotate(n=Count("id")).order_by()
    return {(row["kind"], row["status"]): row["n"] for row in rows}


def runs_count_by_status() -> dict[str, int]:
    """Runs per status, every status present (zero when none)."""
    counts = dict.fromkeys(RunStatus.values, 0)
    for row in Run.objects.values("status").annotate(n=Count("id")).order_by():
        counts[row["status"]] = row["n"]
    return counts


def runs_queued_oldest_age_s() -> float:
    """Seconds the oldest queued run has waited; 0 when none waits."""
    oldest = Run.objects.filter(status=RunStatus.QUEUED).order_by("created_at").values_list("created_at", flat=True).first()
    return max(0.0, (timezone.now() - oldest).total_seconds()) if oldest else 0.0


def reviews_pending_by_kind() -> dict[str, int]:
    """Requests waiting for a person (risky-action reviews, CAPTCHAs, questions) per kind."""
    counts = dict.fromkeys(ReviewKind.values, 0)
    rows = ReviewRequest.objects.filter(status=ReviewStatus.PENDING).values("kind").annotate(n=Count("id")).order_by()
    for row in rows:
        counts[row["kind"]] = row["n"]
    return counts
