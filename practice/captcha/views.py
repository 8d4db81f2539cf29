"""CAPTCHA endpoints: images, checkbox token, refresh, the standalone page and the test hook."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from practice.captcha import service
from practice.captcha.store import challenges


@never_cache
@require_GET
def image_view(request: HttpRequest, challenge_id: str, name: str) -> HttpResponse:
    """``GET /captcha/<id>/<name>.png``: an image of a live challenge (404 once used or expired)."""
    challenge = challenges.get(challenge_id)
    if challenge is None or name not in challenge.images:
        raise Http404("No such challenge.")
    return HttpResponse(challenge.images[name], content_type="image/png")


@never_cache
@require_POST
def check_view(request: HttpRequest, challenge_id: str) -> JsonResponse:
    """``POST /captcha/<id>/check``: the checkbox widget's token (CSRF-protected, not consuming)."""
    challenge = challenges.get(challenge_id)
    if challenge is None or "token" not in challenge.solution:
        return JsonResponse({"error": "expired"}, status=404)
    return JsonResponse({"token": challenge.solution["token"]})


@never_cache
@require_POST
def refresh_view(request: HttpRequest, challenge_id: str) -> HttpResponse:
    """``POST /captcha/<id>/refresh``: drop this challenge, return a new widget of the same
    type, variant and language (``service.reissue``)."""
    old = challenges.take(challenge_id)
    if old is None:
        raise Http404("No such challenge.")
    return render(request, "practice/captcha/box.html", {"captcha": service.widget_context(service.reissue(old))})


@never_cache
@require_http_methods(["GET", "POST"])
def page_view(request: HttpRequest, kind: str) -> HttpResponse:
    """``/captcha/<type>``: a page with only the widget and "Verify"; the POST says if it passed.
    ``?lang=de`` (or fr, es, pt, ru, ja, zh, none) words the widget in that language or not at
    all; ``?variant=unreadable`` (OCR) draws a challenge no local reader is sure of."""
    if service.kind_from_param(kind) is None:
        raise Http404("No such CAPTCHA type.")
    context: dict[str, object] = {"verified": False, "failed": False, "captcha": None}
    if request.method == "POST":
        passed, used_kind = service.verify(request.POST)
        if passed:
            context["verified"] = True
            return render(request, "practice/captcha/page.html", context)
        context["failed"] = True
        kind = used_kind or kind  # a failed attempt gets a fresh challenge of the same type
    context["captcha"] = service.new_widget(kind, lang=request.GET.get("lang", "en"),
                                            variant=request.GET.get("variant", ""))
    return render(request, "practice/captcha/page.html", context)


@require_GET
def test_hook_view(request: HttpRequest, challenge_id: str) -> JsonResponse:
    """``GET /api/captcha/<id>``: the expected answer, for automated tests only.

    Disabled (404) unless the site was started with ``PRACTICE_TEST_HOOKS=1``: it hands out
    answers, so it must never be on where the CAPTCHAs are meant to stop anyone. It does
    not consume the challenge. See ``service.hook_payload`` for the format.
    """
    if not getattr(settings, "PRACTICE_TEST_HOOKS", False):
        raise Http404("Not found.")
    # "latest-<type>": the newest live challenge of that type (a test whose browser is elsewhere).
    if challenge_id.startswith("latest-"):
        challenge = challenges.latest(challenge_id.removeprefix("latest-"))
    else:
        challenge = challenges.get(challenge_id)
    if challenge is None:
        raise Http404("No such challenge.")
    return JsonResponse(service.hook_payload(challenge))
