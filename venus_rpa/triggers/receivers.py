"""What triggers does when a run ends (`runs.signals.run_finished`): signed callbacks go out to
the workspace's endpoints once the run's end is committed. When an automation is archived or
restored (`automations.signals.automation_archive_changed`) its schedules' beat entries are
switched off or back to their own enabled state."""

from __future__ import annotations

from django.db import transaction

from venus_rpa.triggers.services.callbacks import callbacks_on_run_finished
from venus_rpa.triggers.services.schedules import schedules_sync_archived


def send_callbacks(sender, *, run_id: int, **kwargs) -> None:
    transaction.on_commit(lambda: callbacks_on_run_finished(run_id=run_id), robust=True)


def sync_schedules(sender, *, automation_id: int, archived: bool, **kwargs) -> None:
    schedules_sync_archived(automation_id=automation_id)
