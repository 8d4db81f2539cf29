from django.contrib import admin

from venus_rpa.reviews.models import ReviewRequest


@admin.register(ReviewRequest)
class ReviewRequestAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "run", "title", "created_at", "decided_at")
    list_filter = ("kind", "status", "workspace")
    readonly_fields = [f.name for f in ReviewRequest._meta.fields]
