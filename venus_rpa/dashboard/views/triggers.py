"""Schedules, webhook triggers and outbound callbacks, through `venus_rpa.triggers`' services.

The pages exist only when the triggers app is installed (feature check); otherwise the nav
shows them as TODO and these routes are not mounted. Secrets (webhook and callback signing
keys) are shown once, on the page the create or rotate that made them redirects to
(Post/Redirect/Get, `dashboard.secret_once`): a reload makes nothing twice and shows no secret.
"""

from __future__ import annotations

from importlib.util import find_spec

from django.apps import apps
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_http_methods, require_POST

from venus_rpa.automations.selectors import automation_get, automation_list
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view, require_write
from venus_rpa.dashboard.field_errors import errors_place, json_field
from venus_rpa.dashboard.views import webhooks
from venus_rpa.dashboard.listing import listing, search_text
from venus_rpa.dashboard.secret_once import not_stored, secret_keep, secret_take


def triggers_available() -> bool:
    return apps.is_installed("venus_rpa.triggers") and find_spec("venus_rpa.triggers.services") is not None


def _automation(request: HttpRequest, slug: str, errors: dict[str, list[str]], *, optional: bool = False):
    if not slug:
        if not optional:
            errors.setdefault("automation", []).append("Choose an automation.")
        return None
    return automation_get(workspace=request.access.workspace, slug=slug)


# -- schedules -----------------------------------------------------------------------------------

def _form_errors(exc: ServiceError, form: dict) -> dict[str, list[str]]:
    """A service's field errors under the form's inputs (`errors_place`); the rest, and the
    service's message when nothing could be placed, under `non_field_errors`."""
    placed, rest = errors_place(exc.fields or {}, form)
    if rest or not placed:
        placed["non_field_errors"] = [exc.message, *rest]
    return placed


@member_view()
def schedule_index(request: HttpRequest) -> HttpResponse:
    from venus_rpa.triggers import selectors, services

    workspace = request.access.workspace
    form = {"name": "", "automation": "", "cron": "0 9 * * 1-5", "timezone": "UTC", "params": ""}
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        require_write(request)
        form = {k: request.POST.get(k, "").strip() for k in form}
        automation = _automation(request, form["automation"], errors)
        params = json_field(form["params"], "params", errors)
        if errors:  # every problem at once: the cron and time zone are judged even so
            errors.update(services.schedules.schedule_when_check(cron=form["cron"],
                                                                 timezone_name=form["timezone"] or "UTC")[1])
        else:
            try:
                schedule = services.schedule_create(
                    workspace=workspace, user=request.user, automation=automation, name=form["name"] or form["cron"],
                    cron=form["cron"], timezone_name=form["timezone"] or "UTC", params=params)
            except ServiceError as exc:
                if "name" in exc.fields and not form["name"]:  # the name it was given: the cron, in use
                    form["name"] = form["cron"]
                errors = _form_errors(exc, form)
            else:
                messages.success(request, f"Schedule {schedule.name} created.")
                return redirect("dashboard:schedules")
    listed = listing(request, selectors.schedule_list(workspace=workspace, search=search_text(request)))
    schedules = [(s, selectors.schedule_next_fire_times(schedule=s, count=3)) for s in listed.page.object_list]
    return render(request, "dashboard/triggers/schedules.html", {
        "schedules": schedules, "form": form, "errors": errors, "page": listed.page, "filters": listed.filters,
        "q": listed.q,
        "automations": automation_list(workspace=workspace, archived=False),  # an archived one gets no trigger
        "name_max": services.schedules.NAME_MAX,
    }, status=400 if errors else 200)


@member_view(write=True)
@require_POST
def schedule_toggle(request: HttpRequest, schedule_id: int) -> HttpResponse:
    from venus_rpa.triggers import selectors, services

    schedule = selectors.schedule_get(workspace=request.access.workspace, schedule_id=schedule_id)
    enabled = request.POST.get("enabled") == "1"
    try:
        services.schedule_set_enabled(schedule=schedule, enabled=enabled)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Schedule {schedule.name} {'resumed' if enabled else 'paused'}.")
    return redirect("dashboard:schedules")


# -- webhooks and callbacks ----------------------------------------------------------------------

def _webhooks_context(request: HttpRequest) -> dict:
    from venus_rpa.triggers import selectors

    workspace = request.access.workspace
    listed = listing(request, selectors.webhook_trigger_list(workspace=workspace, search=search_text(request)))
    return {
        "triggers": listed.page.object_list, "page": listed.page, "filters": listed.filters, "q": listed.q,
        "endpoints": selectors.callback_endpoint_list(workspace=workspace),
        "deliveries": selectors.callback_delivery_list(workspace=workspace).select_related("run")[:30],
        "automations": automation_list(workspace=workspace, archived=False),  # an archived one gets no trigger
        "hook_form": {"name": "", "automation": "", "param_mapping": ""},
        "callback_form": {"url": "", "automation": ""},
        "errors": {}, "public_base": request.build_absolute_uri("/").rstrip("/"),
    }


@member_view()
@sensitive_variables("held", "context")
def webhook_index(request: HttpRequest) -> HttpResponse:
    """The list; after a callback endpoint was added, its secret once (`callback_create`)."""
    context = _webhooks_context(request)
    held = secret_take(request, kind="callback")
    endpoint = next((e for e in context["endpoints"] if held and e.pk == held[0]), None)
    if endpoint is None:  # none held, or one of another workspace (switched meanwhile): not shown here
        return render(request, "dashboard/triggers/webhooks.html", context)
    context["new_secret"] = {"what": f"callback {endpoint.url}", "secret": held[1], "url": endpoint.url}
    return not_stored(render(request, "dashboard/triggers/webhooks.html", context))


