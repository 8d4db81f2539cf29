"""Credentials: names, field names and domains only. Secrets are write-only: typed once here,
encrypted by `credential_set`, never shown again. A credential's page lists the sign-in sessions
saved for it (domain and dates only) and lets editors revoke them."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.utils.text import slugify
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables

from venus_rpa.automations.checks import (
    TOTP_FIELD, credential_fields_problem, credential_fields_repeated_problem, credential_totp_problem,
)
from venus_rpa.automations.selectors import credential_get, credential_list, login_session_get, login_session_list
from venus_rpa.automations.services import credential_domains_clean, credential_set, login_session_revoke
from venus_rpa.core.errors import InvalidInput, ServiceError
from venus_rpa.dashboard.access import member_view, require_write
from venus_rpa.dashboard.automation_form import domain_entries
from venus_rpa.dashboard.listing import listing, search_text

DEFAULT_FIELDS = ["username", "password"]


def _form_from_post(request: HttpRequest) -> tuple[dict, dict[str, list[str]]]:
    post = request.POST
    name = post.get("name", "").strip()
    pairs = [(k.strip(), v) for k, v in zip(post.getlist("field_name"), post.getlist("field_value")) if k.strip()]
    errors: dict[str, list[str]] = {}
    totp_secret = post.get("totp_secret", "").strip()
    if problem := credential_fields_repeated_problem([k for k, _ in pairs]):  # one value would be lost
        errors["fields"] = [problem]
    if totp_secret and any(k == TOTP_FIELD for k, _ in pairs):  # the box is the field "totp"
        errors.setdefault("fields", []).append(
            f"A field named {TOTP_FIELD!r} and the TOTP secret box are the same field: fill in only the box.")
    if totp_secret:  # its own input: a setup key, not a typed value
        pairs = [(k, v) for k, v in pairs if k != TOTP_FIELD] + [(TOTP_FIELD, totp_secret)]
        if problem := credential_totp_problem(dict(pairs)):
            errors["totp"] = [problem]
    if not name or slugify(name) != name:
        errors["name"] = ["Use lowercase letters, digits and dashes (it goes into {{credentials.NAME.FIELD}})."]
    if problem := credential_fields_problem([k for k, _ in pairs]):
        errors.setdefault("fields", []).append(problem)
    if not pairs:
        errors.setdefault("fields", []).append("Give at least one field with its secret value.")
    elif any(v == "" for _, v in pairs):
        errors.setdefault("fields", []).append(
            "Every field needs a value (a stored value is never shown, so type all of them again).")
    domains = domain_entries(post.get("domains", ""))  # one per line, as the automation editor's box
    try:  # reported with the other fields' problems (credential_set checks them again)
        credential_domains_clean(domains)
    except InvalidInput as exc:
        errors.update(exc.fields)
    form = {"name": name, "domains": "\n".join(domains),
            "field_names": [k for k, _ in pairs if k != TOTP_FIELD] or DEFAULT_FIELDS}
    return {"form": form, "fields": dict(pairs), "domains": domains}, errors


@sensitive_post_parameters("field_value", "totp_secret")
@sensitive_variables("parsed", "pairs", "post")
@member_view()
def credential_index(request: HttpRequest) -> HttpResponse:
    workspace = request.access.workspace
    context: dict = {"form": {"name": "", "domains": "", "field_names": DEFAULT_FIELDS}, "errors": {}}
    status = 200
    if request.method == "POST":
        require_write(request)
        parsed, errors = _form_from_post(request)
        context.update(form=parsed["form"], errors=errors)
        if not errors:
            try:
                replaced = credential_list(workspace=workspace).filter(name=parsed["form"]["name"]).exists()
                credential = credential_set(workspace=workspace, name=parsed["form"]["name"], fields=parsed["fields"],
                                            domains=parsed["domains"], user=request.user)
            except ServiceError as exc:
                context["errors"] = {k.replace(f"fields.{TOTP_FIELD}", "totp"): v
                                     for k, v in (exc.fields or {"name": [exc.message]}).items()}
            else:
                messages.success(request, f"{'Replaced' if replaced else 'Saved'} credential {credential.name}. "
                                          "Its values are stored encrypted and will not be shown again.")
                return redirect("dashboard:credentials")
        status = 400
    listed = listing(request, credential_list(workspace=workspace, search=search_text(request)))
    context.update(credentials=listed.page.object_list, page=listed.page, filters=listed.filters, q=listed.q)
    return render(request, "dashboard/credentials.html", context, status=status)


@member_view()
def credential_detail(request: HttpRequest, name: str) -> HttpResponse:
    credential = credential_get(workspace=request.access.workspace, name=name)
    return render(request, "dashboard/credential_detail.html", {
        "credential": credential, "sessions": login_session_list(credential=credential), "now": timezone.now()})


@require_POST
@member_view(write=True)
def credential_session_revoke(request: HttpRequest, name: str, session_id: int | None = None) -> HttpResponse:
    credential = credential_get(workspace=request.access.workspace, name=name)
    session = login_session_get(credential=credential, session_id=session_id) if session_id is not None else None
    count = login_session_revoke(credential=credential, session=session)
    what = f"the session for {session.domain}" if session else f"{count} saved session{'s' if count != 1 else ''}"
    messages.success(request, f"Revoked {what}; the next run signs in again.")
    return redirect("dashboard:credential-detail", name=credential.name)
