"""Writes on the Android device registry: register, update, remove, health checks.

A device is registered in one workspace (its runs prefer it) or shared (no workspace: the
operator's `register_device` command and `make up`). Its adb server must be one the operator
allows (`VENUS_ADB_SERVERS`): a workspace cannot make workers connect anywhere else.

Health (`devices_health_check`, a beat task every VENUS_ANDROID_HEALTH_SECONDS): every device
that is not disabled is looked up on its adb server; listed as `device` -> available and
`last_seen` now; not listed -> offline with the reason (a `HOST:PORT` serial is reconnected with
`adb connect` first, as a network device is after an adb server restart). A run that loses its
device marks it offline at once (`device_mark_offline`).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict

import adbutils
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.devices.models import AndroidDevice
from venus_rpa.pools.models import Lease, PoolResource, ResourceKind, ResourceStatus
from venus_rpa.pools.services import LeaseError, pool_resource_register

log = logging.getLogger(__name__)
_SERIAL = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")
_COMPONENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+(/[A-Za-z0-9_.$]+)?$")
SETTABLE_STATUS = (ResourceStatus.AVAILABLE, ResourceStatus.DISABLED)


def _clean(*, serial: str | None = None, adb_host: str | None = None, adb_port: int | None = None,
           apps: dict | None = None, tags: dict | None = None) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    if serial is not None and not _SERIAL.match(serial):
        fields["serial"] = ["A device serial is letters, digits and . _ : - (as `adb devices` lists it)."]
    if adb_host is not None or adb_port is not None:
        allowed = [s.strip() for s in settings.VENUS_ADB_SERVERS if s.strip()]
        if f"{adb_host}:{adb_port}" not in allowed:
            fields["adb_server"] = [f"Only these adb servers may be used: {', '.join(allowed) or 'none'} "
                                    "(VENUS_ADB_SERVERS)."]
    if apps is not None:
        if not isinstance(apps, dict):
            fields["apps"] = ["The app table maps display names to package or package/.Activity."]
        else:
            bad = [f"{name!r}: {component!r}" for name, component in apps.items()
                   if not (isinstance(name, str) and 0 < len(name.strip()) <= 100 and isinstance(component, str)
                           and _COMPONENT.match(component))]
            if bad:
                fields["apps"] = [f"Not a display name and package (or package/.Activity): {', '.join(bad[:5])}."]
    if tags is not None and not isinstance(tags, dict):
        fields["tags"] = ["Tags are an object of names and values."]
    return fields


@transaction.atomic
def device_register(*, workspace: Workspace | None, serial: str, adb_host: str = "127.0.0.1", adb_port: int = 5037,
                    tags: dict | None = None, apps: dict | None = None) -> AndroidDevice:
    """Register a device (or refresh one this workspace registered before)."""
    serial = (serial or "").strip()
    fields = _clean(serial=serial, adb_host=adb_host, adb_port=adb_port, apps=apps or {}, tags=tags or {})
    if fields:
        raise InvalidInput("The device could not be registered.", fields=fields)
    existing = PoolResource.objects.filter(kind=ResourceKind.DEVICE, key=serial).first()
    if existing is not None and existing.workspace_id != (workspace.pk if workspace else None):
        raise Conflict(f"Device {serial} is already registered elsewhere.")
    try:
        resource = pool_resource_register(kind=ResourceKind.DEVICE, key=serial, workspace=workspace, tags=tags or {})
    except LeaseError as exc:
        raise InvalidInput(str(exc), fields={"tags": [str(exc)]}) from None
    device, _ = AndroidDevice.objects.update_or_create(
        resource=resource, defaults={"adb_host": adb_host, "adb_port": adb_port, "apps": apps or {}})
    return device


@transaction.atomic
def device_update(*, device: AndroidDevice, adb_host: str | None = None, adb_port: int | None = None,
                  tags: dict | None = None, apps: dict | None = None, status: str | None = None) -> AndroidDevice:
    """Change where a device is reached, its tags or app table, or enable / disable it."""
    host = adb_host if adb_host is not None else device.adb_host
    port = adb_port if adb_port is not None else device.adb_port
    moved = adb_host is not None or adb_port is not None
    fields = _clean(adb_host=host if moved else None, adb_port=port if moved else None, apps=apps, tags=tags)
    if status is not None and status not in SETTABLE_STATUS:
        fields["status"] = ["Set available or disabled (offline is set by health checks)."]
    if fields:
        raise InvalidInput("The device could not be updated.", fields=fields)
    device.adb_host, device.adb_port = host, port
    if apps is not None:
        device.apps = apps
    device.save()
    resource = device.resource
    if tags is not None:
        resource.tags = tags
    if status is not None:
        resource.status = status
        device.status_reason = "" if status == ResourceStatus.AVAILABLE else "disabled by a person"
        device.save(update_fields=["status_reason"])
    resource.save(update_fields=["tags", "status"])
    return device


def device_remove(*, device: AndroidDevice) -> None:
    """Forget a device. Refused while a run holds it (disable it first, then remove it)."""
    if Lease.objects.filter(resource=device.resource, released_at__isnull=True, expires_at__gt=timezone.now()).exists():
        raise Conflict(f"Device {device.serial} is in use by a run; disable it and remove it when the run ends.")
    device.resource.delete()


def device_mark_offline(*, serial: str, reason: str) -> None:
    """A run lost the device, or its adb server does not list it: no run is given it until it is seen again."""
    resource = PoolResource.objects.filter(kind=ResourceKind.DEVICE, key=serial).exclude(
        status=ResourceStatus.DISABLED).first()
    if resource is None:
        return
    PoolResource.objects.filter(pk=resource.pk).update(status=ResourceStatus.OFFLINE)
    AndroidDevice.objects.filter(resource=resource).update(status_reason=reason[:500])


def devices_health_check() -> dict[str, list[str]]:
    """Look every device up on its adb server (see the module docstring); {"online", "offline"}."""
    result: dict[str, list[str]] = {"online": [], "offline": []}
    by_server: dict[tuple[str, int], list[AndroidDevice]] = defaultdict(list)
    for device in AndroidDevice.objects.select_related("resource").exclude(resource__status=ResourceStatus.DISABLED):
        by_server[(device.adb_host, device.adb_port)].append(device)
    for (host, port), devices in by_server.items():
        client = adbutils.AdbClient(host=host, port=port, socket_timeout=5)
        listed = _listed(client)
        for device in devices:
            if listed is not None and device.serial not in listed and ":" in device.serial:
                listed = _reconnect(client, device.serial) or listed
            if listed is None:
                _offline(device, f"the adb server at {host}:{port} does not answer")
            elif device.serial in listed:
                _online(device, client)
            else:
                _offline(device, f"device {device.serial} is not connected to the adb server at {host}:{port}")
            result["online" if device.resource.status == ResourceStatus.AVAILABLE else "offline"].append(device.serial)
    return result


def _listed(client: adbutils.AdbClient) -> set[str] | None:
    try:
        return {d.serial for d in client.list() if d.state == "device"}
    except (adbutils.AdbError, OSError):
        return None


def _reconnect(client: adbutils.AdbClient, serial: str) -> set[str] | None:
    try:
        client.connect(serial, timeout=5)
    except (adbutils.AdbError, OSError):
        return None
    return _listed(client)


def _online(device: AndroidDevice, client: adbutils.AdbClient) -> None:
    now = timezone.now()
    resource = device.resource
    if not device.model:
        try:
            device.model = client.device(device.serial).prop.model or ""
        except (adbutils.AdbError, OSError):
            pass
    device.status_reason = ""
    device.save(update_fields=["model", "status_reason"])
    resource.last_seen, resource.status = now, ResourceStatus.AVAILABLE
    PoolResource.objects.filter(pk=resource.pk).exclude(status=ResourceStatus.DISABLED).update(
        last_seen=now, status=ResourceStatus.AVAILABLE)


def _offline(device: AndroidDevice, reason: str) -> None:
    device.resource.status = ResourceStatus.OFFLINE
    device_mark_offline(serial=device.serial, reason=reason)
