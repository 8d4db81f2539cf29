"""Celery task of the step picker: takes an id, calls one service."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.picker import services


# acks_late is not needed: a lost snapshot job is cheap to start again, and the person sees it
# stay "running" until its expiry. picker_run takes a queued snapshot once, so a replay is a no-op.
@shared_task(acks_late=False, ignore_result=True)
def picker_run_task(snapshot_id: int, params: dict | None = None) -> None:
    services.picker_run(snapshot_id=snapshot_id, params=params)


# Periodic and idempotent: a lost tick is replaced by the next one.
@shared_task(acks_late=False, ignore_result=True)
def picker_sweep_task() -> int:
    return services.picker_sweep()
