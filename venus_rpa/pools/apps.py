from django.apps import AppConfig


class PoolsConfig(AppConfig):
    name = "venus_rpa.pools"
    label = "pools"
    verbose_name = "Pools and leases"

    def ready(self) -> None:
        # Step and lease metrics observe rows as they are saved (post_save receivers).
        from venus_rpa.pools import metrics  # noqa: F401
