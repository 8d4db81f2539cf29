"""Values between steps and blocks end to end: a real Celery worker, Chromium and the practice site.
An extracted value typed into a later form; an `if` skipped because its text is there, the else
branch run; a paginated list read to the end with `repeat until` (and its cap respected); a risky
step inside a loop parked for review twice and resumed each time in the right iteration."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_durable_waits import durable_queue, one_thread, pending, rita, wait_parked  # noqa: F401

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
NEXT = {"role": "link", "name": "Next"}


def create(demo, practice_url: str, path: str, steps: list[dict], **extra):
    from venus_rpa.automations.services import automation_create

    slug = f"blocks-{uuid.uuid4().hex[:8]}"
    return automation_create(workspace=demo["workspace"], user=None, slug=slug, name=slug, definition={
        "start_url": practice_url + path, "allowed_domains": ["127.0.0.1"], "steps": steps, **extra})


def finished(automation, params: dict | None = None):
    from venus_rpa.runs.services import run_start

    run = run_start(automation=automation, params=params or {})
    return wait_for_run(run.pk, statuses=TERMINAL, timeout=120)


def lookups(practice_url: str) -> list[str]:
    return httpx.get(practice_url + "/api/lookups").json()


def look_up(value: str) -> list[dict]:
    return [{"kind": "goto", "url": "/lab/lookup"},
            {"kind": "fill", "name": "Account number", "target": "Account number", "value": value},
            {"kind": "click", "target": {"role": "button", "name": "Look up"}},
            {"kind": "wait_for", "text": "Looked up"}]


def flow_records(run, kind: str) -> list:
    return list(run.steps.filter(kind=kind).order_by("index"))


def test_an_extracted_value_is_typed_into_a_later_form(one_thread, demo, practice_url):
    automation = create(demo, practice_url, "/lab/extract", [
        {"kind": "extract", "name": "Read the price", "target": {"css": "#price"}, "into": "price",
         "pattern": r"[0-9.]+"},
        *look_up("P-{{steps.price.value}}-{{ref}}"),
    ], param_schema={"type": "object", "properties": {"ref": {"type": "string"}}})
    run = finished(automation, {"ref": "A1"})
    assert run.status == "succeeded", run.status_reason
    assert run.output == {"price": "12.50"}
    assert "P-12.50-A1" in lookups(practice_url)
    typed = run.steps.get(name="Account number")
    assert typed.action["value"] == "P-12.50-A1"  # the trace shows the value used


def test_an_agent_steps_finished_content_is_a_value_a_condition_compares(one_thread, demo, practice_url, fake_model):
    from tests.helpers.fake_model import venus

    tag = uuid.uuid4().hex[:6]
    fake_model.script(venus("The product card shows a blue mug.", f"Finished(content='MUG-{tag}')"))
    automation = create(demo, practice_url, "/lab/extract", [
        {"kind": "agent", "goal": "Read the product's code", "into": "code", "max_actions": 3},
        {"kind": "if", "condition": {"value": "code", "op": "contains", "to": "MUG"},
         "steps": look_up("{{steps.code.value}}"), "else": look_up("NO-CODE")},
    ])
    run = finished(automation)
    assert run.status == "succeeded", run.status_reason
    assert run.output["code"] == f"MUG-{tag}" and f"MUG-{tag}" in lookups(practice_url)
    (decision,) = flow_records(run, "if")
    assert decision.grounding["flow"] == {"branch": "then", "holds": True, "value": f"MUG-{tag}"}
    assert [s.kind for s in run.steps.filter(status="skipped")] == ["goto", "fill", "click", "wait_for"]


def test_an_if_is_skipped_when_its_text_is_there_and_the_else_branch_runs(one_thread, demo, practice_url):
    tag = uuid.uuid4().hex[:6]
    automation = create(demo, practice_url, "/lab/extract", [
        {"kind": "if", "name": "Mug gone", "condition": {"text_visible": "Blue mug", "negate": True},
         "steps": look_up(f"THEN-{tag}"), "else": look_up(f"ELSE-{tag}")},
    ])
    run = finished(automation)
    assert run.status == "succeeded", run.status_reason
    assert f"ELSE-{tag}" in lookups(practice_url) and f"THEN-{tag}" not in lookups(practice_url)
    (decision,) = flow_records(run, "if")
    assert decision.grounding["flow"]["branch"] == "else" and decision.grounding["flow"]["holds"] is False
    assert "ran the else branch" in decision.name
    skipped = list(run.steps.filter(status="skipped").order_by("index"))
    assert [s.kind for s in skipped] == ["goto", "fill", "click", "wait_for"]
    assert all(s.index > decision.index for s in skipped)
    assert skipped[0].error == "skipped: the condition (not (text 'Blue mug' is visible)) did not hold"
    indexes = list(run.steps.order_by("index").values_list("index", flat=True))
    assert indexes == list(range(len(indexes)))


def paginated(demo, practice_url, **repeat) -> object:
    read = {"kind": "extract", "name": "Read the page", "target": {"css": "li.invoice"}, "all": True,
            "into": "invoices"}
    return create(demo, practice_url, "/lab/records", [
        read,
        {"kind": "repeat", "name": "Every page", "until": {"element": NEXT, "negate": True},
         "steps": [{"kind": "click", "name": "Next page", "target": NEXT},
                   {"kind": "wait_for", "text": "Page"},
                   {**read, "append": True}], **repeat},
    ])


def test_a_paginated_list_is_read_to_the_end_with_repeat_until(one_thread, demo, practice_url):
    run = finished(paginated(demo, practice_url, max_iterations=5))
    assert run.status == "succeeded", run.status_reason
    assert run.output["invoices"] == [f"INV-{n:03d}" for n in range(1, 13)]
    names = [r.name for r in flow_records(run, "repeat")]
    assert [n.split(": ", 1)[1] for n in names] == [
        "repeat until not (link 'Next' is present): iteration 1 of at most 5",
        "repeat until not (link 'Next' is present): iteration 2 of at most 5",
        "repeat until not (link 'Next' is present): done after 2 iteration(s)"]


def test_a_repeat_stops_at_its_cap(one_thread, demo, practice_url):
    stopped = finished(paginated(demo, practice_url, max_iterations=1, on_cap="stop"))
    assert stopped.status == "succeeded", stopped.status_reason
    assert stopped.output["invoices"] == [f"INV-{n:03d}" for n in range(1, 11)]  # pages 1 and 2 only
    assert flow_records(stopped, "repeat")[-1].grounding["flow"]["cap_reached"] is True

    failed = finished(paginated(demo, practice_url, max_iterations=1))  # on_cap "fail" by default
    assert failed.status == "failed"
    assert "cap of 1 iteration(s) reached" in failed.status_reason


def test_a_risky_step_inside_a_loop_parks_and_resumes_in_the_right_iteration(one_thread, demo, practice_url, rita):
    from venus_rpa.core.demo import PRACTICE_CREDENTIAL

    login = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    automation = create(demo, practice_url, "/login", [
        {"kind": "fill", "target": "Username", "value": login % "username"},
        {"kind": "fill", "target": "Password", "value": login % "password"},
        {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
        {"kind": "wait_for", "url_contains": "/expenses/new"},
        {"kind": "goto", "url": "/messages"},
        {"kind": "repeat", "name": "Two notes", "until": {"text_visible": "Sent (2)"}, "max_iterations": 3, "steps": [
            {"kind": "goto", "url": "/messages/new"},
            {"kind": "fill", "target": "To", "value": "grace@example.com"},
            {"kind": "fill", "target": "Subject", "value": "Loop note"},
            {"kind": "fill", "target": "Body", "value": "Hello"},
            {"kind": "click", "name": "Send", "target": {"role": "button", "name": "Send"}},
            {"kind": "wait_for", "text": "Message sent"}]},
    ])
    from venus_rpa.runs.services import run_start

    run = wait_parked(run_start(automation=automation, params={}))
    first = pending(run, "risky_action")
    assert run.steps.filter(kind="repeat").count() == 1  # parked inside iteration 1
    assert rita.post(f"/api/reviews/{first.pk}/approve/", {}, format="json").status_code == 200
    second = pending(run, "risky_action", exclude=(first.pk,), timeout=90)
    run = wait_parked(run)  # parked again, inside iteration 2
    assert [r.grounding["flow"]["iteration"] for r in flow_records(run, "repeat")] == [1, 2]
    assert len(httpx.get(practice_url + "/api/messages").json()["sent"]) == 1
    assert rita.post(f"/api/reviews/{second.pk}/approve/", {}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    assert len(httpx.get(practice_url + "/api/messages").json()["sent"]) == 2  # not one more, not one less
    last = flow_records(run, "repeat")[-1]
    assert last.name.endswith("done after 2 iteration(s)") and last.grounding["flow"]["iteration"] == 2
    sends = run.steps.filter(name="Send").order_by("index")
    assert [s.grounding["risk"]["review"]["decision"] for s in sends] == ["approve", "approve"]
    indexes = list(run.steps.order_by("index").values_list("index", flat=True))
    assert indexes == list(range(len(indexes)))
