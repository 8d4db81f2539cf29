"""Where a member wants to hear that a review waits for them (e-mail, a Slack/Teams-compatible
incoming webhook), and each notice sent, with its outcome."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from venus_rpa.accounts.models import Workspace


class NotificationSettings(models.Model):
    """One member's channels in one workspace. The e-mail goes to the account's own address only
    (nobody can point notices at someone else's inbox); the webhook URL is checked like a
    callback's (public destinations only, `core.outbound`)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings")
    email_enabled = models.BooleanField(default=False)
    webhook_url = models.CharField(max_length=2000, blank=True)
    webhook_enabled = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_notification_settings_per_member")]

    def __str__(self) -> str:
        return f"notifications of {self.user} in {self.workspace}"


class Channel(models.TextChoices):
    EMAIL = "email", "E-mail"
    WEBHOOK = "webhook", "Chat webhook"


class NoticeStatus(models.TextChoices):
    PENDING = "pending", "Being sent"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"
    SKIPPED = "skipped", "Not sent (decided before)"


class Notice(models.Model):
    """One notice of one review to one member on one channel (at most one: replays are harmless)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    review = models.ForeignKey("reviews.ReviewRequest", on_delete=models.CASCADE, related_name="notices")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    status = models.CharField(max_length=10, choices=NoticeStatus.choices, default=NoticeStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=200, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["review", "user", "channel"], name="one_notice_per_channel")]

    def __str__(self) -> str:
        return f"{self.channel} notice of review {self.review_id} to {self.user_id} ({self.status})"
