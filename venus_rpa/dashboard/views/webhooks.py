"""One inbound webhook's page: how to sign and call it (a curl example with its real URL), a
test event sent through the receiving path, and rotate / disable / enable / delete.

Everyone in the workspace may read the page; only editors and owners see and use the actions
(403 otherwise), and a trigger of another workspace is 404. The signing secret is stored
encrypted and shown once, on the page the create or rotation that made it redirects to
(Post/Redirect/Get: `secret_show_once`, with `dashboard.secret_once`), so reloading that page
makes no second webhook or rotation and shows the secret no more.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.debug import sensitive_variables
from django.views.decorators.http import require_http_methods, require_POST

from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.secret_once import not_stored, secret_keep, secret_take

# Kept in step with venus_rpa.triggers.signing (imported lazily: the app is optional).
CURL = """SECRET='{secret}'
URL='{url}'
BODY='{body}'
KEY='replace-with-your-event-id'  # the same key on every retry of one event: a retry starts no second run
TS=$(date +%s)
SIG=$(printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')
curl -sS -X POST "$URL" \\
  -H 'Content-Type: application/json' \\
  -H "X-Venus-Timestamp: $TS" \\
  -H "X-Venus-Signature: sha256=$SIG" \\
  -H "Idempotency-Key: $KEY" \\
  --data-raw "$BODY\""""
SECRET_PLACEHOLDER = "paste-the-signing-secret-here"  # noqa: S105 -- a placeholder, not a secret


@sensitive_variables("secret")
def secret_show_once(request: HttpRequest, trigger, secret: str) -> HttpResponse:
    """Redirect to the trigger's page, which shows `secret` on its next GET only. Until then it is
    kept encrypted (as the trigger's own copy) in the server-side session, never in a URL."""
    secret_keep(request, kind="webhook", pk=trigger.pk, secret=secret)
    return redirect("dashboard:webhook-detail", trigger_id=trigger.pk)


def _trigger(request: HttpRequest, trigger_id: int):
    from venus_rpa.triggers import selectors

    return selectors.webhook_trigger_get(workspace=request.access.workspace, trigger_id=trigger_id)


@sensitive_variables("secret")
def webhook_page(request: HttpRequest, trigger, *, secret: str = "", test: dict | None = None,
                 test_body: str | None = None) -> HttpResponse:
    from venus_rpa.triggers import selectors, signing

    url = request.build_absolute_uri(reverse("webhook-receive", args=[trigger.public_id]))
    sample = json.dumps(selectors.webhook_sample_body(trigger=trigger), ensure_ascii=False)
    response = render(request, "dashboard/triggers/webhook_detail.html", {
        "trigger": trigger, "url": url, "new_secret": secret, "test": test,
        "curl": CURL.format(secret=secret or SECRET_PLACEHOLDER, url=url, body=sample.replace("'", "'\\''")),
        "test_body": sample if test_body is None else test_body,
        "timestamp_header": signing.TIMESTAMP_HEADER, "signature_header": signing.SIGNATURE_HEADER,
    })
    return not_stored(response) if secret else response


@member_view()
@sensitive_variables("secret")
def webhook_detail(request: HttpRequest, trigger_id: int) -> HttpResponse:
    trigger = _trigger(request, trigger_id)
    _, secret = secret_take(request, kind="webhook", pk=trigger.pk) or (None, "")
    return webhook_page(request, trigger, secret=secret)


@member_view(write=True)
@require_POST
@sensitive_variables("secret")
def webhook_rotate(request: HttpRequest, trigger_id: int) -> HttpResponse:
    from venus_rpa.triggers import services

    trigger, secret = services.webhook_trigger_rotate_secret(trigger=_trigger(request, trigger_id))
    messages.success(request, "New signing secret made: the old one no longer works.")
    return secret_show_once(request, trigger, secret)


@member_view(write=True)
@require_POST
def webhook_toggle(request: HttpRequest, trigger_id: int) -> HttpResponse:
    from venus_rpa.triggers import services

    enabled = request.POST.get("enabled") == "1"
    trigger = services.webhook_trigger_update(trigger=_trigger(request, trigger_id), enabled=enabled)
    messages.success(request, f"Webhook {trigger.name} {'enabled' if enabled else 'disabled: its URL answers 409'}.")
    return redirect("dashboard:webhook-detail", trigger_id=trigger.pk)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def webhook_delete(request: HttpRequest, trigger_id: int) -> HttpResponse:
    """GET: the confirmation page; POST (from it, or the webhook page's "Delete webhook…"): delete, audited."""
    from venus_rpa.dashboard.views.deletes import confirm_page
    from venus_rpa.triggers import services

    trigger = _trigger(request, trigger_id)
    if request.method == "GET":
        return confirm_page(request, title=f"Delete webhook {trigger.name}?", cancel="dashboard:webhooks", points=[
            "Its URL answers 404 from now on: senders that still call it get an error.",
            f"Runs of {trigger.automation.name} it started keep their history."])
    if request.POST.get("confirm") != "delete":
        messages.error(request, "Not deleted: confirm with the Delete webhook button.")
        return redirect("dashboard:webhook-detail", trigger_id=trigger.pk)
    name = trigger.name
    services.webhook_trigger_delete(trigger=trigger, user=request.user)
    messages.success(request, f"Webhook {name} deleted; its URL now answers 404. Runs it started are kept.")
    return redirect("dashboard:webhooks")


@member_view(write=True)
@require_POST
def webhook_test(request: HttpRequest, trigger_id: int) -> HttpResponse:
    from venus_rpa.triggers import services

    trigger = _trigger(request, trigger_id)
    body = request.POST.get("body", "")
    start_run = request.POST.get("start_run") == "on"
    code, answer = services.webhook_test_send(trigger=trigger, body=body.encode(), start_run=start_run)
    run_id = answer.get("run_id") if code in (200, 202) else None
    test = {"status": code, "answer": json.dumps(answer, indent=2, ensure_ascii=False), "ok": code < 400,
            "start_run": start_run, "run_id": run_id}
    return webhook_page(request, trigger, test=test, test_body=body)


urlpatterns = [
    path("webhooks/<int:trigger_id>/", webhook_detail, name="webhook-detail"),
    path("webhooks/<int:trigger_id>/rotate/", webhook_rotate, name="webhook-rotate"),
    path("webhooks/<int:trigger_id>/toggle/", webhook_toggle, name="webhook-toggle"),
    path("webhooks/<int:trigger_id>/delete/", webhook_delete, name="webhook-delete"),
    path("webhooks/<int:trigger_id>/test/", webhook_test, name="webhook-test"),
]
