"""An Android device is a `PoolResource` of kind `device` (key = serial, tags, status, last seen;
leased through `venus_rpa.pools`) plus where its adb server is and what apps it has."""

from __future__ import annotations

from django.db import models

from venus_rpa.pools.models import PoolResource


class AndroidDevice(models.Model):
    resource = models.OneToOneField(PoolResource, on_delete=models.CASCADE, related_name="android")
    adb_host = models.CharField(max_length=255, default="127.0.0.1", help_text="Host of the adb server that sees the device.")
    adb_port = models.PositiveIntegerField(default=5037)
    apps = models.JSONField(default=dict, blank=True,
                            help_text="App table: display name -> package or package/.Activity (LaunchApp, goto app:NAME).")
    model = models.CharField(max_length=200, blank=True, help_text="ro.product.model, read by the health check.")
    status_reason = models.CharField(max_length=500, blank=True, help_text="Why it is offline, when it is.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["resource__key"]

    def __str__(self) -> str:
        return f"android device {self.serial}"

    @property
    def serial(self) -> str:
        return self.resource.key
