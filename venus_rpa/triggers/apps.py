from django.apps import AppConfig


class TriggersConfig(AppConfig):
    name = "venus_rpa.triggers"
    label = "triggers"
    verbose_name = "Schedules, webhooks and callbacks"

    def ready(self) -> None:
        from venus_rpa.runs.signals import run_finished
        from venus_rpa.triggers.receivers import send_callbacks

        run_finished.connect(send_callbacks, dispatch_uid="triggers.send_callbacks")
