"""Sign-in (with a one-time code for the two-step account), sign-out and the ``login_required``
guard (session-based, no auth app)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import pyotp
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import rotate_token
from django.shortcuts import redirect, render
from django.utils.crypto import constant_time_compare
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from practice.accounts import accounts
from practice import sessions
from practice.captcha import service as captcha

DEFAULT_AFTER_LOGIN = "/expenses/new"
PENDING = "pending_two_step"  # session key: the user who gave the right password, until the code

View = Callable[..., HttpResponse]


def login_required(view: View) -> View:
    """Send signed-out visitors to /login, remembering where they wanted to go."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.session.get("user"):
            return HttpResponseRedirect("/login?" + urlencode({"next": request.get_full_path()}))
        return view(request, *args, **kwargs)

    return wrapper


def _safe_next(request: HttpRequest, candidate: str) -> str | None:
    """Accept only local absolute paths, so ?next= cannot bounce users off-site."""
    if not candidate.startswith("/") or candidate.startswith("//"):
        return None
    if not url_has_allowed_host_and_scheme(candidate, allowed_hosts={request.get_host()}):
        return None
    return candidate


def _credentials_user(username: str, password: str) -> str | None:
    """The canonical username for valid credentials (a demo account or registered), else None."""
    # Compare both fields in constant time so timing says nothing about which was wrong.
    for user, secret in ((settings.PRACTICE_USER, settings.PRACTICE_PASSWORD),
                         (settings.PRACTICE_2FA_USER, settings.PRACTICE_2FA_PASSWORD)):
        user_ok = constant_time_compare(username, user)
        password_ok = constant_time_compare(password, secret)
        if user_ok and password_ok:
            return username
    account = accounts.authenticate(username, password)
    return account.username if account else None


def login_view(request: HttpRequest) -> HttpResponse:
    """Show the sign-in form; on valid credentials start a session and redirect.

    ``?captcha=TYPE`` (or ``random``) adds a CAPTCHA, checked before the credentials.
    """
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    captcha_kind = captcha.kind_from_param(request.GET.get("captcha"))
    context: dict[str, Any] = {
        "next": next_url, "username": "", "error": None, "captcha": None, "captcha_on": bool(captcha_kind),
    }
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        context["username"] = username
        passed = True
        if captcha_kind or request.POST.get("captcha_challenge"):
            passed, used_kind = captcha.verify(request.POST)
            captcha_kind = used_kind or captcha_kind
        if not passed:
            context["error"] = captcha.CAPTCHA_FAILED  # the credentials are not even looked at
        else:
            user = _credentials_user(username, request.POST.get("password", ""))
            if user == settings.PRACTICE_2FA_USER:  # the password is half of it: the code comes next
                request.session.cycle_key()
                request.session[PENDING] = {"user": user, "next": next_url}
                return redirect("/login/code")
            if user:
                return _signed_in(request, user, next_url)
            context["error"] = "Invalid username or password."
    if captcha_kind:
        context["captcha"] = captcha.new_widget(captcha_kind)
    return render(request, "practice/login.html", context)


def _signed_in(request: HttpRequest, user: str, next_url: str) -> HttpResponse:
    request.session.cycle_key()
    request.session.pop(PENDING, None)
    request.session["user"] = user
    request.session[sessions.KEY] = sessions.current()
    request.session.pop("draft", None)
    rotate_token(request)
    return redirect(_safe_next(request, next_url) or DEFAULT_AFTER_LOGIN)


def login_code_view(request: HttpRequest) -> HttpResponse:
    """The second step of a two-step sign-in: the authenticator app's current six-digit code
    (the previous and next 30-second windows are accepted too, for clock drift)."""
    pending = request.session.get(PENDING)
    if not pending:
        return redirect("/login")
    context: dict[str, Any] = {"error": None}
    if request.method == "POST":
        code = "".join(request.POST.get("code", "").split())
        totp = pyotp.TOTP(settings.PRACTICE_2FA_SECRET)
        if len(code) == 6 and code.isdigit() and totp.verify(code, valid_window=1):
            return _signed_in(request, pending["user"], pending["next"])
        context["error"] = "That code is not valid. Enter the current code from your authenticator app."
    return render(request, "practice/login_code.html", context)


def logout_view(request: HttpRequest) -> HttpResponse:
    """Clear the session (user and any draft) and go back to the sign-in page."""
    request.session.flush()
    return redirect("/login")


def home_view(request: HttpRequest) -> HttpResponse:
    """Send visitors to the expense list, or to sign-in when signed out."""
    return redirect("/expenses" if request.session.get("user") else "/login")
