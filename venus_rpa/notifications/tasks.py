"""Celery tasks (queue `default`): thin wrappers that take ids and call one service. A notice is
claimed before it is sent, so a replayed message finds nothing to do (`acks_late` is safe)."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.notifications import services


@shared_task(acks_late=True, ignore_result=True)
def notice_send_task(notice_id: int) -> None:
    services.notice_send(notice_id=notice_id)
