from django.contrib import admin

from venus_rpa.accounts.models import ApiToken, Membership, Workspace


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created_at")
    inlines = [MembershipInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "workspace", "user", "created_at", "last_used_at", "expires_at", "revoked_at")
    readonly_fields = ("prefix", "token_hash", "last_used_at")