@member_view(write=True)
@require_POST
@sensitive_variables("secret")
def webhook_create(request: HttpRequest) -> HttpResponse:
    from venus_rpa.triggers import services

    context = _webhooks_context(request)
    form = {k: request.POST.get(k, "").strip() for k in context["hook_form"]}
    errors: dict[str, list[str]] = {}
    automation = _automation(request, form["automation"], errors)
    mapping = json_field(form["param_mapping"], "param_mapping", errors)
    if not errors:
        try:
            trigger, secret = services.webhook_trigger_create(
                workspace=request.access.workspace, user=request.user, automation=automation,
                name=form["name"] or automation.name, param_mapping=mapping)
        except ServiceError as exc:
            errors = _form_errors(exc, form)
        else:  # its own page (Post/Redirect/Get): the secret once, with the curl example ready to paste
            messages.success(request, f"Webhook {trigger.name} created.")
            return webhooks.secret_show_once(request, trigger, secret)
    context.update(hook_form=form, errors=errors)
    return render(request, "dashboard/triggers/webhooks.html", context, status=400)


@member_view(write=True)
@require_POST
@sensitive_variables("secret")
def callback_create(request: HttpRequest) -> HttpResponse:
    from venus_rpa.triggers import services

    context = _webhooks_context(request)
    form = {k: request.POST.get(k, "").strip() for k in context["callback_form"]}
    errors: dict[str, list[str]] = {}
    automation = _automation(request, form["automation"], errors, optional=True)
    try:
        endpoint, secret = services.callback_endpoint_create(
            workspace=request.access.workspace, user=request.user, url=form["url"], automation=automation)
    except ServiceError as exc:
        errors = _form_errors(exc, form)
    else:  # Post/Redirect/Get: the list shows the secret once, and a reload adds no second endpoint
        messages.success(request, f"Callback endpoint {endpoint.url} added.")
        secret_keep(request, kind="callback", pk=endpoint.pk, secret=secret)
        return redirect("dashboard:webhooks")
    context.update(callback_form=form, errors=errors)
    return render(request, "dashboard/triggers/webhooks.html", context, status=400)


def _endpoint(request: HttpRequest, endpoint_id: int):
    from venus_rpa.triggers import selectors

    return selectors.callback_endpoint_get(workspace=request.access.workspace, endpoint_id=endpoint_id)


@member_view(write=True)
@require_POST
def callback_toggle(request: HttpRequest, endpoint_id: int) -> HttpResponse:
    """Disable (enabled=0) or enable (enabled=1) a callback endpoint; a disabled one gets no new
    deliveries, and its pending ones fail at their next attempt ("endpoint disabled")."""
    from venus_rpa.triggers import services

    enabled = request.POST.get("enabled") == "1"
    endpoint = services.callback_endpoint_update(endpoint=_endpoint(request, endpoint_id), enabled=enabled)
    messages.success(request, f"Callback endpoint {endpoint.url} {'enabled' if enabled else 'disabled'}.")
    return redirect("dashboard:webhooks")


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def callback_delete(request: HttpRequest, endpoint_id: int) -> HttpResponse:
    """GET: the confirmation page; POST from it (confirm=delete): delete the endpoint and its deliveries."""
    from venus_rpa.dashboard.views.deletes import confirm_page
    from venus_rpa.triggers import services

    endpoint = _endpoint(request, endpoint_id)
    if request.method == "GET" or request.POST.get("confirm") != "delete":
        return confirm_page(request, title=f"Delete callback endpoint {endpoint.url}?", cancel="dashboard:webhooks",
                            points=["Finished runs are no longer sent to this URL, and its delivery log is deleted.",
                                    "Its runs are kept. To stop it for a while instead, disable it."])
    url = endpoint.url
    services.callback_endpoint_delete(endpoint=endpoint)
    messages.success(request, f"Callback endpoint {url} deleted.")
    return redirect("dashboard:webhooks")


@member_view(write=True)
@require_POST
def delivery_resend(request: HttpRequest, delivery_id: int) -> HttpResponse:
    from venus_rpa.triggers import selectors, services

    delivery = selectors.callback_delivery_get(workspace=request.access.workspace, delivery_id=delivery_id)
    try:
        services.callback_delivery_resend(delivery=delivery)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Re-sending the callback for run {delivery.run_id}.")
    return redirect("dashboard:webhooks")


urlpatterns = [
    path("schedules/", schedule_index, name="schedules"),
    path("schedules/<int:schedule_id>/toggle/", schedule_toggle, name="schedule-toggle"),
    path("webhooks/", webhook_index, name="webhooks"),
    path("webhooks/new/", webhook_create, name="webhook-create"),
    path("webhooks/callbacks/new/", callback_create, name="callback-create"),
    path("webhooks/callbacks/<int:endpoint_id>/toggle/", callback_toggle, name="callback-toggle"),
    path("webhooks/callbacks/<int:endpoint_id>/delete/", callback_delete, name="callback-delete"),
    path("webhooks/deliveries/<int:delivery_id>/resend/", delivery_resend, name="delivery-resend"),
    *webhooks.urlpatterns,
] if triggers_available() else []
