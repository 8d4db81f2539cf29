from django.apps import AppConfig


class AutomationsConfig(AppConfig):
    name = "venus_rpa.automations"
    label = "automations"
