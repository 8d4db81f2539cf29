"""Celery tasks of the device registry: thin wrappers that call one service."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.devices import services


# Periodic and idempotent: a lost tick is replaced by the next one.
@shared_task(acks_late=False, ignore_result=True)
def devices_health_task() -> dict[str, list[str]]:
    """Beat runs this every VENUS_ANDROID_HEALTH_SECONDS: devices seen go available, missing ones offline."""
    return services.devices_health_check()
