"""The runtime's `DeviceLeases` (workers.envs.android.host) on the registry: a run leases one
available device (its workspace's own first, then shared ones; the least recently used first),
heartbeats the lease, gives it back, or reports the device offline when it disconnected.

The ORM runs in one thread of this object's own, so the runtime loop never blocks on the database.
"""

from __future__ import annotations

import asyncio
import os
import socket
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections, connection

from venus_rpa.accounts.models import Workspace
from venus_rpa.devices.models import AndroidDevice
from venus_rpa.devices.services import device_mark_offline
from venus_rpa.pools.models import ResourceKind
from venus_rpa.pools.services import lease_acquire, lease_adopt, lease_heartbeat, lease_park, lease_release
from venus_rpa.runs.models import Run
from workers.envs.android.host import DeviceGrant


class RegistryDeviceLeases:
    def __init__(self, *, ttl_s: float = 60.0, holder: str = "") -> None:
        self.ttl_s = ttl_s
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}"
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="device-leases")

    async def _db(self, fn, *args):
        def call():
            close_old_connections()
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.pool, call)

    async def acquire(self, *, run_id: int | None, exclude: tuple[str, ...] = ()) -> DeviceGrant | None:
        return await self._db(self._acquire, run_id, exclude)

    def _acquire(self, run_id: int | None, exclude: tuple[str, ...]) -> DeviceGrant | None:
        workspace = Run.objects.filter(pk=run_id).values_list("workspace", flat=True).first() if run_id else None
        lease = lease_acquire(kind=ResourceKind.DEVICE, holder=self.holder, run_id=run_id, ttl_s=self.ttl_s,
                              workspace=Workspace(pk=workspace) if workspace else None)
        if lease is None:
            return None
        device = AndroidDevice.objects.filter(resource_id=lease.resource_id).select_related("resource").first()
        if device is None or device.serial in exclude:
            lease_release(lease_id=lease.pk)
            return None
        return DeviceGrant(serial=device.serial, lease_id=lease.pk, adb_host=device.adb_host, adb_port=device.adb_port,
                           apps=dict(device.apps or {}))

    async def heartbeat(self, grant: DeviceGrant) -> bool:
        return await self._db(lambda: lease_heartbeat(lease_id=grant.lease_id, ttl_s=self.ttl_s))

    async def release(self, grant: DeviceGrant) -> None:
        await self._db(lambda: lease_release(lease_id=grant.lease_id))

    async def park(self, grant: DeviceGrant, *, run_id: int | None) -> bool:
        return await self._db(lambda: run_id is not None and lease_park(
            lease_id=grant.lease_id, run_id=run_id, ttl_s=settings.VENUS_PARKED_LEASE_SECONDS))

    async def adopt(self, *, run_id: int | None, lease_id: int) -> DeviceGrant | None:
        def take() -> DeviceGrant | None:
            lease = lease_adopt(lease_id=lease_id, run_id=run_id, holder=self.holder, ttl_s=self.ttl_s)
            device = AndroidDevice.objects.filter(resource_id=lease.resource_id).first() if lease else None
            if device is None:
                return None
            return DeviceGrant(serial=device.serial, lease_id=lease_id, adb_host=device.adb_host,
                               adb_port=device.adb_port, apps=dict(device.apps or {}))
        return await self._db(take)

    async def offline(self, grant: DeviceGrant, reason: str) -> None:
        def mark() -> None:
            device_mark_offline(serial=grant.serial, reason=reason)
            lease_release(lease_id=grant.lease_id)
        await self._db(mark)

    async def close(self) -> None:
        await self._db(lambda: connection.close())  # resolved in the ORM thread: connections are per thread
        self.pool.shutdown(wait=False)
