"""Ending sign-ins from the server side.

Sessions live in signed cookies (the site has no database), so a session cannot be deleted on
the server. Instead each sign-in records the current generation; ``end_all`` starts a new one
and the middleware signs out every session of an older generation on its next request, as a
site does when it expires or revokes sessions. Tests use it through ``POST /api/sessions/end``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

KEY = "generation"
_lock = threading.Lock()
_generation = 0


def current() -> int:
    """The generation new sign-ins belong to."""
    return _generation


def end_all() -> int:
    """End every session signed in so far; returns the new generation."""
    global _generation
    with _lock:
        _generation += 1
        return _generation


class EndedSessionsMiddleware:
    """Sign out a session whose generation was ended (after ``SessionMiddleware``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.session.get("user") and request.session.get(KEY, 0) != _generation:
            request.session.flush()
        return self.get_response(request)
