"""Account registration (``/register``, optionally with ``?captcha=TYPE``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from practice.accounts import accounts
from practice.captcha import service as captcha
from practice.validation import clean_registration

REGISTERED_KEY = "registered"


def register_view(request: HttpRequest) -> HttpResponse:
    """"Create an account": the CAPTCHA (if any) is checked first, then the fields."""
    captcha_kind = captcha.kind_from_param(request.GET.get("captcha"))
    context: dict[str, Any] = {
        "values": {}, "errors": {}, "error": None, "captcha": None, "captcha_on": bool(captcha_kind),
    }
    if request.method == "POST":
        values, errors = clean_registration(request.POST)
        context["values"] = {"username": values["username"], "email": values["email"]}
        passed = True
        if captcha_kind or request.POST.get("captcha_challenge"):
            passed, used_kind = captcha.verify(request.POST)
            captcha_kind = used_kind or captcha_kind
        if not passed:
            context["error"] = captcha.CAPTCHA_FAILED
        elif errors:
            context["errors"] = errors
        elif values["username"].lower() == settings.PRACTICE_USER.lower() or not accounts.create(
            values["username"], values["email"], values["password"]
        ):
            context["errors"] = {"username": "That username is already taken."}
        else:
            request.session[REGISTERED_KEY] = values["username"]
            return redirect("/register/done")
    if captcha_kind:
        context["captcha"] = captcha.new_widget(captcha_kind)
    return render(request, "practice/register.html", context)


def register_done_view(request: HttpRequest) -> HttpResponse:
    """"Account created", with a link to sign in."""
    username = request.session.get(REGISTERED_KEY)
    if not username:
        return redirect("/register")
    return render(request, "practice/register_done.html", {"registered": username})
