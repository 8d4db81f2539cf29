from django.apps import AppConfig


class PoolsConfig(AppConfig):
    name = "venus_rpa.pools"
    label = "pools"
    verbose_name = "Pools and leases"

    def ready(self) -> None:
        # Step and lease metrics observe rows as they are saved (post_save receivers).
        from venus_rpa.pools import metrics  # noqa: F401
        # The desktop surface: this machine's X displays, leased per run (built on first use).
        from venus_rpa.pools.displays import desktop_host
        from venus_rpa.runs.hosts import register_host

        register_host("desktop", desktop_host)
