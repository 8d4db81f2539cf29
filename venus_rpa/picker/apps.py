from django.apps import AppConfig


class PickerConfig(AppConfig):
    name = "venus_rpa.picker"
    label = "picker"
