"""Agent steps end to end: real worker, Chromium and practice site; the model is the test double
answering in the UI-Venus-2 format with points measured on the real page layout."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import api_client
from tests.helpers.fake_model import Reply, venus
from tests.helpers.layout import practice_layout

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
USER = "{{credentials.practice-login.username}}"
PASSWORD = "{{credentials.practice-login.password}}"


@pytest.fixture(scope="module")
def layout(practice_url):
    return practice_layout(practice_url)


def create_agent_automation(workspace, practice_url: str, steps: list[dict], slug: str = "agent-expense"):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_expense_definition

    definition = demo_expense_definition(practice_url)
    definition["steps"] = steps
    definition["success_criteria"] = {}
    definition["output_schema"] = {}
    return automation_create(workspace=workspace, user=None, slug=slug, name=slug, definition=definition)


def click(point) -> str:
    return f"Click(point=({point[0]}, {point[1]}))"


def test_an_agent_step_signs_in_and_fills_the_expense_form(worker, demo, fake_model, layout, practice_url):
    from venus_rpa.runs.services import run_start

    goal = (f"Sign in as {USER} with the password {PASSWORD}. Then fill page 1 of the new expense report: "
            "title {{title}}, amount {{amount}}, date {{date}}, category {{category}}, and press Next.")
    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "name": "Sign in and fill page 1", "goal": goal, "into": "summary", "max_actions": 20},
        {"kind": "upload", "target": "Receipt", "filename": "receipt.txt", "content": "taxi"},
        {"kind": "check", "target": "I confirm this expense is accurate"},
        {"kind": "click", "target": {"role": "button", "name": "Submit expense"}},
        {"kind": "wait_for", "text": "Expense submitted"},
    ])
    fake_model.script(
        venus("The sign-in form is open. Focus the username field.", click(layout["Username"])),
        venus("Type the user name.", f"Type(content='{USER}')"),
        venus("Now the password field.", click(layout["Password"]), inline=False),  # reasoning_content variant
        venus("Type the password.", f"Type(content='{PASSWORD}')"),
        venus("Submit the form.", click(layout["Sign in"])),
        venus("The expense form is open. Fill the title.", f"{click(layout['Title'])},Type(content='Airport taxi')"),
        venus("Amount next.", f"{click(layout['Amount'])},Type(content='64.00')"),
        venus("The date.", f"{click(layout['Date'])},Type(content='2026-11-28')"),
        venus("Open the category select.", click(layout["Category"])),
        venus("Travel is option 1.", "SelectOption(index=1)"),
        venus("Go to the next page.", click(layout["Next"])),
        venus("Page 1 is filed; the receipt page is open.", "Finished(content='Page 1 filed')"),
    )
    run = run_start(automation=automation, params={"title": "Airport taxi", "amount": "64.00", "category": "Travel"})
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=120)
    if run.status != "succeeded":
        open("/tmp/agent_steps.txt", "w").write("\n".join(
            str((s.index, s.url, s.action.get("text"), s.grounding, s.error)) for s in run.steps.all()))
    assert run.status == "succeeded", run.status_reason
    assert run.output["summary"] == "Page 1 filed"

    filed = [e for e in httpx.get(practice_url + "/api/expenses").json() if e["title"] == "Airport taxi"]
    assert len(filed) == 1 and filed[0]["amount"] == "64.00" and filed[0]["date"] == "2026-11-28"
    assert filed[0]["category"] == "Travel"

    agent_steps = list(run.steps.filter(kind="agent").order_by("index"))
    assert len(agent_steps) == 12
    first = agent_steps[0]
    assert first.thought == "The sign-in form is open. Focus the username field."
    assert first.action["actions"][0] == {"type": "Click", "point": list(layout["Username"])}
    mapped = first.grounding["mapped"][0]
    assert abs(mapped["x"] - layout["Username"][0] * 1.28) <= 1 and abs(mapped["y"] - layout["Username"][1] * 0.8) <= 1
    assert agent_steps[2].thought == "Now the password field."
    assert first.model["prompt_sha256"] and first.model["calls"][0]["prompt_tokens"]
    assert all(step.screenshot for step in agent_steps)

    # The secret never reached the model; only its placeholder did. History stays within 3 images.
    sent = json.dumps(fake_model.requests)
    assert "demo-password" not in sent and PASSWORD in sent
    last = fake_model.requests[-1]["messages"]
    images = sum(1 for m in last if isinstance(m["content"], list) for part in m["content"] if part["type"] == "image_url")
    assert images == 3
    assert last[0]["role"] == "system" and "Airport taxi" in last[0]["content"]
    assert [m["role"] for m in last[1:]] == ["user", "assistant"] * 11 + ["user"]


def test_a_malformed_answer_is_reasked_and_the_run_recovers(worker, demo, fake_model, practice_url):
    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "Check that the sign-in page is shown"}], slug="agent-reask")
    fake_model.script(
        Reply(content="I would click the button somewhere, I guess."),
        venus("The sign-in page is shown.", "Finished(content='yes')"),
    )
    run = wait_for_run(run_start(automation=automation, params={"title": "x", "amount": "1", "category": "Other"}).pk,
                       statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason
    assert run.output["result"] == "yes"
    step = run.steps.get(kind="agent")
    assert step.model["reasked"]["raw"] == "I would click the button somewhere, I guess."
    retry_text = json.dumps(fake_model.requests[1]["messages"][-1])
    assert "could not be used" in retry_text


def test_an_unparsable_answer_twice_fails_the_step_and_keeps_the_raw_answer(worker, demo, fake_model, practice_url):
    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "Do something"}], slug="agent-garbage")
    fake_model.script(Reply(content="<action>Click(point=(1,2))</action><action>Wait()</action>"),
                      Reply(content="nonsense"))
    run = wait_for_run(run_start(automation=automation, params={"title": "x", "amount": "1", "category": "Other"}).pk,
                       statuses=TERMINAL, timeout=60)
    assert run.status == "failed"
    assert "could not be parsed twice" in run.status_reason
    step = run.steps.get(kind="agent")
    assert step.status == "failed" and step.model["raw"] == "nonsense"


def test_call_user_waits_for_an_answer_and_resumes(worker, demo, fake_model, practice_url):
    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "File an expense; ask which category if unsure", "into": "category"}],
        slug="agent-ask")

    def after_answer(body: dict) -> Reply:
        text = json.dumps(body["messages"][-1])
        assert "The user answered: Meals" in text, text
        return venus("The user wants Meals.", "Finished(content='Meals')")

    fake_model.script(venus("I do not know the category.", "CallUser(content='Which category should I use?')"),
                      after_answer)
    run = run_start(automation=automation, params={"title": "x", "amount": "1", "category": "Other"})
    run = wait_for_run(run.pk, statuses={"awaiting_user"} | TERMINAL, timeout=60)
    assert run.status == "awaiting_user"
    client = api_client(demo["workspace"])
    detail = client.get(f"/api/runs/{run.pk}/").json()
    assert detail["question"] == "Which category should I use?"
    response = client.post(f"/api/runs/{run.pk}/answer/", {"answer": "Meals"}, format="json")
    assert response.status_code == 200, response.content
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=30)
    assert run.status == "succeeded", run.status_reason
    assert run.output == {"category": "Meals"}
    assert client.post(f"/api/runs/{run.pk}/answer/", {"answer": "again"}, format="json").status_code == 409


def test_a_stuck_agent_is_stopped_by_the_loop_detector(worker, demo, fake_model, practice_url, layout):
    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "Click around", "repeat_limit": 3}], slug="agent-stuck")
    fake_model.default = venus("Click the title again.", click(layout["Username"]))
    run = wait_for_run(run_start(automation=automation, params={"title": "x", "amount": "1", "category": "Other"}).pk,
                       statuses=TERMINAL, timeout=60)
    assert run.status == "failed"
    assert "repeated" in run.status_reason and "3 times" in run.status_reason


def test_model_down_fails_the_run_with_a_clear_message(worker, demo, fake_model, practice_url):
    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "Sign in"}], slug="agent-down")
    fake_model.default = Reply(status=503)
    run = wait_for_run(run_start(automation=automation, params={"title": "x", "amount": "1", "category": "Other"}).pk,
                       statuses=TERMINAL, timeout=60)
    assert run.status == "failed"
    assert f"model server unavailable at {fake_model.url} after 2 tries" in run.status_reason
