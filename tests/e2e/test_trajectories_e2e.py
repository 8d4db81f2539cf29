"""Issue 16 end to end: a real worker runs an agent automation in Chromium against the practice
site with the model test double; the step evaluator flags the click that did nothing (a decoy
"Preview" button), and the run exported through the API reads back as a valid dataset: the
records' messages are what the model was sent, images are present, and no secret is in the
text or in the pixels (the password field is masked in the exported screenshot)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_agent_end_to_end import click, create_agent_automation
from tests.e2e.test_runs_end_to_end import api_client
from tests.helpers.fake_model import venus
from tests.helpers.layout import effects_layout
from tests.security.test_secrets import masked

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
USER = "{{credentials.practice-login.username}}"
PASSWORD = "{{credentials.practice-login.password}}"
SECRET = "demo-password"  # the practice-login credential's password (seed_demo)


@pytest.fixture(scope="module")
def places(practice_url):
    points, password_box = effects_layout(practice_url)
    return {"points": points, "password_box": password_box}


def normalised(messages: list[dict]) -> list[tuple[str, str, int]]:
    """(role, text, images) per message: what the model saw, images counted, not compared."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            out.append((m["role"], content, 0))
        else:
            text = "".join(p.get("text", "") for p in content if p["type"] == "text")
            out.append((m["role"], text, sum(p["type"] in ("image", "image_url") for p in content)))
    return out


def test_a_click_that_did_nothing_is_flagged_and_the_run_exports_as_a_clean_dataset(worker, demo, fake_model,
                                                                                   places, practice_url):
    from venus_rpa.runs.services import run_start

    p = places["points"]
    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "name": "Sign in", "goal": f"Sign in as {USER} with the password {PASSWORD}.", "max_actions": 10},
        {"kind": "goto", "url": "/lab/effects"},
        {"kind": "agent", "name": "Preview", "goal": "Preview the report, then save a draft.", "max_actions": 10},
    ], slug="agent-effects")
    fake_model.script(
        venus("Focus the username field.", click(p["Username"])),
        venus("Type the user name.", f"Type(content='{USER}')"),
        venus("Now the password field.", click(p["Password"])),
        venus("Type the password.", f"Type(content='{PASSWORD}')"),
        venus("Submit the form.", click(p["Sign in"])),
        venus("Signed in.", "Finished(content='signed in')"),
        venus("Press Preview.", click(p["Preview"])),
        venus("Now save a draft.", click(p["Save draft"])),
        venus("Done.", "Finished(content='done')"),
    )
    run = wait_for_run(run_start(automation=automation, params={}).pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    turns = {s.thought: s for s in run.steps.filter(kind="agent")}

    # The step evaluator: the decoy did nothing; the sign-in click navigated; the draft was saved.
    assert turns["Press Preview."].grounding["effect"]["verdict"] == "ineffective"
    assert turns["Press Preview."].grounding["effect"]["check"] == "nothing_changed"
    assert turns["Submit the form."].grounding["effect"]["check"] == "navigation"
    assert turns["Now save a draft."].grounding["effect"]["verdict"] == "effective"
    typed = turns["Type the password."].grounding["effect"]
    assert typed["verdict"] == "effective" and typed["evidence"] == {"matches": True, "secret": True}

    response = api_client(demo["workspace"]).get("/api/trajectories/export/", {"automation": "agent-effects"})
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    records = [json.loads(line) for name in archive.namelist() if name.startswith("data/")
               for line in archive.read(name).decode().splitlines()]
    assert len(records) == 9 and {r["run_id"] for r in records} == {run.pk}
    for record in records:  # schema: every field present, every image in the archive
        assert set(record) >= {"schema", "id", "messages", "response", "thought", "action_text", "actions", "images",
                               "labels", "prompt", "surface"}
        assert record["prompt"]["matches"] is True
        assert all(name in archive.namelist() for name in record["images"])
    # The records' messages are what the model was sent (text and image count, turn by turn).
    for record, sent in zip(sorted(records, key=lambda r: r["step_index"]), fake_model.requests):
        assert normalised(record["messages"]) == normalised(sent["messages"]), record["id"]
    by_thought = {r["thought"]: r for r in records}
    assert by_thought["Press Preview."]["labels"]["step_effect"]["verdict"] == "ineffective"
    assert by_thought["Done."]["labels"]["trace_verdict"] == run.verdict

    text = "".join(archive.read(n).decode() for n in archive.namelist() if not n.startswith("images/"))
    assert SECRET not in text and PASSWORD in text  # placeholders stay, values never
    shot = archive.read(by_thought["Submit the form."]["images"][0])  # the form with both fields typed
    assert masked(shot, places["password_box"])
    card = json.loads(archive.read("dataset_card.json"))
    assert card["records"] == 9 and card["step_effects"]["ineffective"] == 1 and card["filter"]["automation"] == "agent-effects"
