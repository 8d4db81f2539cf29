from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "venus_rpa.audit"
    label = "audit"
