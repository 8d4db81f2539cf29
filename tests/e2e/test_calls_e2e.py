"""Sub-automations end to end: a real Celery worker, Chromium and the practice site. One shared
sign-in automation is called by two automations: one files the demo expense after it, the other
reads a price and hands it to a second called automation (a look-up taking a parameter), which
types it. The trace shows the called steps nested under each call, named by what was called.
A risky step of a called automation is reviewed under the caller's safety settings (the called
one's pre-approval does not count), the review says where it is, and the run, parked without a
worker, resumes inside the call on the version it started with though the called automation was
edited meanwhile."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_durable_waits import durable_queue, one_thread, pending, rita, wait_parked  # noqa: F401
from venus_rpa.core.demo import demo_expense_definition

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


def create(demo, slug: str, definition: dict):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=demo["workspace"], user=None, slug=slug, name=slug, definition=definition)


def finished(automation, params: dict | None = None):
    from venus_rpa.runs.services import run_start

    run = run_start(automation=automation, params=params or {})
    return wait_for_run(run.pk, statuses=TERMINAL, timeout=120)


def test_a_shared_sign_in_called_by_two_automations(one_thread, demo, practice_url):
    tag = uuid.uuid4().hex[:6]
    expense = demo_expense_definition(practice_url)
    sign_in = create(demo, f"sign-in-{tag}", {
        "start_url": practice_url + "/expenses/new", "allowed_domains": ["127.0.0.1"],
        "steps": expense["steps"][:4]})  # username, password, Sign in, wait for the form
    create(demo, f"look-up-{tag}", {
        "start_url": practice_url + "/lab/lookup", "allowed_domains": ["127.0.0.1"],
        "param_schema": {"type": "object", "properties": {"account": {"type": "string"}}, "required": ["account"]},
        "steps": [{"kind": "fill", "name": "Account number", "target": "Account number", "value": "{{account}}"},
                  {"kind": "click", "target": {"role": "button", "name": "Look up"}},
                  {"kind": "wait_for", "text": "Looked up"},
                  {"kind": "extract", "name": "Read the answer", "target": {"css": "h1"}, "into": "answer"}]})
    filer = create(demo, f"file-{tag}", {
        **expense, "start_url": "",
        "steps": [{"kind": "call", "name": "Sign in the usual way", "automation": sign_in.slug},
                  *expense["steps"][4:]]})
    reader = create(demo, f"read-{tag}", {
        "start_url": practice_url + "/lab/extract", "allowed_domains": ["127.0.0.1"],
        "safety": {"pre_approved": [["AUTH", "sign in"]]},
        "steps": [{"kind": "call", "automation": sign_in.slug},
                  {"kind": "goto", "url": "/lab/extract"},
                  {"kind": "extract", "name": "Read the price", "target": {"css": "#price"}, "into": "price",
                   "pattern": r"[0-9.]+"},
                  {"kind": "call", "automation": f"look-up-{tag}", "params": {"account": "P-{{steps.price.value}}"}},
                  {"kind": "assert", "text": "Looked up"}]})

    filed = finished(filer, {"title": f"Taxi {tag}"})
    assert filed.status == "succeeded", filed.status_reason
    assert filed.output["reference"].startswith("EXP-")
    (call,) = filed.steps.filter(kind="call")
    assert call.name == f"Sign in the usual way: call sign-in-{tag} v1: its steps run here"
    called = list(filed.steps.filter(called_in=f"sign-in-{tag} v1").order_by("index"))
    assert [s.name for s in called] == [f"Open the start URL of sign-in-{tag}", "Type the username",
                                        "Type the password", "Sign in", "Wait for the expense form"]
    assert all(s.status == "succeeded" and s.index > call.index for s in called)
    assert not filed.steps.filter(name="Submit the report").exclude(called_in="").exists()  # its own steps

    read = finished(reader)
    assert read.status == "succeeded", read.status_reason
    assert "P-12.50" in httpx.get(practice_url + "/api/lookups").json()
    assert read.output["price"] == "12.50" and read.output["answer"]  # the look-up's value, returned
    typed = read.steps.get(name="Account number")
    assert typed.called_in == f"look-up-{tag} v1" and typed.action["value"] == "P-12.50"
    assert read.call_versions and set(read.call_versions) == {"steps.0", "steps.3"}


def test_a_called_step_is_reviewed_by_the_callers_rules_and_resumes_on_its_version(one_thread, demo, practice_url,
                                                                                   rita):
    from venus_rpa.automations.services import automation_update
    from venus_rpa.runs.services import run_start

    tag = uuid.uuid4().hex[:6]
    expense = demo_expense_definition(practice_url)
    create(demo, f"sign-in-{tag}", {"start_url": practice_url + "/expenses/new", "allowed_domains": ["127.0.0.1"],
                                    "steps": expense["steps"][:4]})
    note = create(demo, f"note-{tag}", {
        "start_url": practice_url + "/messages/new", "allowed_domains": ["127.0.0.1"],
        "safety": {"pre_approved": [["SEND", "send"]]},  # its own pre-approval: not used when it is called
        "param_schema": {"type": "object", "properties": {"subject": {"type": "string"}}, "required": ["subject"]},
        "steps": [{"kind": "fill", "target": "To", "value": "grace@example.com"},
                  {"kind": "fill", "target": "Subject", "value": "{{subject}}"},
                  {"kind": "fill", "target": "Body", "value": "Hello"},
                  {"kind": "click", "name": "Send", "target": {"role": "button", "name": "Send"}},
                  {"kind": "wait_for", "text": "Message sent"}]})
    sender = create(demo, f"send-{tag}", {
        "start_url": "", "allowed_domains": ["127.0.0.1"], "safety": {"pre_approved": [["AUTH", "sign in"]]},
        "steps": [{"kind": "call", "automation": f"sign-in-{tag}"},
                  {"kind": "call", "automation": f"note-{tag}", "params": {"subject": f"Note {tag}"}}]})
    run = wait_parked(run_start(automation=sender, params={}))
    review = pending(run, "risky_action")
    assert review.title.startswith(f"in note-{tag} v1: Click the button 'Send'"), review.title
    automation_update(automation=note, user=None, definition={"steps": [{"kind": "goto", "url": "/messages"}]})
    assert rita.post(f"/api/reviews/{review.pk}/approve/", {}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    sent = httpx.get(practice_url + "/api/messages").json()["sent"]
    assert [m["subject"] for m in sent].count(f"Note {tag}") == 1  # sent once, on the version it started with
    send = run.steps.get(name="Send")
    assert send.called_in == f"note-{tag} v1" and send.grounding["risk"]["review"]["decision"] == "approve"
