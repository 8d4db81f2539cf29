"""The review queue: pending CAPTCHA / risky-action / call-user items, refreshed by polling (and at
once when one arrives), and the Decided list, which the live feed re-reads on every decision.

CAPTCHA answers (typed text or clicks in screenshot pixels) go through `review_respond`.
Risky-action decisions go through `reviews.services.review_decide` once the safety review flow
adds it; until then those buttons render disabled.
"""

from __future__ import annotations

import hashlib

from django.db.models import F, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from venus_rpa.runs.models import RunStatus
from venus_rpa.runs.selectors import run_list
from django.views.decorators.http import require_POST

from venus_rpa.core.errors import ServiceError
from venus_rpa.core.parsers import json_loads_bounded
from venus_rpa.dashboard import review_edit
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import listing, search_text
from venus_rpa.reviews import services as review_services
from venus_rpa.reviews.bulk import review_outside_policy
from venus_rpa.reviews.models import DECIDED_WORDS, ReviewKind, ReviewStatus
from venus_rpa.reviews.selectors import review_get, review_list

DECISIONS = ("approve", "reject", "edit")


def decisions_available() -> bool:
    """Whether the safety review flow's service exists yet (feature check, not a version pin)."""
    return callable(getattr(review_services, "review_decide", None))


def _pending(request: HttpRequest):
    return _with_batches(request, list(review_list(workspace=request.access.workspace, status=ReviewStatus.PENDING)
                                       .order_by("created_at", "id")))


def _questions(request: HttpRequest):
    """Runs whose agent asked a person something (CallUser) and wait for the answer."""
    return list(run_list(workspace=request.access.workspace, status=RunStatus.AWAITING_USER)
                .exclude(question="").order_by("question_asked_at", "id"))


def _signature(reviews, questions=()) -> str:
    keys = [f"r{r.pk}" for r in reviews] + [f"q{q.pk}" for q in questions]
    return hashlib.sha1(",".join(keys).encode(), usedforsecurity=False).hexdigest()[:12]


def _queue_context(request: HttpRequest) -> dict:
    reviews, questions = _pending(request), _questions(request)
    return {"reviews": reviews, "questions": questions, "sig": _signature(reviews, questions),
            "can_review": request.access.can_review, "can_answer": request.access.can_write,
            "can_decide": request.access.role in review_services.DECIDE_ROLES,
            "decisions_available": decisions_available()}


def _decided_context(request: HttpRequest) -> dict:
    """The Decided list: searched, filtered by outcome, newest decision first, 10 a page."""
    status = request.GET.get("status") if request.GET.get("status") in DECIDED_WORDS else None
    decided = review_list(workspace=request.access.workspace, status=status).exclude(status=ReviewStatus.PENDING)
    for word in search_text(request).split()[:5]:
        decided = decided.filter(Q(title__icontains=word) | Q(run__automation__name__icontains=word)
                                 | Q(comment__icontains=word))
    listed = listing(request, decided.order_by(F("decided_at").desc(nulls_last=True), "-id"), per_page=10)
    return {"recent": listed.page.object_list, "page": listed.page, "filters": listed.filters, "q": listed.q,
            "status": status or "", "statuses": DECIDED_WORDS.items(), "words": DECIDED_WORDS}


@member_view()
def review_index(request: HttpRequest) -> HttpResponse:
    # The live feed (dashboard.js) re-reads only the Decided list, with the page's own search and page.
    if request.htmx.target == "decided-live":
        response = render(request, "dashboard/reviews/_decided.html", _decided_context(request))
    else:
        response = render(request, "dashboard/reviews/list.html", {**_queue_context(request),
                                                                    **_decided_context(request)})
    patch_vary_headers(response, ("HX-Request", "HX-Target"))  # a cached fragment is never shown as the page
    return response


@member_view()
def review_queue(request: HttpRequest) -> HttpResponse:
    """The pending list for the 2 s poll; 204 (htmx keeps the page as it is) when nothing changed,
    so an answer being typed is not wiped."""
    context = _queue_context(request)
    if request.GET.get("sig") == context["sig"]:
        return HttpResponse(status=204)
    return render(request, "dashboard/reviews/_queue.html", context)


