"""Celery tasks of pools: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.pools import services


# Periodic and idempotent: a lost one is replaced by the next tick.
@shared_task(acks_late=False, ignore_result=True)
def leases_reclaim_task() -> int:
    """Beat runs this beside the runs sweep: frees what dead or finished holders kept."""
    return services.leases_reclaim_expired()
