from django.apps import AppConfig


class NegozioConfig(AppConfig):
    name = "negozio"
    verbose_name = "Negozio"
