"""The two-step expense report form, the submitted-expense page and the list."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from practice.store import expenses
from practice.validation import CATEGORIES, clean_confirmation, clean_details
from practice.views.auth import login_required

DRAFT_KEY = "draft"


@login_required
def details_view(request: HttpRequest) -> HttpResponse:
    """Step 1: title, amount, date, category; a valid post is kept in the session draft."""
    errors: dict[str, str] = {}
    if request.method == "POST":
        values, errors = clean_details(request.POST)
        if not errors:
            request.session[DRAFT_KEY] = values
            return redirect("/expenses/new/confirm")
    else:
        # Coming back from step 2 ("Back") shows the values entered before.
        values = request.session.get(DRAFT_KEY) or {}
    context = {
        "values": values,
        "errors": errors,
        "categories": CATEGORIES,
        "today": dt.date.today().isoformat(),
    }
    return render(request, "practice/expense_details.html", context)


@login_required
def confirm_view(request: HttpRequest) -> HttpResponse:
    """Step 2: receipt, notes, confirmation; a valid post creates the expense."""
    draft = request.session.get(DRAFT_KEY)
    if not draft:
        return redirect("/expenses/new")
    values: dict[str, str] = {"notes": ""}
    errors: dict[str, str] = {}
    confirmed = False
    if request.method == "POST":
        receipt = request.FILES.get("receipt")
        values, errors = clean_confirmation(request.POST, receipt, settings.RECEIPT_MAX_BYTES)
        confirmed = bool(request.POST.get("confirm"))
        if not errors and receipt is not None:
            # Only the name and size matter to the demo; the upload itself is discarded.
            expense = expenses.add(
                title=draft["title"],
                amount=draft["amount"],
                date=draft["date"],
                category=draft["category"],
                receipt_name=receipt.name or "",
                receipt_size=receipt.size or 0,
                notes=values["notes"],
                submitted_by=request.session["user"],
                submitted_at=timezone.now().isoformat(timespec="seconds"),
            )
            del request.session[DRAFT_KEY]
            return redirect(f"/expenses/{expense.reference}")
    context = {"draft": draft, "values": values, "errors": errors, "confirmed": confirmed}
    return render(request, "practice/expense_confirm.html", context)


@login_required
def detail_view(request: HttpRequest, reference: str) -> HttpResponse:
    """Show one submitted expense."""
    expense = expenses.get(reference)
    if expense is None:
        raise Http404("No such expense.")
    return render(request, "practice/expense_detail.html", {"expense": expense})


@login_required
def list_view(request: HttpRequest) -> HttpResponse:
    """Table of every submitted expense."""
    return render(request, "practice/expense_list.html", {"expenses": expenses.all()})
