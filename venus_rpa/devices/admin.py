from django.contrib import admin

from venus_rpa.devices.models import AndroidDevice


@admin.register(AndroidDevice)
class AndroidDeviceAdmin(admin.ModelAdmin):
    list_display = ("serial", "adb_host", "adb_port", "model", "status_reason")
    readonly_fields = ("created_at",)
