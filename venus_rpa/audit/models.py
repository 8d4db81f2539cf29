"""The workspace audit log: who changed, ran or decided what, when, and how."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from venus_rpa.accounts.models import Workspace


class AuditAction(models.TextChoices):
    SAFETY_LOWERED = "safety_lowered", "Safety review lowered"
    AUTOMATION_CREATED = "automation_created", "Automation created"
    AUTOMATION_EDITED = "automation_edited", "Automation edited"
    AUTOMATION_ARCHIVED = "automation_archived", "Automation archived"
    AUTOMATION_UNARCHIVED = "automation_unarchived", "Automation restored from the archive"
    AUTOMATION_CLONED = "automation_cloned", "Automation cloned"
    VERSION_RESTORED = "version_restored", "Earlier version restored"
    RUN_STARTED = "run_started", "Run started"
    RUN_RETRIED = "run_retried", "Run retried or re-run"
    RUN_CANCELLED = "run_cancelled", "Run cancelled"
    REVIEW_APPROVED = "review_approved", "Review approved"
    REVIEW_EDITED = "review_edited", "Review approved with changes"
    REVIEW_REJECTED = "review_rejected", "Review rejected"
    CREDENTIAL_CREATED = "credential_created", "Credential created"
    CREDENTIAL_CHANGED = "credential_changed", "Credential changed"
    CREDENTIAL_DELETED = "credential_deleted", "Credential deleted"
    SCHEDULE_DELETED = "schedule_deleted", "Schedule deleted"
    WEBHOOK_DELETED = "webhook_deleted", "Webhook deleted"
    MEMBER_ADDED = "member_added", "Member added"
    MEMBER_ROLE_CHANGED = "member_role_changed", "Member's role changed"
    MEMBER_REMOVED = "member_removed", "Member removed"
    TOKEN_CREATED = "token_created", "API token created"
    TOKEN_REVOKED = "token_revoked", "API token revoked"


class AuditEvent(models.Model):
    """One recorded change. Append-only: rows are never edited; `before`/`after` hold the relevant
    part of the definition (e.g. the safety policy) and `changes` says in words what changed."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="audit_events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    actor_name = models.CharField(max_length=150, blank=True, help_text="Kept if the user is deleted.")
    action = models.CharField(max_length=40, choices=AuditAction.choices)
    automation = models.ForeignKey("automations.Automation", on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="audit_events")
    automation_slug = models.CharField(max_length=80, blank=True)
    version_number = models.PositiveIntegerField(null=True, blank=True)
    changes = models.JSONField(default=list, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("audit events are append-only")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.get_action_display()} by {self.actor_name or 'system'} on {self.automation_slug}"
