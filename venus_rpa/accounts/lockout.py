"""What a person sees when django-axes refuses a sign-in (settings.AXES_LOCKOUT_CALLABLE)."""

from __future__ import annotations

import math

from axes.helpers import get_client_username, get_cool_off
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict | None = None) -> HttpResponse:
    """429 with the sign-in card saying how long to wait. Never says whether the password was right."""
    cool_off = get_cool_off(request)
    context = {
        "username": get_client_username(request, credentials) or "",
        "minutes": math.ceil(cool_off.total_seconds() / 60) if cool_off else None,
    }
    return render(request, "registration/locked_out.html", context, status=LOCKED_OUT_STATUS)
