"""JSON endpoints used by tests to inspect and reset the in-memory expenses."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from practice.accounts import accounts
from practice.store import expenses


@require_GET
def expense_list_api(request: HttpRequest) -> JsonResponse:
    """Return all expenses, oldest first (no sign-in, so tests can check results)."""
    return JsonResponse([e.as_dict() for e in expenses.all()], safe=False)


@csrf_exempt  # Called by test code without a browser session; the data is disposable.
@require_POST
def reset_api(request: HttpRequest) -> JsonResponse:
    """Delete all expenses and registered accounts; restart reference numbering."""
    expenses.reset()
    accounts.reset()
    return JsonResponse({"status": "reset"})
