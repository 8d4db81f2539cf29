"""Template context shared by every practice page."""

from __future__ import annotations

from django.http import HttpRequest


def current_user(request: HttpRequest) -> dict[str, str | None]:
    """Expose the signed-in username (or None) so the header can show "Sign out"."""
    return {"current_user": request.session.get("user")}
