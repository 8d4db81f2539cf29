"""What triggers does when a run ends (`runs.signals.run_finished`): signed callbacks go out to
the workspace's endpoints once the run's end is committed."""

from __future__ import annotations

from django.db import transaction

from venus_rpa.triggers.services.callbacks import callbacks_on_run_finished


def send_callbacks(sender, *, run_id: int, **kwargs) -> None:
    transaction.on_commit(lambda: callbacks_on_run_finished(run_id=run_id), robust=True)
