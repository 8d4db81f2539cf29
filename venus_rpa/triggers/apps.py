from django.apps import AppConfig


class TriggersConfig(AppConfig):
    name = "venus_rpa.triggers"
    label = "triggers"
    verbose_name = "Schedules, webhooks and callbacks"