def _item(request: HttpRequest, review, error: str = "", status: int = 200) -> HttpResponse:
    return render(request, "dashboard/reviews/_item.html",
                  {"review": review, "error": error, "can_review": request.access.can_review,
                   "can_decide": request.access.role in review_services.DECIDE_ROLES,
                   "decisions_available": decisions_available()}, status=status)


def _with_batches(request: HttpRequest, reviews: list) -> list:
    """Set `run_pending` and `run_within` on each review: how many risky actions of its run wait,
    and how many of them "Approve all for this run" would approve (`review_outside_policy`)."""
    counts: dict[int, list[int]] = {}
    if request.access.role in review_services.DECIDE_ROLES:
        run_ids = {r.run_id for r in reviews if r.kind == ReviewKind.RISKY_ACTION}
        pending = review_list(workspace=request.access.workspace, status=ReviewStatus.PENDING).filter(
            run_id__in=run_ids, kind=ReviewKind.RISKY_ACTION).select_related("run__version")
        for other in pending:
            count = counts.setdefault(other.run_id, [0, 0])
            count[0] += 1
            count[1] += not review_outside_policy(other)
    for review in reviews:
        review.run_pending, review.run_within = counts.get(review.run_id, (0, 0))
        review.run_outside = review.run_pending - review.run_within
    return reviews


@member_view()
def review_detail(request: HttpRequest, review_id: int) -> HttpResponse:
    """One review on its own page: where a notification's link leads (decided in one more click)."""
    review = _with_batches(request, [review_get(workspace=request.access.workspace, review_id=review_id)])[0]
    return render(request, "dashboard/reviews/detail.html", {
        "review": review, "can_review": request.access.can_review, "decisions_available": decisions_available(),
        "can_decide": request.access.role in review_services.DECIDE_ROLES})


def _captcha_response(request: HttpRequest) -> dict:
    text = request.POST.get("text", "").strip()
    if text:
        return {"text": text[:500]}
    try:
        clicks = json_loads_bounded(request.POST.get("clicks") or "[]")
    except ValueError:
        clicks = None
    return {"clicks": clicks}


@member_view(review=True)
@require_POST
def review_respond_view(request: HttpRequest, review_id: int) -> HttpResponse:
    review = review_get(workspace=request.access.workspace, review_id=review_id)
    try:
        review = review_services.review_respond(review=review, user=request.user, response=_captcha_response(request))
    except ServiceError as exc:
        messages = [m for msgs in exc.fields.values() for m in msgs]
        return _item(request, review, " ".join([exc.message, *messages]), status=400)
    return _item(request, review)


@member_view(review=True)
@require_POST
def review_decide_view(request: HttpRequest, review_id: int) -> HttpResponse:
    review = review_get(workspace=request.access.workspace, review_id=review_id)
    decision = request.POST.get("decision", "")
    if review.kind != ReviewKind.RISKY_ACTION or decision not in DECISIONS:
        return _item(request, review, "Only risky actions are approved, rejected or edited.", status=400)
    if not decisions_available():
        return _item(request, review, "Safety review decisions are not available yet.", status=409)
    edited = None
    if decision == "edit":  # the form's fields, or the whole action as JSON when that box was changed
        text = request.POST.get("edited_action") or ""
        try:
            if review_edit.json_changed(review.detail or {}, text) or not review_edit.edit_inputs(review.detail or {}):
                edited = json_loads_bounded(text)
            else:
                edited = review_edit.edited_from_form(review.detail or {}, request.POST)
        except review_edit.EditInvalid as exc:
            return _item(request, review, str(exc), status=400)
        except ValueError:
            return _item(request, review, "The edited action must be JSON.", status=400)
    try:
        review = review_services.review_decide(review=review, user=request.user, decision=decision,
                                               comment=request.POST.get("comment", "").strip(),
                                               edited_action=edited)
    except ServiceError as exc:
        return _item(request, review, exc.message, status=403 if exc.status == 403 else 400)
    return _item(request, review)
