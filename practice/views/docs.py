"""Documents: a private drive with "Share" (consequential, SHARE) and "Download" (benign).

The "Share" button on a document only opens the share form; the "Share" button of that
form grants access and records one share per accepted submission.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from practice.catalog import DOCUMENTS, PERMISSIONS, Document, document
from practice.records import Share, records
from practice.validation import EMAIL_PATTERN
from practice.views.auth import login_required
from practice.views.common import flash, new_submission_token, pop_flash, submission_token, user


def _document(doc_id: int) -> Document:
    doc = document(doc_id)
    if doc is None:
        raise Http404("No such document.")
    return doc


@login_required
def list_view(request: HttpRequest) -> HttpResponse:
    """``/docs``: the documents and how many people each is shared with."""
    rows = [{"doc": d, "shares": len(records.shares(d.id))} for d in DOCUMENTS]
    return render(request, "practice/docs/list.html", {"rows": rows})


@login_required
def detail_view(request: HttpRequest, doc_id: int) -> HttpResponse:
    """``/docs/<id>``: the document, who has access, "Share" and "Download"."""
    doc = _document(doc_id)
    context = {"doc": doc, "shares": records.shares(doc.id), "flash": pop_flash(request), "permissions": PERMISSIONS}
    return render(request, "practice/docs/detail.html", context)


@login_required
@require_GET
def download_view(request: HttpRequest, doc_id: int) -> HttpResponse:
    """``/docs/<id>/download``: the document as a text file (benign; nothing leaves the site)."""
    doc = _document(doc_id)
    response = HttpResponse(doc.body + "\n", content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{doc.filename}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def share_view(request: HttpRequest, doc_id: int) -> HttpResponse:
    """``/docs/<id>/share``: Email, Permission (Can view / Can edit) and "Share"."""
    doc = _document(doc_id)
    values = {"email": "", "permission": "view"}
    errors: dict[str, str] = {}
    if request.method == "POST":
        token = submission_token(request)
        if isinstance(records.previous(token), Share):
            return redirect(f"/docs/{doc.id}")
        values = {"email": request.POST.get("email", "").strip(), "permission": request.POST.get("permission", "")}
        if not values["email"]:
            errors["email"] = "Email is required."
        elif not EMAIL_PATTERN.match(values["email"]) or len(values["email"]) > 254:
            errors["email"] = "Enter a valid email address."
        if values["permission"] not in PERMISSIONS:
            errors["permission"] = "Choose a permission."
        if not errors:
            share, _ = records.share(
                token, document_id=doc.id, document_title=doc.title, email=values["email"],
                permission=values["permission"], shared_by=user(request),
            )
            flash(request, f"Shared “{doc.title}” with {share.email} ({PERMISSIONS[share.permission]}).")
            return redirect(f"/docs/{doc.id}")
    context = {
        "doc": doc, "values": values, "errors": errors, "permissions": PERMISSIONS,
        "shares": records.shares(doc.id), "token": new_submission_token(),
    }
    return render(request, "practice/docs/share.html", context)
