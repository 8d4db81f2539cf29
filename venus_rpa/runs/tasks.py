"""Celery tasks: thin wrappers that take ids and call one service. Each task states its own
acknowledgement policy (`acks_late`), whatever the global default says."""

from __future__ import annotations

from celery import shared_task

from venus_rpa.runs import execution, recovery, services


# acks_late + reject_on_worker_lost are safe because run_claim only takes an admitted, queued run:
# a redelivered message for a run that already started is a no-op, and the sweep ends that run.
@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_execute_task(run_id: int) -> None:
    execution.run_execute(run_id=run_id)


# Likewise: run_resume_claim takes a parked run's continuation once; a replay finds none.
@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_resume_task(run_id: int) -> None:
    execution.run_resume(run_id=run_id)


# Sweeps are periodic and idempotent: a lost one is replaced by the next tick.
@shared_task(acks_late=False, ignore_result=True)
def runs_sweep_task() -> dict[str, list[int]]:
    return recovery.runs_sweep()


@shared_task(acks_late=False, ignore_result=True)
def runs_dispatch_task() -> int:
    """Beat's safety net for admission: admits what a lost trigger (a process that died between
    a commit and its dispatch) would have admitted."""
    return len(services.runs_dispatch())


@shared_task(acks_late=False, ignore_result=True)
def runs_waits_sweep_task() -> dict:
    return services.runs_waits_sweep()
