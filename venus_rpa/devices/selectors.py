"""Reads of the device registry."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.devices.models import AndroidDevice
from venus_rpa.pools.models import Lease


def device_list(*, workspace: Workspace) -> QuerySet[AndroidDevice]:
    """The workspace's own devices and the shared ones, each with `leased` (a run holds it now)."""
    active = Lease.objects.filter(resource=OuterRef("resource"), released_at__isnull=True, expires_at__gt=timezone.now())
    return (AndroidDevice.objects.filter(Q(resource__workspace=workspace) | Q(resource__workspace__isnull=True))
            .select_related("resource").annotate(leased=Exists(active)).order_by("resource__key"))


def device_get(*, workspace: Workspace, device_id: int, own: bool = False) -> AndroidDevice:
    """One device the workspace can see (with `own`, only one it registered itself); 404 otherwise."""
    devices = device_list(workspace=workspace)
    return get_object_or_404(devices.filter(resource__workspace=workspace) if own else devices, pk=device_id)
