from django.contrib import admin

from venus_rpa.pools.models import Lease, PoolResource


@admin.register(PoolResource)
class PoolResourceAdmin(admin.ModelAdmin):
    list_display = ("kind", "key", "workspace", "status", "last_seen", "last_leased_at")
    list_filter = ("kind", "status", "workspace")
    search_fields = ("key",)


@admin.register(Lease)
class LeaseAdmin(admin.ModelAdmin):
    list_display = ("id", "resource", "holder", "run", "acquired_at", "expires_at", "released_at", "release_reason")
    list_filter = ("resource__kind", "release_reason")
    readonly_fields = [f.name for f in Lease._meta.fields]
