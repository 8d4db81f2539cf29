from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "venus_rpa.accounts"
    label = "accounts"
