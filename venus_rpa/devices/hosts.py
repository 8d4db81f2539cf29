"""Android's host for this worker process: runs lease devices from the registry
(`venus_rpa.runs.hosts` builds it on first use in a worker consuming the Android queue)."""

from __future__ import annotations

from django.conf import settings

from venus_rpa.devices.leases import RegistryDeviceLeases
from workers.envs.android.host import AndroidHost, AndroidSettings


def android_host() -> AndroidHost:
    return AndroidHost(RegistryDeviceLeases(ttl_s=settings.VENUS_ANDROID_LEASE_TTL_SECONDS), AndroidSettings(
        acquire_timeout_s=settings.VENUS_ANDROID_ACQUIRE_TIMEOUT_SECONDS,
        heartbeat_s=settings.VENUS_ANDROID_HEARTBEAT_SECONDS, adb_timeout_s=settings.VENUS_ANDROID_ADB_TIMEOUT_SECONDS,
        settle_s=settings.VENUS_ANDROID_SETTLE_SECONDS))
