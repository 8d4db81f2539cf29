"""Celery tasks of the review queue (queue `default`): thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.reviews import services


# Periodic and idempotent: a lost one is replaced by the next tick.
@shared_task(acks_late=False, ignore_result=True)
def reviews_sweep_task() -> dict:
    """Beat: expire reviews nobody decided in time; resume parked runs whose review is settled."""
    return services.reviews_sweep()
