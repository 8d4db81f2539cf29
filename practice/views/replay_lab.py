"""``/lab/replay``: two screens of email preferences (an address, then "Save preferences") whose
second screen can be changed under a running automation, as a site redeploy would: the replay cache's
practice page (tests/runtime/test_replay.py, benchmarks/replay.py).

``POST /api/lab/replay {"layout": "original" | "renamed" | "moved"}`` sets the confirmation
screen's layout ("renamed": its button reads "Keep these settings"; "moved": the button comes before
the heading); ``GET`` returns the addresses saved; ``/api/reset`` restores the
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
_state = {"layout": "original", "saved": []}
_lock = threading.Lock()


def form_view(request: HttpRequest) -> HttpResponse:
    """Screen 1: the email address; "Continue" goes to the preferences."""
    return render(request, "practice/lab/replay.html")


def confirm_view(request: HttpRequest) -> HttpResponse:
    """Screen 2: save the preferences (layout per `_state`); POST saves them."""
    email = (request.POST.get("email") or request.GET.get("email") or "").strip()[:200]
    if request.method == "POST":
        with _lock:
            _state["saved"].append(email)
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
        return JsonResponse({"layout": _state["layout"], "saved": list(_state["saved"])})


def reset() -> None:
    with _lock:
        _state["layout"] = "original"
        _state["saved"].clear()
