"""Issue 16 end to end: a real worker files the demo expense in Chromium, then two judge models (the
UI-Venus test double as "ui-venus" and as "strict", over HTTP) vote on the stored trace. Agreeing
judges leave the run as the criteria decided; a split vote is surfaced as "needs a look" on the run,
in the runs list and its filter, and in the API. An editor can only name judges the platform offers."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import judges_config, wait_for_run
from tests.e2e.test_runs_end_to_end import api_client
from tests.helpers.fake_model import Reply

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
PARAMS = {"title": "Taxi", "amount": "30", "category": "Travel"}


@pytest.fixture
def judged(settings, model_server, demo):
    """The test process offers the judges the worker has (names are checked at save)."""
    from venus_rpa.automations.services import automation_update
    from venus_rpa.accounts.models import Membership

    settings.VENUS_MODEL_URL, settings.VENUS_MODEL = model_server.url, model_server.model
    settings.VENUS_JUDGES = judges_config(model_server)
    automation = demo["automation"]
    owner = Membership.objects.filter(workspace=demo["workspace"], role="owner").first().user
    criteria = {**automation.current_version.success_criteria, "judges": ["ui-venus", "strict"], "judge_rule": "majority"}
    return automation_update(automation=automation, user=owner, definition={"success_criteria": criteria}, change_note="judges")


def by_rule(body: dict) -> Reply:
    """Votes by a rule it can check on the trace: pass when the output line names an expense id (EXP-…)."""
    text = "".join(p.get("text", "") for m in body["messages"] if isinstance(m["content"], list) for p in m["content"])
    output = text.split("\nOutput: ", 1)[-1].split("\n", 1)[0]
    ok = "EXP-" in output
    return Reply(content=f"Verdict: {'pass' if ok else 'fail'}\nReason: the output {'names' if ok else 'lacks'} an expense id")


def test_agreeing_judges_confirm_the_run_and_see_its_screenshots_without_secrets(worker, judged, fake_model):
    from venus_rpa.runs.services import run_start

    fake_model.default = by_rule
    run = wait_for_run(run_start(automation=judged, params=PARAMS).pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    judges = run.verdict["judges"]
    assert [(v["judge"], v["vote"]) for v in judges["votes"]] == [("ui-venus", "pass"), ("strict", "pass")]
    assert judges["outcome"] == "pass" and run.verdict["needs_a_look"] is False and "look_reason" not in run.verdict
    asked = fake_model.requests
    assert len(asked) == 2
    content = asked[0]["messages"][1]["content"]
    assert sum(p["type"] == "image_url" for p in content) >= 1  # key screenshots go with the trace
    text = content[0]["text"]
    assert "EXP-" in text and "Expense submitted" in text and "demo-password" not in str(asked)


def test_a_split_vote_needs_a_look_on_the_run_page_the_list_and_the_api(worker, judged, fake_model, client):
    from django.contrib.auth import get_user_model

    from venus_rpa.runs.services import run_start

    fake_model.script(Reply(content="Verdict: pass\nReason: the id is on screen"),
                      Reply(content="Verdict: fail\nReason: the amount on the final screen is not 30"))
    run = wait_for_run(run_start(automation=judged, params=PARAMS).pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason  # the criteria decide the status; the split is surfaced
    assert run.verdict["needs_a_look"] is True
    assert run.verdict["look_reason"].startswith("the judges disagree:")
    assert sorted(v["vote"] for v in run.verdict["judges"]["votes"]) == ["fail", "pass"]

    client.force_login(get_user_model().objects.get(username="demo"))
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert "needs a look" in page and "the amount on the final screen is not 30" in page
    listed = client.get("/runs/?look=1").content.decode()
    assert f"#{run.pk}<" in listed and "needs a look" in listed
    api = api_client(judged.workspace)
    ids = [r["id"] for r in api.get("/api/runs/", {"needs_a_look": "true"}).json()["results"]]
    assert run.pk in ids
    assert run.pk not in [r["id"] for r in api.get("/api/runs/", {"needs_a_look": "false"}).json()["results"]]


def test_an_editor_can_only_name_judges_the_platform_offers(judged):
    from venus_rpa.accounts.models import Membership
    from venus_rpa.automations.services import automation_update
    from venus_rpa.core.errors import InvalidInput

    owner = Membership.objects.filter(workspace=judged.workspace, role="owner").first().user
    criteria = {**judged.current_version.success_criteria, "judges": ["http://10.0.0.1/v1"]}
    with pytest.raises(InvalidInput) as bad:
        automation_update(automation=judged, user=owner, definition={"success_criteria": criteria})
    assert "never a URL" in str(bad.value.fields)
    criteria = {**judged.current_version.success_criteria, "judges": ["someone-else"]}
    with pytest.raises(InvalidInput) as unknown:
        automation_update(automation=judged, user=owner, definition={"success_criteria": criteria})
    assert "Unknown judge(s): someone-else. Judges this platform offers: strict, ui-venus." in str(unknown.value.fields)


def test_the_editor_offers_the_platforms_judges_and_keeps_the_choice(judged, client):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    client.force_login(get_user_model().objects.get(username="demo"))
    page = client.get(reverse("dashboard:automation-edit", args=[judged.slug])).content.decode()
    assert 'name="judges" value="strict" checked' in page and 'name="judges" value="ui-venus" checked' in page
    assert '<option value="majority" selected>' in page
