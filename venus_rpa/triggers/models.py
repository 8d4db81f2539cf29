"""What starts runs besides a person (cron schedules, signed inbound webhooks) and what tells
other systems when runs end (signed outbound callbacks with delivery attempts)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation
from venus_rpa.runs.models import Run


class Schedule(models.Model):
    """Start a run of `automation` with `params` at every tick of `cron` in `timezone`.

    Celery beat (django-celery-beat's DatabaseScheduler) sends `schedule_fire_task` through the
    linked PeriodicTask; ScheduleFire rows make each tick start at most one run.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="schedules")
    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="schedules")
    name = models.CharField(max_length=200)
    cron = models.CharField(max_length=200, help_text="Five fields: minute hour day-of-month month day-of-week.")
    timezone = models.CharField(max_length=64, default="UTC")
    params = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_fired_at = models.DateTimeField(null=True, blank=True, help_text="The cron tick of the latest fire.")
    last_error = models.TextField(blank=True, help_text="Why the latest fire started no run; empty if it did.")

    class Meta:
        ordering = ["name", "id"]
        constraints = [  # the services check first, with a field error (services._common.name_check)
            models.UniqueConstraint("workspace", Lower("name"), name="one_schedule_name_per_workspace",
                                    violation_error_message="Another schedule of this workspace has this name."),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.cron} {self.timezone})"


class ScheduleFire(models.Model):
    """One cron tick of a schedule. The unique constraint is what makes a fire idempotent:
    a second delivery of the same tick cannot insert its row, so it starts no run."""

    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="fires")
    fire_time = models.DateTimeField()
    run = models.ForeignKey(Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-fire_time"]
        constraints = [models.UniqueConstraint(fields=["schedule", "fire_time"], name="one_fire_per_schedule_tick")]

    def __str__(self) -> str:
        return f"{self.schedule} at {self.fire_time:%Y-%m-%d %H:%M}"


class WebhookTrigger(models.Model):
    """`POST /hooks/<public_id>/`, signed with the trigger's secret, starts a run.

    The secret is stored encrypted (it must be read back to check HMACs) and shown only when it
    is created or rotated. `param_mapping` maps parameter names to dot paths in the JSON body.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="webhook_triggers")
    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="webhook_triggers")
    name = models.CharField(max_length=200)
    public_id = models.CharField(max_length=64, unique=True)
    secret_ciphertext = models.TextField()
    param_mapping = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [  # the services check first, with a field error (services._common.name_check)
            models.UniqueConstraint("workspace", Lower("name"), name="one_webhook_name_per_workspace",
                                    violation_error_message="Another webhook of this workspace has this name."),
        ]

    def __str__(self) -> str:
        return self.name


class WebhookIdempotencyKey(models.Model):
    """An `Idempotency-Key` a webhook caller sent, and the run it started."""

    trigger = models.ForeignKey(WebhookTrigger, on_delete=models.CASCADE, related_name="idempotency_keys")
    key = models.CharField(max_length=255)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["trigger", "key"], name="one_run_per_idempotency_key")]

    def __str__(self) -> str:
        return f"{self.key} -> run {self.run_id}"


class CallbackEndpoint(models.Model):
    """A URL that gets a signed `run.finished` POST when a run of `automation` (any, if null) ends."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="callback_endpoints")
    automation = models.ForeignKey(
        Automation, on_delete=models.CASCADE, null=True, blank=True, related_name="callback_endpoints"
    )
    url = models.URLField(max_length=2000)
    secret_ciphertext = models.TextField()
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class CallbackDelivery(models.Model):
    """One run's `run.finished` event for one endpoint, sent until a 2xx or out of attempts.

    `attempts` counts the attempts of the current send (a resend starts again from 0); every
    attempt ever made is a CallbackAttempt row. `next_attempt_at` doubles as a lease while an
    attempt is in flight, so a duplicate task message cannot send the same attempt twice.
    """

    endpoint = models.ForeignKey(CallbackEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="callback_deliveries")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING,
                              db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["endpoint", "run"], name="one_delivery_per_endpoint_run")]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]

    def __str__(self) -> str:
        return f"run {self.run_id} -> {self.endpoint} ({self.status})"


class CallbackAttempt(models.Model):
    delivery = models.ForeignKey(CallbackDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    at = models.DateTimeField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.FloatField(default=0)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"attempt at {self.at:%H:%M:%S} ({self.status_code or self.error[:40]})"
