"""Members, roles and API tokens of the signed-in user's workspace (under Settings).

Who may do what (services in `venus_rpa.accounts.services` check it again, and audit it):
- members: every member sees who is in the workspace and with what role; only owners add
  (an existing account, by username or e-mail), invite (a new account, no password yet), change
  roles and remove (403 otherwise). An invitation's sign-up link is shown once, Post/Redirect/Get
  through `secret_once` (never in a URL, a log or the audit record); no e-mail is sent. The
  last owner is never demoted or removed (409 with the reason); nobody raises their own role.
- tokens: every member creates and revokes their own tokens; owners see and revoke everyone's.
  A token's raw value is shown once, in the answer to its creation (never cached), and only its
  prefix afterwards. Another workspace's member and token ids answer 404.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_http_methods, require_POST

from venus_rpa.accounts import selectors, services
from venus_rpa.accounts.models import Role
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import listing
from venus_rpa.dashboard.secret_once import not_stored, secret_keep, secret_take

OWNER_ONLY = "Only an owner of the workspace adds, changes or removes members."
# The expiry choices of the token form, in days ("" : no expiry).
TOKEN_EXPIRY_DAYS = (("30", "30 days"), ("90", "90 days"), ("7", "7 days"), ("365", "1 year"), ("", "No expiry"))


def _require_owner(request: HttpRequest) -> None:
    if request.access.role != Role.OWNER:
        raise PermissionDenied(OWNER_ONLY)


@sensitive_variables("link")
def _members_page(request: HttpRequest, *, form: dict | None = None, errors: dict | None = None,
                  row_error: tuple[int, str] | None = None, saved: str = "", status: int = 200,
                  invite: dict | None = None, invite_errors: dict | None = None) -> HttpResponse:
    workspace = request.access.workspace
    template = "dashboard/team/_members.html" if request.headers.get("HX-Request") else "dashboard/team/members.html"
    held = secret_take(request, kind="invite") if request.method == "GET" else None
    link = request.build_absolute_uri(held[1]) if held else ""
    response = render(request, template, {
        "members": selectors.member_list(workspace=workspace), "is_owner": request.access.role == Role.OWNER,
        "roles": Role.values, "form": form or {"who": "", "role": Role.VIEWER}, "errors": errors or {},
        "row_error": row_error, "saved": saved, "owners": selectors.owner_count(workspace=workspace),
        "invite": invite or {"username": "", "email": "", "role": Role.VIEWER}, "invite_errors": invite_errors or {},
        "invite_open": invite is not None, "signup_link": link, "link_days": _link_lifetime(),
    }, status=status)
    return not_stored(response) if link else response


def _link_lifetime() -> str:
    """How long a sign-up link works (settings.PASSWORD_RESET_TIMEOUT), in words."""
    hours = settings.PASSWORD_RESET_TIMEOUT // 3600
    return f"{hours // 24} days" if hours >= 48 else f"{max(hours, 1)} hours"


def _invite_offer(who: str, role: str) -> dict:
    """The invitation form filled from what the owner tried to add: an address goes to the e-mail."""
    if "@" in who:
        return {"username": who.split("@")[0][:150], "email": who, "role": role}
    return {"username": who, "email": "", "role": role}


@member_view()
@require_http_methods(["GET", "POST"])
def member_index(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _members_page(request)
    _require_owner(request)
    form = {"who": request.POST.get("who", "")[:254].strip(), "role": request.POST.get("role", "")}
    try:
        membership = services.member_add(workspace=request.access.workspace, actor=request.user, **form)
    except ServiceError as exc:
        errors = {"non_field_errors": [exc.message], **exc.fields}
        # Nobody has that name or address: offer to invite them, filled in.
        invite = _invite_offer(**form) if services.NO_ACCOUNT in exc.fields.get("who", []) else None
        return _members_page(request, form=form, errors=errors, status=exc.status, invite=invite)
    messages.success(request, f"{membership.user.username} added as {membership.role}.")
    return redirect("dashboard:members")


@member_view()
@require_POST
@sensitive_variables("path")
def member_invite(request: HttpRequest) -> HttpResponse:
    """Invite someone without an account; their sign-up link is shown once on the members page."""
    _require_owner(request)
    invite = {"username": request.POST.get("username", "")[:200], "email": request.POST.get("email", "")[:254],
              "role": request.POST.get("role", "")}
    try:
        membership, path = services.member_invite(workspace=request.access.workspace, actor=request.user, **invite)
    except ServiceError as exc:
        errors = {"non_field_errors": [exc.message], **exc.fields}
        return _members_page(request, invite=invite, invite_errors=errors, status=exc.status)
    secret_keep(request, kind="invite", pk=membership.pk, secret=path)
    messages.success(request, f"{membership.user.username} invited as {membership.role}: send them the link below.")
    return redirect("dashboard:members")


@member_view()
@require_POST
def member_role(request: HttpRequest, membership_id: int) -> HttpResponse:
    _require_owner(request)
    membership = selectors.member_get(workspace=request.access.workspace, membership_id=membership_id)
    try:
        membership = services.member_role_set(workspace=request.access.workspace, actor=request.user,
                                              membership=membership, role=request.POST.get("role", ""))
    except ServiceError as exc:
        # htmx swaps only 2xx answers: the refusal comes back as the section with the reason by the row.
        status = 200 if request.headers.get("HX-Request") else exc.status
        return _members_page(request, row_error=(membership.pk, exc.message), status=status)
    text = f"{membership.user.username} is now {membership.role}."
    if request.headers.get("HX-Request"):
        return _members_page(request, saved=text)
    messages.success(request, text)
    return redirect("dashboard:members")


@member_view()
@require_http_methods(["GET", "POST"])
def member_remove(request: HttpRequest, membership_id: int) -> HttpResponse:
    _require_owner(request)
    membership = selectors.member_get(workspace=request.access.workspace, membership_id=membership_id)
    name = membership.user.username
    context = {
        "title": f"Remove {name} from {request.access.workspace.name}?", "confirm": "Remove", "danger": True,
        "cancel_url": reverse("dashboard:members"), "error": "",
        "points": [f"{name} loses access to the workspace at once, in the dashboard and through the API.",
                   f"Their API tokens for this workspace are revoked; adding {name} back does not revive them.",
                   "Their runs, reviews and audit entries stay."],
    }
    if request.method == "POST":
        try:
            services.member_remove(workspace=request.access.workspace, actor=request.user, membership=membership)
        except ServiceError as exc:
            return render(request, "dashboard/confirm.html", {**context, "error": exc.message}, status=exc.status)
        messages.success(request, f"{name} removed from the workspace.")
        # Someone who removed themselves may not see this workspace's members any more.
        return redirect("dashboard:home" if membership.user_id == request.user.pk else "dashboard:members")
    return render(request, "dashboard/confirm.html", context)


def _expiry(raw: str):
    """The expiry the form asks for: None for no expiry; ValueError for anything not offered."""
    if raw not in dict(TOKEN_EXPIRY_DAYS):
        raise ValueError("Choose one of the offered expiries.")
    return timezone.now() + timedelta(days=int(raw)) if raw else None


@sensitive_variables("raw")
def _tokens_page(request: HttpRequest, *, raw: str = "", created=None, form: dict | None = None,
                 errors: dict | None = None, status: int = 200) -> HttpResponse:
    access = request.access
    is_owner = access.role == Role.OWNER
    tokens = selectors.api_token_list(workspace=access.workspace, user=None if is_owner else request.user)
    listed = listing(request, tokens)
    response = render(request, "dashboard/team/tokens.html", {
        "page": listed.page, "filters": listed.filters, "is_owner": is_owner, "now": timezone.now(),
        "new_token": raw, "created": created, "form": form or {"name": "", "expires": "30"}, "errors": errors or {},
        "expiry_choices": TOKEN_EXPIRY_DAYS, "api_root": request.build_absolute_uri("/api/"),
    }, status=status)
    if raw:
        response["Cache-Control"] = "no-store"  # the one answer that holds the raw value: never cached
    return response


@member_view()
@require_http_methods(["GET", "POST"])
@never_cache
@sensitive_variables("raw")
def token_index(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _tokens_page(request)
    form = {"name": request.POST.get("name", "")[:200], "expires": request.POST.get("expires", "")}
    try:
        token, raw = services.api_token_issue(workspace=request.access.workspace, actor=request.user,
                                              name=form["name"], expires_at=_expiry(form["expires"]))
    except ValueError as exc:
        return _tokens_page(request, form=form, errors={"expires": [str(exc)]}, status=400)
    except ServiceError as exc:
        return _tokens_page(request, form=form, errors={"non_field_errors": [exc.message], **exc.fields},
                            status=exc.status)
    return _tokens_page(request, raw=raw, created=token, status=201)


@member_view()
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = selectors.api_token_get(workspace=request.access.workspace, token_id=token_id)
    try:
        services.api_token_revoke(workspace=request.access.workspace, actor=request.user, token=token)
    except ServiceError as exc:
        raise PermissionDenied(exc.message) from exc
    messages.success(request, f"Token “{token.name}” ({token.prefix}…) revoked: it no longer works.")
    return redirect("dashboard:tokens")
