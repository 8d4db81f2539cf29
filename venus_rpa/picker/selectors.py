"""Reads for picker snapshots, always scoped to one workspace and automation."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone

from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import Conflict
from venus_rpa.picker.models import PickerSnapshot


def picker_get(*, automation: Automation, snapshot_id: int) -> PickerSnapshot:
    """The automation's snapshot, or 404 (other automations' and workspaces' too); 409 once expired."""
    snapshot = get_object_or_404(PickerSnapshot.objects.filter(automation=automation, workspace=automation.workspace)
                                 .defer("screenshot"), pk=snapshot_id)
    if snapshot.expires_at <= timezone.now():
        raise Conflict("This picker snapshot has expired; pick on the page again.")
    return snapshot


def picker_screenshot(*, snapshot: PickerSnapshot) -> bytes:
    data = PickerSnapshot.objects.filter(pk=snapshot.pk).values_list("screenshot", flat=True).first()
    return bytes(data or b"")
