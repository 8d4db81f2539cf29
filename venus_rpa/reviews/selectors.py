"""Reads for review requests, scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from venus_rpa.accounts.models import Workspace
from venus_rpa.reviews.models import ReviewRequest


def review_list(*, workspace: Workspace, status: str | None = None, kind: str | None = None) -> QuerySet[ReviewRequest]:
    reviews = (ReviewRequest.objects.filter(workspace=workspace).select_related("run", "run__automation", "decided_by")
               .prefetch_related("decisions__user"))
    if status:
        reviews = reviews.filter(status=status)
    if kind:
        reviews = reviews.filter(kind=kind)
    return reviews


def review_get(*, workspace: Workspace, review_id: int) -> ReviewRequest:
    return get_object_or_404(review_list(workspace=workspace), pk=review_id)
