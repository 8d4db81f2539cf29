"""Automations: list, editor (create/edit), versions with diffs, and the run launcher."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.selectors import audit_list
from venus_rpa.automations.checks import slug_problem, slug_propose
from venus_rpa.automations.models import Automation, Surface
from venus_rpa.automations.selectors import (automation_get, automation_list, credential_list,
                                            site_letter_case_list)
from venus_rpa.automations.services import automation_create, automation_update, definition_validate
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard import editor, step_lines
from venus_rpa.dashboard.access import member_view, require_write
from venus_rpa.dashboard.automation_form import AutomationEditor
from venus_rpa.dashboard.diff import version_diff, version_lowerings
from venus_rpa.dashboard.listing import listing, search_text
from venus_rpa.dashboard.launcher import (FileField, attach_errors, files_errors, input_file_mib, items_limits,
                                         launcher_fields, launcher_files, launcher_items, launcher_params)
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.runs.services import run_start, version_spec
from workers import flow as F


@member_view()
def automation_index(request: HttpRequest) -> HttpResponse:
    last = Run.objects.filter(automation=OuterRef("pk")).order_by("-created_at", "-id")
    archived = request.GET.get("show") == "archived"
    automations = automation_list(workspace=request.access.workspace, archived=archived,
                                  search=search_text(request)).annotate(
        last_run_id=Subquery(last.values("pk")[:1]), last_run_status=Subquery(last.values("status")[:1]),
        last_run_at=Subquery(last.values("created_at")[:1]),
    )
    listed = listing(request, automations)
    return render(request, "dashboard/automations/list.html", {
        "automations": listed.page.object_list, "page": listed.page, "filters": listed.filters, "q": listed.q,
        "archived": archived, "archived_keep": [("show", "archived")],
        "archived_count": automation_list(workspace=request.access.workspace, archived=True).count()})


def _editor_context(request: HttpRequest, form: AutomationEditor, automation: Automation | None) -> dict:
    readonly = not request.access.can_write or bool(automation and automation.is_archived)
    return {
        "form": form, "automation": automation,
        "steps_html": step_lines.rows_html(form.steps, readonly, surface=form.definition.get("surface") or "web"),
        "param_types": editor.PARAM_TYPES, "solvers": editor.SOLVERS, "judge_rules": editor.JUDGE_RULES,
        "credentials": credential_list(workspace=request.access.workspace), "readonly": readonly,
        # What a `call` step may run: the workspace's other automations, not archived (a datalist).
        "callable": automation_list(workspace=request.access.workspace, archived=False).exclude(
            pk=getattr(automation, "pk", None)).values("slug", "name")[:500],
        "letter_cases": site_letter_case_list(automation=automation) if automation else [],
    }


def _check_all(request: HttpRequest, form: AutomationEditor) -> None:
    """With the form's own errors (bad JSON, untyped defaults) the save is not tried; still ask
    the validator about the rest, so every problem shows at once. Only then: after a tried save,
    the service has said it all already (asked again, each of its errors would show twice)."""
    try:
        definition_validate(workspace=request.access.workspace, definition=form.definition, slug=form.slug or "")
    except ServiceError as exc:
        form.add_errors(exc.fields)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def automation_new(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "dashboard/automations/editor.html", _editor_context(request, AutomationEditor.blank(), None))
    form = AutomationEditor.from_post(request.POST)
    typed_slug = form.slug  # "": made from the name, and a clash is said at the name (automation_create)
    form.slug = form.slug or slug_propose(form.name)
    if problem := slug_problem(form.slug):
        form.errors.setdefault("slug", []).append(problem)
    if not form.name:
        form.errors.setdefault("name", []).append("A name is required.")
    if form.has_errors:
        _check_all(request, form)
    else:
        try:
            automation = automation_create(workspace=request.access.workspace, user=request.user, slug=typed_slug,
                                           name=form.name, description=form.description,
                                           definition=form.definition, change_note=form.change_note,
                                           replay_cache=form.replay_cache is not False)
        except ServiceError as exc:
            form.add_errors(exc.fields or {"definition": [exc.message]})
        else:
            messages.success(request, f"Created {automation.name} (version 1).")
            return redirect("dashboard:automation-edit", slug=automation.slug)
    return render(request, "dashboard/automations/editor.html", _editor_context(request, form, None), status=400)


@member_view()
@require_http_methods(["GET", "POST"])
def automation_edit(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    if request.method == "GET":
        form = AutomationEditor.from_version(automation, automation.current_version)
        return render(request, "dashboard/automations/editor.html", _editor_context(request, form, automation))
    require_write(request)
    form = AutomationEditor.from_post(request.POST)
    form.slug = automation.slug
    if not form.name:
        form.errors.setdefault("name", []).append("A name is required.")
    if form.has_errors:
        _check_all(request, form)
    else:
        before = automation.current_version_id
        try:
            automation = automation_update(automation=automation, user=request.user, name=form.name,
                                           description=form.description, definition=form.definition,
                                           change_note=form.change_note, replay_cache=form.replay_cache,
                                           base_version=form.base_version, base_revision=form.base_revision)
        except ServiceError as exc:
            form.add_service_error(exc)
        else:
            if automation.current_version_id != before:
                messages.success(request, f"Saved as version {automation.current_version.number}.")
            else:
                messages.info(request, "Saved. The definition did not change, so there is no new version.")
            return redirect("dashboard:automation-edit", slug=automation.slug)
    return render(request, "dashboard/automations/editor.html", _editor_context(request, form, automation),
                  status=409 if form.conflict else 400)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def step_row(request: HttpRequest) -> HttpResponse:
    """A step row for the editor: GET a fresh one (htmx appends it to the list); POST a closed
    row's line (`step` and its packed fields) to get it back open, with the same uid and values.
    `surface`: the automation's, as the page's Surface box says (Android rows show a resource id)."""
    surface = request.GET.get("surface") or request.POST.get("surface") or "web"
    if request.method == "POST":
        uid = request.POST.get("step", "")
        row = step_lines.open_row(uid, request.POST.get(f"s-{uid}-packed", ""))
    else:
        kind = request.GET.get("kind", "click")
        row = editor.StepRow(uid=editor.new_uid(), kind=kind if kind in editor.STEP_KINDS else "click")
    return render(request, "dashboard/automations/_step_row.html",
                  {"row": row, **step_lines.ROW_CONTEXT, "surface": surface if surface in Surface.values else "web"})


@member_view(write=True)
def param_row(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/automations/_param_row.html",
                  {"row": editor.ParamRow(uid=editor.new_uid()), "param_types": editor.PARAM_TYPES})


@member_view(write=True)
@require_POST
def param_schema_mode(request: HttpRequest) -> HttpResponse:
    """Switch the parameter editor between the table and raw JSON, carrying over what is typed."""
    form = AutomationEditor.from_post(request.POST)
    schema = form.definition["param_schema"]
    target = request.POST.get("to", "json")
    if form.errors:  # bad JSON or values: stay where the user is, with the message
        target = form.param_mode
    elif target == "table" and editor.param_rows_from_schema(schema) is None:
        form.errors["param_schema"] = ["This schema uses types the table cannot show; keep editing it as JSON."]
        target = "json"
    if not form.errors:
        form.set_param_schema(schema, mode=target)
    return render(request, "dashboard/automations/_param_schema.html",
                  {"form": form, "param_types": editor.PARAM_TYPES})


@member_view()
def automation_versions(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    versions = list(automation.versions.select_related("created_by").order_by("-number"))
    by_number = {v.number: v for v in versions}
    try:
        new = by_number.get(int(request.GET.get("b", "")))
        old = by_number.get(int(request.GET.get("a", "")))
    except ValueError:
        new = old = None
    new = new or (versions[0] if versions else None)
    old = old or (by_number.get(new.number - 1) if new else None)
    diff = version_diff(old, new) if old and new else []
    lowered = version_lowerings(old, new) if old and new else []
    history = list(audit_list(workspace=request.access.workspace, automation=automation)[:50])
    events = [e for e in history if e.action == AuditAction.SAFETY_LOWERED]
    return render(request, "dashboard/automations/versions.html",
                  {"automation": automation, "versions": versions, "old": old, "new": new, "diff": diff,
                   "lowered": lowered, "audit_events": events,
                   "activity": [e for e in history if e.action != AuditAction.SAFETY_LOWERED],
                   "can_restore": request.access.can_write and not automation.is_archived,
                   "lowered_numbers": {e.version_number for e in events}})


@member_view()
@require_http_methods(["GET", "POST"])
def automation_launch(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    version = automation.current_version
    schema = version.param_schema if version else {}
    fields, errors = launcher_fields(schema), []
    steps = version_spec(version=version).steps if version is not None else []
    takes_items = F.for_each_block(steps) is not None
    input_files = [FileField(name) for name in F.input_files(steps)]
    if request.method == "POST":
        require_write(request)
        try:
            params = launcher_params(schema, request.POST)
            run = run_start(automation=automation, params=params, user=request.user, trigger=Trigger.DASHBOARD,
                            items=launcher_items(request) if takes_items else None, files=launcher_files(request))
        except ServiceError as exc:
            posted = {f.name: request.POST.get(f"param_{f.name}") == "on" if f.input == "checkbox"
                      else request.POST.get(f"param_{f.name}", "") for f in fields}
            fields = launcher_fields(schema, posted)
            rest = files_errors(input_files, exc.fields)
            errors = [exc.message, *attach_errors(fields, rest)]
        else:
            return redirect("dashboard:run-detail", run_id=run.pk)
    return render(request, "dashboard/automations/launch.html",
                  {"automation": automation, "version": version, "fields": fields, "errors": errors,
                   "takes_items": takes_items, "items_limits": items_limits(), "items_json": request.POST.get("items_json", ""),
                   "input_files": input_files, "input_file_mib": input_file_mib()},
                  status=400 if errors else 200)

