from django.contrib import admin

from venus_rpa.automations.models import Automation, AutomationVersion, Credential, LoginSession


class VersionInline(admin.TabularInline):
    model = AutomationVersion
    fields = ("number", "surface", "start_url", "change_note", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Automation)
class AutomationAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "workspace", "current_version", "updated_at")
    list_filter = ("workspace",)
    readonly_fields = ("current_version",)
    inlines = [VersionInline]


@admin.register(AutomationVersion)
class AutomationVersionAdmin(admin.ModelAdmin):
    list_display = ("automation", "number", "surface", "created_at")

    def has_change_permission(self, request, obj=None):
        return False  # versions are immutable


@admin.register(Credential)
class CredentialAdmin(admin.ModelAdmin):
    list_display = ("name", "workspace", "domains", "field_names", "updated_at")
    exclude = ("ciphertext",)  # never shown, even encrypted
    readonly_fields = ("field_names",)


@admin.register(LoginSession)
class LoginSessionAdmin(admin.ModelAdmin):
    list_display = ("credential", "domain", "workspace", "saved_at", "last_used_at", "expires_at")
    exclude = ("ciphertext",)  # a saved session is a secret: never shown, even encrypted
    readonly_fields = ("workspace", "credential", "domain", "saved_at", "last_used_at", "expires_at", "saved_by_run_id")

    def has_add_permission(self, request):
        return False
