"""Request guards that run before any view or body parsing."""

from __future__ import annotations

import os
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware

from venus_rpa.core.views import error_json, wants_json_errors


class JsonBodyLimitMiddleware:
    """413 in the API's error shape for an /api/ or /hooks/ request whose Content-Length is over
    DATA_UPLOAD_MAX_MEMORY_SIZE, before anything reads the body.

    Django enforces that limit only when it reads `request.body`/`request.POST` itself (and then
    answers with an HTML 400); DRF's parsers read the stream directly. Bodies without a
    Content-Length are bounded by the parsers (core.parsers) and the webhook view.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and wants_json_errors(request) and _content_length(request) > limit:
            return error_json("too_large", f"The request body is larger than {limit} bytes.", 413)
        return self.get_response(request)


def _content_length(request: HttpRequest) -> int:
    """The declared body length; 0 when absent or malformed (the parsers still bound the body)."""
    raw = request.META.get("CONTENT_LENGTH") or ""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else 0


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """whitenoise, quiet about an empty STATIC_ROOT while it serves from the source folders
    (before any collectstatic, as in the tests)."""

    def add_files(self, root: str, prefix: str | None = None) -> None:
        if self.use_finders and not os.path.isdir(root):
            return
        super().add_files(root, prefix)
