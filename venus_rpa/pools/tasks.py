"""Celery tasks of pools: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.pools import displays, services


# Periodic and idempotent: a lost one is replaced by the next tick.
@shared_task(acks_late=False, ignore_result=True)
def leases_reclaim_task() -> int:
    """Beat runs this beside the runs sweep: frees what dead or finished holders kept."""
    return services.leases_reclaim_expired()


# Sent to the display's machine (its own queue) when a parked desktop run ended without resuming;
# idempotent (a display leased again since is left alone), so a replay is harmless.
@shared_task(acks_late=True, ignore_result=True)
def display_session_discard_task(lease_id: int) -> bool:
    return displays.display_session_discard(lease_id=lease_id)
