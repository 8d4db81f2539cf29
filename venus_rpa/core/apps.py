from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "venus_rpa.core"
    label = "core"
