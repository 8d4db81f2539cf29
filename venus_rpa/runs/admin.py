from django.contrib import admin

from venus_rpa.runs.models import Artifact, Run, Step


class StepInline(admin.TabularInline):
    model = Step
    fields = ("index", "kind", "name", "status", "error", "act_ms", "observe_ms", "screenshot")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "automation", "status", "trigger", "created_at", "finished_at")
    list_filter = ("status", "trigger", "workspace")
    readonly_fields = [f.name for f in Run._meta.fields]
    inlines = [StepInline]


@admin.register(Artifact)
class ArtifactAdmin(admin.ModelAdmin):
    list_display = ("name", "run", "kind", "created_at")
