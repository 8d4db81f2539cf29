"""JSON endpoints used by tests to inspect and reset the in-memory state (no sign-in needed)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from practice import sessions
from practice.accounts import accounts
from practice.records import records
from practice.store import expenses
from practice.views import files_lab, lab, replay_lab


@require_GET
def expense_list_api(request: HttpRequest) -> JsonResponse:
    """Return all expenses, oldest first (no sign-in, so tests can check results)."""
    return JsonResponse([e.as_dict() for e in expenses.all()], safe=False)


@csrf_exempt  # Called by test code without a browser session; the data is disposable.
@require_POST
def reset_api(request: HttpRequest) -> JsonResponse:
    """Delete all expenses, registered accounts and recorded actions (orders, messages, shares,
    account deletions, security changes); restart every reference numbering."""
    expenses.reset()
    accounts.reset()
    records.reset()
    lab.lookups_reset()
    files_lab.reset()
    replay_lab.reset()
    return JsonResponse({"status": "reset"})


@csrf_exempt  # Called by test code without a browser session.
@require_POST
def sessions_end_api(request: HttpRequest) -> JsonResponse:
    """Sign every session out, server side (as a site does when sessions expire): a browser that
    kept its cookie is signed out on its next request and must sign in again."""
    return JsonResponse({"status": "ended", "generation": sessions.end_all()})


@require_GET
def orders_api(request: HttpRequest) -> JsonResponse:
    """Every placed order, oldest first."""
    return JsonResponse([o.as_dict() for o in records.orders()], safe=False)


@require_GET
def account_api(request: HttpRequest) -> JsonResponse:
    """``{"accounts": {name: {"deleted", "deleted_at"}}, "deletions": [{"username", "deleted_at"}]}``."""
    return JsonResponse(records.account_api([settings.PRACTICE_USER]))


@require_GET
def messages_api(request: HttpRequest) -> JsonResponse:
    """``{"sent": [...], "drafts": [...]}``, each message ``{id, sender, to, subject, body, at}``."""
    return JsonResponse({
        "sent": [m.as_dict() for m in records.sent()], "drafts": [m.as_dict() for m in records.drafts()],
    })


@require_GET
def shares_api(request: HttpRequest) -> JsonResponse:
    """Every document share, oldest first."""
    return JsonResponse([s.as_dict() for s in records.shares()], safe=False)


@require_GET
def security_api(request: HttpRequest) -> JsonResponse:
    """``{"accounts": {name: {"two_factor_enabled"}}, "events": [{"action", "username", "at"}]}``."""
    return JsonResponse(records.security_api([settings.PRACTICE_USER]))


@require_GET
def actions_api(request: HttpRequest) -> JsonResponse:
    """The log of every consequential action, oldest first (empty when only look-alikes ran)."""
    return JsonResponse([e.as_dict() for e in records.events()], safe=False)


@require_GET
def lookups_api(request: HttpRequest) -> JsonResponse:
    """Every value the lab's GET lookup form received, oldest first."""
    return JsonResponse(lab.lookups(), safe=False)
