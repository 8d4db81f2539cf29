"""``/lab/replay``: a two-screen subscription (an email, then a confirmation) whose second
screen can be changed under a running automation, as a site redeploy would: the replay cache's
practice page (tests/runtime/test_replay.py, benchmarks/replay.py).

``POST /api/lab/replay {"layout": "original" | "renamed" | "moved"}`` sets the confirmation
screen's layout ("renamed": its button reads "Join the list"; "moved": the button comes before
the text); ``GET`` returns the layout and the subscriptions made; ``/api/reset`` restores the
original and forgets them.
"""

from __future__ import annotations

import json
import threading

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.csrf import csrf_exempt

LAYOUTS = ("original", "renamed", "moved")
_state = {"layout": "original", "subscriptions": []}
_lock = threading.Lock()


def form_view(request: HttpRequest) -> HttpResponse:
    """Screen 1: the email to subscribe; "Continue" goes to the confirmation."""
    return render(request, "practice/lab/replay.html")


def confirm_view(request: HttpRequest) -> HttpResponse:
    """Screen 2: confirm the subscription (layout per `_state`); POST subscribes."""
    email = (request.POST.get("email") or request.GET.get("email") or "").strip()[:200]
    if request.method == "POST":
        with _lock:
            _state["subscriptions"].append(email)
        return HttpResponseRedirect("/lab/replay/done?" + urlencode({"email": email}))
    with _lock:
        layout = _state["layout"]
    return render(request, "practice/lab/replay_confirm.html", {"email": email, "layout": layout})


def done_view(request: HttpRequest) -> HttpResponse:
    return render(request, "practice/lab/replay_done.html", {"email": request.GET.get("email", "")[:200]})


@csrf_exempt  # called by test code without a browser session
def state_api(request: HttpRequest) -> JsonResponse:
    if request.method == "POST":
        try:
            layout = json.loads(request.body or b"{}").get("layout")
        except (ValueError, AttributeError):
            layout = None
        if layout not in LAYOUTS:
            return JsonResponse({"error": f"layout must be one of {', '.join(LAYOUTS)}"}, status=400)
        with _lock:
            _state["layout"] = layout
    with _lock:
        return JsonResponse({"layout": _state["layout"], "subscriptions": list(_state["subscriptions"])})


def reset() -> None:
    with _lock:
        _state["layout"] = "original"
        _state["subscriptions"].clear()
