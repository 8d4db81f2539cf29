"""A signing secret shown once, on the page the POST that made it redirects to (Post/Redirect/Get).

The view that creates a webhook or callback endpoint, or rotates a secret, keeps the new secret in
the server-side session, encrypted as the object's own copy is (`automations.crypto`), and
redirects; the page it redirects to takes the secret out on its next GET and shows it with
`Cache-Control: no-store`. Reloading that page re-posts nothing (no second webhook or endpoint, no
second rotation) and shows the secret no more. The secret is never in a URL or a log line. One
secret is held at a time: a newer one replaces one not yet shown.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.debug import sensitive_variables

from venus_rpa.automations.crypto import decrypt_fields, encrypt_fields

SESSION_KEY = "secret_once"  # noqa: S105 -- a session key's name, not a secret


@sensitive_variables("secret")
def secret_keep(request: HttpRequest, *, kind: str, pk: int, secret: str) -> None:
    """Hold `secret` of the `kind` object `pk` (e.g. "webhook", 7) for the next `secret_take`."""
    request.session[SESSION_KEY] = {"kind": kind, "pk": pk, "ciphertext": encrypt_fields({"secret": secret})}


def secret_take(request: HttpRequest, *, kind: str, pk: int | None = None) -> tuple[int, str] | None:
    """(pk, secret) held by `secret_keep` for a `kind` object (`pk` None: any), taken out of the
    session; None when none is held for it (then a held secret of another object stays)."""
    held = request.session.get(SESSION_KEY)
    if not isinstance(held, dict) or held.get("kind") != kind or (pk is not None and held.get("pk") != pk):
        return None
    del request.session[SESSION_KEY]
    try:
        return int(held["pk"]), decrypt_fields(held["ciphertext"])["secret"]
    except (KeyError, TypeError, ValueError):
        return None


def not_stored(response: HttpResponse) -> HttpResponse:
    """A page that shows a secret is not kept by the browser's cache either (Back shows none)."""
    response["Cache-Control"] = "no-store"
    return response
