from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "venus_rpa.datasets"
    label = "datasets"
