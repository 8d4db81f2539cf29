from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "venus_rpa.runs"
    label = "runs"
