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
        # Parked desktop runs keep their display: their continuation goes to its machine, and what
        # was kept is given back when such a run ends without resuming.
        from venus_rpa.pools.displays import on_run_finished, parked_display_queue
        from venus_rpa.runs.queues import register_resume_queue
        from venus_rpa.runs.signals import run_finished

        register_resume_queue(parked_display_queue)
        run_finished.connect(on_run_finished, dispatch_uid="pools.release_parked_leases")
