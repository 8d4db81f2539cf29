"""Celery tasks (queue `default`): thin wrappers that take ids and call one service.

Replays are harmless, which is what makes `acks_late` (declared on each task) safe here: a fire is
one row per (schedule, tick) and a delivery attempt is claimed before it is made.
"""

from __future__ import annotations

from celery import shared_task

from venus_rpa.triggers import services


@shared_task(acks_late=True, ignore_result=True)
def schedule_fire_task(schedule_id: int) -> None:
    """Sent by celery beat (django-celery-beat PeriodicTask) at every tick of the schedule."""
    services.schedule_fire(schedule_id=schedule_id)


@shared_task(acks_late=True, ignore_result=True)
def callback_deliver_task(delivery_id: int) -> None:
    services.callback_delivery_attempt(delivery_id=delivery_id)


@shared_task(acks_late=True, ignore_result=True)
def callbacks_sweep_task() -> int:
    return services.callbacks_sweep()
