"""Search and pagination shared by every list page: `?q=` words, filters kept in the page links,
server-side pages of a bounded size (`?per_page=` 10–100), and labels in words for raw values."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.http import HttpRequest

PER_PAGE = 25
PER_PAGE_CHOICES = (10, 25, 50, 100)

RUN_STATUS_WORDS = {
    "queued": "Waiting to start", "running": "Running", "awaiting_review": "Waiting for a reviewer",
    "awaiting_user": "Waiting for an answer", "succeeded": "Succeeded", "failed": "Failed",
    "cancelled": "Cancelled", "timed_out": "Timed out",
}
TRIGGER_WORDS = {"api": "API", "dashboard": "Dashboard", "cli": "Command line", "schedule": "Schedule",
                 "webhook": "Webhook"}


@dataclass(frozen=True)
class Listing:
    page: Page
    q: str
    filters: str  # the query string without `page`, for the pager's links
    per_page: int


def search_text(request: HttpRequest) -> str:
    """The search box's words, trimmed and bounded (no NUL: the database refuses it in a query)."""
    return " ".join(request.GET.get("q", "").replace("\x00", " ").split())[:200]


def listing(request: HttpRequest, objects, *, per_page: int = PER_PAGE) -> Listing:
    """One page of `objects`; a page number out of range shows the nearest page."""
    try:
        asked = int(request.GET.get("per_page", per_page))
    except ValueError:
        asked = per_page
    size = asked if asked in PER_PAGE_CHOICES else per_page
    page = Paginator(objects, size).get_page(request.GET.get("page"))
    filters = request.GET.copy()
    filters.pop("page", None)
    return Listing(page=page, q=search_text(request), filters=filters.urlencode(), per_page=size)
