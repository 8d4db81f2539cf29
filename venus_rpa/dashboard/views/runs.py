"""Runs: the filtered list, the live run page and its fragments, cancel, answer, trace bundle."""

from __future__ import annotations

from datetime import date

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_vary_headers
from django.urls import reverse
from django.views.decorators.http import require_POST

from venus_rpa.automations.selectors import automation_list
from venus_rpa.core.errors import ServiceError
from venus_rpa.core.streaming import streamed
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import RUN_STATUS_WORDS, TRIGGER_WORDS, listing, search_text
from venus_rpa.dashboard.trace import trace_zip
from venus_rpa.reviews.models import ReviewStatus
from venus_rpa.runs.items import RETRYABLE_ITEMS, run_items_list, run_items_summary
from venus_rpa.runs.models import Run, RunStatus, Trigger
from venus_rpa.runs.selectors import run_get, run_list, step_list
from venus_rpa.runs.reruns import rerun_label
from venus_rpa.runs.services import run_answer, run_cancel
from venus_rpa.runs.stats import runs_with_reason

def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def runs_filtered(request: HttpRequest):
    """The runs the list's search box and filters select (also what a bulk action returns to)."""
    query = request.GET
    status = query.get("status") if query.get("status") in RunStatus.values else None
    trigger = query.get("trigger") if query.get("trigger") in Trigger.values else None
    runs = run_list(workspace=request.access.workspace, status=status, trigger=trigger,
                    automation_slug=query.get("automation") or None, search=search_text(request))
    since, until = _date(query.get("since")), _date(query.get("until"))
    if since:
        runs = runs.filter(created_at__date__gte=since)
    if until:
        runs = runs.filter(created_at__date__lte=until)
    reason = query.get("reason", "").replace("\x00", "")
    if reason or "reason" in query:  # a failure-reason group of the automation overview (runs.stats)
        runs = runs_with_reason(runs, reason)
    look = query.get("look") == "1"
    if look:  # the judges or the criteria disagree (issue 16): a person should look
        runs = runs.filter(verdict__needs_a_look=True)
    current = {"q": search_text(request), "status": status or "", "trigger": trigger or "", "look": "1" if look else "",
               "automation": query.get("automation", ""), "since": since.isoformat() if since else "",
               "until": until.isoformat() if until else "", "reason": reason if "reason" in query else None}
    return runs, current


def run_index_context(request: HttpRequest) -> dict:
    runs, current = runs_filtered(request)
    listed = listing(request, runs)
    return {
        "page": listed.page, "filters": listed.filters, "current": current,
        "statuses": RUN_STATUS_WORDS.items(), "triggers": TRIGGER_WORDS.items(),
        "automations": automation_list(workspace=request.access.workspace),
        "can_write": request.access.can_write,
    }


@member_view()
def run_index(request: HttpRequest) -> HttpResponse:
    # The live feed (dashboard.js) re-reads only the table, with the page's own filters and page.
    template = "dashboard/runs/_live.html" if request.htmx.target == "runs-live" else "dashboard/runs/list.html"
    response = render(request, template, run_index_context(request))
    patch_vary_headers(response, ("HX-Request", "HX-Target"))  # a cached fragment is never shown as the page
    return response


def _run_context(request: HttpRequest, run: Run) -> dict:
    pending = run.review_requests.filter(status=ReviewStatus.PENDING).order_by("created_at")
    return {"run": run, "pending_reviews": pending, "can_write": request.access.can_write,
            "retries": run.retries.order_by("-id")[:10], "rerun_label": rerun_label(run)}


def _items_context(run: Run) -> dict:
    """The run's items table (runs.items), when it has items."""
    listed = list(run_items_list(run=run).select_related("retry_of__run"))
    if not listed:
        return {"items": []}
    summary = run_items_summary(run=run)
    retryable = run.is_terminal and any(i.status in RETRYABLE_ITEMS and getattr(i, "retry", None) is None
                                        for i in listed)
    return {"items": listed, "items_summary": summary, "items_retryable": retryable, "item_columns": run.item_columns}


@member_view()
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    steps = list(step_list(run=run))
    return render(request, "dashboard/runs/detail.html",
                  {**_run_context(request, run), **_items_context(run), "steps": steps,
                   "last_index": steps[-1].index if steps else -1})


@member_view()
def run_items_fragment(request: HttpRequest, run_id: int) -> HttpResponse:
    """The items table of the live page (re-fetched on item events); opened directly, the run's page."""
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    if not request.htmx:
        return redirect("dashboard:run-detail", run_id=run.pk)
    return render(request, "dashboard/runs/_items.html", {**_run_context(request, run), **_items_context(run)})


@member_view()
def run_summary(request: HttpRequest, run_id: int) -> HttpResponse:
    """The status/verdict/question panel of the live page (re-fetched on status events)."""
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    return render(request, "dashboard/runs/_summary.html", _run_context(request, run))


@member_view()
def run_steps(request: HttpRequest, run_id: int) -> HttpResponse:
    """Step rows after `?after=<index>` (the live page appends them as events arrive); opened
    directly, the run's page."""
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    if not request.htmx:
        return redirect("dashboard:run-detail", run_id=run.pk)
    try:
        after = int(request.GET.get("after", -1))
    except ValueError:
        after = -1
    return render(request, "dashboard/runs/_steps.html", {"run": run, "steps": step_list(run=run, after_index=after)})


@member_view()
def run_step(request: HttpRequest, run_id: int, index: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    step = get_object_or_404(run.steps, index=index)
    if not request.htmx:  # a link to one step opens the run's page at that step, not a bare fragment
        return redirect(reverse("dashboard:run-detail", kwargs={"run_id": run.pk}) + f"#step-{step.index}")
    return render(request, "dashboard/runs/_steps.html", {"run": run, "steps": [step]})


def _summary_or_redirect(request: HttpRequest, run: Run, error: str = "") -> HttpResponse:
    if request.htmx:
        context = {**_run_context(request, run), "error": error}
        return render(request, "dashboard/runs/_summary.html", context, status=400 if error else 200)
    if error:
        from django.contrib import messages

        messages.error(request, error)
    return redirect("dashboard:run-detail", run_id=run.pk)


@member_view(write=True)
@require_POST
def run_cancel_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    try:
        run = run_cancel(run=run, user=request.user)
    except ServiceError as exc:
        return _summary_or_redirect(request, run, exc.message)
    return _summary_or_redirect(request, run)


@member_view(write=True)
@require_POST
def run_answer_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    try:
        run = run_answer(run=run, answer=request.POST.get("answer", "")[:5000])
    except ServiceError as exc:
        return _summary_or_redirect(request, run, exc.message)
    return _summary_or_redirect(request, run)


@member_view()
def run_trace(request: HttpRequest, run_id: int) -> StreamingHttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    chunks = trace_zip(run)
    response = StreamingHttpResponse(streamed(request, chunks), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-trace.zip"'
    return response
