from django.apps import AppConfig


class TriggersConfig(AppConfig):
    name = "venus_rpa.triggers"
    label = "triggers"
    verbose_name = "Schedules, webhooks and callbacks"

    def ready(self) -> None:
        from venus_rpa.automations.signals import automation_archive_changed
        from venus_rpa.runs.signals import run_finished
        from venus_rpa.triggers.receivers import send_callbacks, sync_schedules

        run_finished.connect(send_callbacks, dispatch_uid="triggers.send_callbacks")
        automation_archive_changed.connect(sync_schedules, dispatch_uid="triggers.sync_schedules")
