from django.contrib import admin

from venus_rpa.reviews.models import ReviewDecision, ReviewRequest


@admin.register(ReviewRequest)
class ReviewRequestAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "run", "title", "created_at", "decided_at")
    list_filter = ("kind", "status", "workspace")
    readonly_fields = [f.name for f in ReviewRequest._meta.fields]


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(admin.ModelAdmin):
    list_display = ("id", "review", "decision", "user", "created_at")
    list_filter = ("decision",)
    readonly_fields = [f.name for f in ReviewDecision._meta.fields]
