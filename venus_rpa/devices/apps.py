from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "venus_rpa.devices"
    label = "devices"
    verbose_name = "Android devices"

    def ready(self) -> None:
        # Workers consuming the Android queue build this host (venus_rpa.runs.hosts); the
        # builder is imported only when one is built.
        from venus_rpa.runs.hosts import register_host

        register_host("android", _android_host)


def _android_host():
    from venus_rpa.devices.hosts import android_host

    return android_host()
