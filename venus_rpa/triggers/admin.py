from django.contrib import admin

from venus_rpa.triggers.models import (
    CallbackAttempt, CallbackDelivery, CallbackEndpoint, Schedule, ScheduleFire, WebhookTrigger,
)


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    """Edit schedules through the API: it keeps the PeriodicTask in step and validates params."""

    list_display = ("name", "automation", "cron", "timezone", "enabled", "last_fired_at", "workspace")
    list_filter = ("enabled", "workspace")
    readonly_fields = [f.name for f in Schedule._meta.fields]


@admin.register(ScheduleFire)
class ScheduleFireAdmin(admin.ModelAdmin):
    list_display = ("schedule", "fire_time", "run", "error")
    readonly_fields = [f.name for f in ScheduleFire._meta.fields]


@admin.register(WebhookTrigger)
class WebhookTriggerAdmin(admin.ModelAdmin):
    list_display = ("name", "automation", "public_id", "enabled", "workspace")
    list_filter = ("enabled", "workspace")
    exclude = ("secret_ciphertext",)
    readonly_fields = ("workspace", "automation", "public_id", "param_mapping", "created_by")


@admin.register(CallbackEndpoint)
class CallbackEndpointAdmin(admin.ModelAdmin):
    list_display = ("url", "automation", "enabled", "workspace")
    list_filter = ("enabled", "workspace")
    exclude = ("secret_ciphertext",)
    readonly_fields = ("workspace", "automation", "created_by")


class CallbackAttemptInline(admin.TabularInline):
    model = CallbackAttempt
    fields = ("at", "status_code", "error", "duration_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(CallbackDelivery)
class CallbackDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "endpoint", "run", "status", "attempts", "last_status_code", "created_at")
    list_filter = ("status",)
    readonly_fields = [f.name for f in CallbackDelivery._meta.fields]
    inlines = [CallbackAttemptInline]
