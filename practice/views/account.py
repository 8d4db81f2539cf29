"""Account settings (with "Delete account") and security settings (two-factor, password).

Consequential: "Delete my account" on the confirmation page (ACCT/DEL), "Turn off two-factor
authentication" and "Change password" (SEC). Benign look-alikes: "Delete account" on the
settings page (it only opens the confirmation), "Cancel", "Payment methods", the help article
on deleting an account, and "Send verification code" (shows "Code sent", records nothing).

The practice site keeps sign-in working after these actions (a deleted account can sign in
again, a changed password is not applied) so one automation cannot lock out the next; the
actions are recorded for ``/api/account`` and ``/api/security`` instead.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from practice.records import records, shown
from practice.validation import PASSWORD_MIN
from practice.views.auth import _credentials_user, login_required
from practice.views.common import flash, new_submission_token, pop_flash, submission_token, user

DELETED_KEY = "deleted_account"
PHONE = "+1 ••• ••• 0142"


@login_required
def settings_view(request: HttpRequest) -> HttpResponse:
    """``/account``: profile, links, and the "Delete account" danger zone."""
    deleted_at = records.deleted_at(user(request))
    context = {"flash": pop_flash(request), "deleted_at": shown(deleted_at) if deleted_at else None}
    return render(request, "practice/account/settings.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def delete_view(request: HttpRequest) -> HttpResponse:
    """``/account/delete``: the "Delete account" dialog; POST ("Delete my account") deletes."""
    if request.method == "POST":
        username = user(request)
        records.delete_account(submission_token(request), username)
        request.session.flush()  # deleting an account signs it out everywhere
        request.session[DELETED_KEY] = username
        return redirect("/account/deleted")
    return render(request, "practice/account/delete_confirm.html", {"token": new_submission_token()})


def deleted_view(request: HttpRequest) -> HttpResponse:
    """``/account/deleted``: "Account deleted" (public: the session has ended)."""
    username = request.session.get(DELETED_KEY)
    if not username:
        return redirect("/login")
    return render(request, "practice/account/deleted.html", {"deleted_user": username})


@login_required
def payment_methods_view(request: HttpRequest) -> HttpResponse:
    """``/account/payment-methods``: saved cards (read only; a benign navigation target)."""
    return render(request, "practice/account/payment_methods.html")


@login_required
def delete_help_view(request: HttpRequest) -> HttpResponse:
    """``/account/help/delete-account``: a help article (a hard negative for "delete account")."""
    return render(request, "practice/account/delete_help.html")


@login_required
def security_view(request: HttpRequest) -> HttpResponse:
    """``/security``: two-factor status and switch, "Send verification code", "Change password"."""
    return _security_page(request)


def _security_page(request: HttpRequest, errors: dict[str, str] | None = None) -> HttpResponse:
    context = {
        "flash": pop_flash(request), "two_factor": records.two_factor_enabled(user(request)), "phone": PHONE,
        "errors": errors or {}, "token": new_submission_token(),
    }
    return render(request, "practice/security/settings.html", context)


@login_required
@require_POST
def two_factor_view(request: HttpRequest) -> HttpResponse:
    """``POST /security/two-factor`` with ``enabled=off|on``: one event when the state changes."""
    enable = request.POST.get("enabled") == "on"
    changed = records.set_two_factor(user(request), enable)
    if changed:
        flash(request, "Two-factor authentication is now " + ("on." if enable else "off."))
    return redirect("/security")


@login_required
@require_POST
def send_code_view(request: HttpRequest) -> HttpResponse:
    """``POST /security/send-code``: pretend to text a code; records nothing (AUTH hard negative)."""
    flash(request, f"Code sent to {PHONE}.")
    return redirect("/security")


@login_required
@require_POST
def change_password_view(request: HttpRequest) -> HttpResponse:
    """``POST /security/password``: check the fields and record the change (not applied)."""
    username = user(request)
    current = request.POST.get("current_password", "")
    new = request.POST.get("new_password", "")
    confirm = request.POST.get("confirm_new_password", "")
    errors: dict[str, str] = {}
    if not current:
        errors["current_password"] = "Current password is required."
    elif _credentials_user(username, current) != username:
        errors["current_password"] = "Current password is incorrect."
    if not new:
        errors["new_password"] = "New password is required."
    elif len(new) < PASSWORD_MIN:
        errors["new_password"] = f"New password must be at least {PASSWORD_MIN} characters."
    elif new == current:
        errors["new_password"] = "New password must differ from the current one."
    if not errors.get("new_password") and confirm != new:
        errors["confirm_new_password"] = "Passwords do not match."
    if errors:
        return _security_page(request, errors)
    records.change_password(submission_token(request), username)
    flash(request, "Password changed.")
    return redirect("/security")
