"""The step picker's snapshots: the page a step acts on, as a worker saw it for one editor."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation, AutomationVersion


class PickerStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    READY = "ready"
    FAILED = "failed"


class PickerSnapshot(models.Model):
    """A masked screenshot and element map of the page step `step` of `version` acts on.
    Workspace-scoped, shown only to its owners and editors, gone after `expires_at`."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="picker_snapshots")
    version = models.ForeignKey(AutomationVersion, on_delete=models.CASCADE, related_name="+")
    step = models.PositiveIntegerField(help_text="0-based index of the step the target is for.")
    kind = models.CharField(max_length=16, help_text="The step's kind: what its target must be able to do.")
    status = models.CharField(max_length=16, choices=PickerStatus.choices, default=PickerStatus.QUEUED)
    error = models.TextField(blank=True)
    url = models.CharField(max_length=2000, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    screenshot = models.BinaryField(null=True, editable=False)
    elements = models.JSONField(default=list)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["workspace", "expires_at"], name="picker_ws_expiry")]

    def __str__(self) -> str:
        return f"picker {self.pk} ({self.automation}, step {self.step + 1})"
