"""A health check, and the error pages: JSON in the API's one error shape under /api/ and /hooks/,
the dashboard's own HTML pages everywhere else."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults

# Paths whose clients are programs: they get JSON errors, never an HTML page.
JSON_PATH_PREFIXES = ("/api/", "/hooks/")


def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


def wants_json_errors(request: HttpRequest) -> bool:
    """True for the API and the inbound webhooks (`/api/…`, `/hooks/…`)."""
    return request.path.startswith(JSON_PATH_PREFIXES)


def error_json(code: str, message: str, status: int) -> JsonResponse:
    """`{"error": {"code", "message", "fields": {}}}` with this status (see core.api)."""
    return JsonResponse({"error": {"code": code, "message": message, "fields": {}}}, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: Django's SuspiciousOperation answers, including bodies over the size limit."""
    if not wants_json_errors(request):
        too_large = ""
        if isinstance(exception, RequestDataTooBig):
            too_large = f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024:g} MB at most"
        elif isinstance(exception, TooManyFieldsSent):
            too_large = f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields at most"
        return render(request, "400.html", {"too_large": too_large}, status=400)
    if isinstance(exception, RequestDataTooBig):
        return error_json("too_large", "The request body is too large.", 413)
    return error_json("bad_request", "The request could not be understood.", 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler403."""
    if wants_json_errors(request):
        return error_json("permission_denied", "You do not have permission to do this.", 403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: unknown URLs (and Http404 outside DRF views)."""
    if wants_json_errors(request):
        return error_json("not_found", "Not found.", 404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an unhandled exception; the details go to the log, never to the client."""
    if wants_json_errors(request):
        return error_json("server_error", "Something went wrong on our side; it has been logged.", 500)
    return defaults.server_error(request)
