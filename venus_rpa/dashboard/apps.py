from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "venus_rpa.dashboard"
    label = "dashboard"
    verbose_name = "Dashboard"
