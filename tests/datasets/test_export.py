"""Trajectory export (venus_rpa.datasets) against the real database: the records' schema and
message layout, images alongside, secrets scrubbed again, filters, resume after an interruption
without duplicates, and who may export what (hostile editor, viewer, outsider, anonymous)."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from PIL import Image
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from venus_rpa.datasets import services
from venus_rpa.datasets.spec import ExportFilter
from workers.secrets import MASK

SECRET = "Zq8-very-secret-pw"
GOAL = "Sign in with {{credentials.acme.password}} and file {{title}}"
EXPORT = "/api/trajectories/export/"


def jpeg(colour=(200, 200, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 40), colour).save(out, "JPEG")
    return out.getvalue()


@pytest.fixture
def automation(personas):
    from venus_rpa.automations.services import automation_create, credential_set

    credential_set(workspace=personas.workspace, name="acme", fields={"password": SECRET}, domains=["127.0.0.1"])
    definition = {"start_url": "http://127.0.0.1:9/login", "allowed_domains": ["127.0.0.1"], "goal": "File",
                  "credentials": ["acme"], "param_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
                  "steps": [{"kind": "goto", "url": "/login"},
                            {"kind": "agent", "name": "Sign in", "goal": GOAL}]}
    return automation_create(workspace=personas.workspace, user=personas.owner, slug="agent-file", name="Agent file",
                             definition=definition)


def make_agent_run(automation, *, turns: int = 3, passed: bool = True, status: str = "succeeded", leak: str = ""):
    """A finished run: a goto, then `turns` agent turns with screenshots; `leak` is put into a
    thought, a URL and an error, as a recorder that missed a secret would have left it."""
    from venus_rpa.runs.models import Run, Step

    run = Run.objects.create(workspace=automation.workspace, automation=automation, version=automation.current_version,
                             status=status, params={"title": "Taxi"}, verdict={"passed": passed, "evidence": []})
    started = timezone.now() - timedelta(minutes=1)
    Step.objects.create(run=run, index=0, kind="goto", name="goto", status="succeeded", started_at=started,
                        action={"kind": "goto", "url": "/login"})
    for i in range(1, turns + 1):
        text = f"Click(point=({100 * i}, 200))"
        step = Step(run=run, index=i, kind="agent", name="Sign in", status="succeeded", started_at=started,
                    thought=f"Turn {i}. {leak}".strip(), url=f"http://127.0.0.1:9/p{i}?q={leak}",
                    error=leak, action={"text": text, "actions": [{"type": "Click", "point": [100 * i, 200]}]},
                    model={"prompt_sha256": "", "raw": f"Turn {i}.</think>\n<action>{text}</action>"},
                    grounding={"mapped": [{"x": 10, "y": 20, "effect": {"verdict": "ineffective", "check": "nothing_changed",
                                                                         "evidence": {}}}],
                               "effect": {"verdict": "ineffective", "check": "nothing_changed", "evidence": {}}})
        step.screenshot.save(f"r{run.pk}-{i}.jpg", ContentFile(jpeg()), save=False)
        step.save()
    return run


def read_folder(out: Path) -> list[dict]:
    return [json.loads(line) for shard in sorted((out / "data").glob("*.jsonl")) for line in shard.read_text().splitlines()]


def test_an_export_holds_one_record_per_agent_turn_in_the_ui_venus_layout_with_images(personas, automation, tmp_path):
    run = make_agent_run(automation, turns=3)
    card = services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=tmp_path)
    records = read_folder(tmp_path)
    assert [r["id"] for r in records] == [f"run-{run.pk}-step-{i}" for i in (1, 2, 3)]
    third = records[2]
    roles = [m["role"] for m in third["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    system = third["messages"][0]["content"]
    assert system.rstrip().endswith("Sign in with {{credentials.acme.password}} and file Taxi")
    assert third["messages"][2]["content"] == "<think>Turn 1.</think>\n<action>Click(point=(100, 200))</action>"
    current = third["messages"][-1]["content"]
    assert current[0]["text"].endswith("Current Screenshot:\n") and current[1]["image"] == third["images"][0]
    assert third["response"] == "<think>Turn 3.</think>\n<action>Click(point=(300, 200))</action>"
    assert third["labels"]["step_effect"]["verdict"] == "ineffective"
    assert third["labels"]["step_judge"] is None  # no step judge was asked about this turn
    assert third["labels"]["trace_verdict"]["passed"] is True and third["labels"]["run_status"] == "succeeded"
    for record in records:
        for name in record["images"]:
            with Image.open(tmp_path / name) as image:
                assert image.size == (64, 40)
    assert card["records"] == 3 and card["images"] == 3 and card["surfaces"] == {"web": 3}
    assert card["verdicts"] == {"passed": 1} and card["skipped_steps"] == 1
    assert "Runs: 1; records: 3" in (tmp_path / "README.md").read_text()


def test_text_that_reached_the_records_with_a_secret_is_scrubbed_again(personas, automation, tmp_path):
    make_agent_run(automation, turns=2, leak=SECRET)
    services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=tmp_path)
    dumped = "".join(p.read_text() for p in (tmp_path / "data").glob("*.jsonl"))
    assert SECRET not in dumped and MASK in dumped
    assert SECRET[3:12] not in dumped  # page text (URLs, errors) is scrubbed of fragments too
    assert SECRET not in (tmp_path / "dataset_card.json").read_text()


def test_an_interrupted_export_resumes_without_duplicates(personas, automation, tmp_path):
    runs = [make_agent_run(automation, turns=2) for _ in range(4)]
    full = tmp_path / "full"
    services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=full)

    class Interrupted(Exception):
        pass

    def stop_after_two(run_id: int) -> None:
        if run_id == runs[1].pk:
            raise Interrupted

    part = tmp_path / "part"
    with pytest.raises(Interrupted):
        services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=part, on_run=stop_after_two)
    assert not (part / "dataset_card.json").exists()
    # The third run was cut short mid-write: a partial shard and a stray image.
    (part / "data" / f"run-{runs[2].pk:06d}.jsonl.tmp").write_text('{"id": "partial"')
    make_agent_run(automation, turns=1)  # a run that finishes after the export began is not added on resume
    card = services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=part)
    ids = [r["id"] for r in read_folder(part)]
    assert len(ids) == len(set(ids)) == 8 and ids == [r["id"] for r in read_folder(full)]
    assert card["runs"] == 4 and card["records"] == 8
    with pytest.raises(CommandError, match="another workspace or filter"):
        call_command("export_trajectories", str(part), "--workspace", personas.workspace.slug, "--verdict", "passed")


def test_filters_select_runs_by_automation_verdict_date_and_surface(personas, automation, tmp_path):
    from venus_rpa.runs.models import Run

    passed, failed = make_agent_run(automation, passed=True), make_agent_run(automation, passed=False, status="failed")
    old = make_agent_run(automation)
    Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=30))
    make_agent_run(automation, status="running")  # not finished: never exported

    def run_ids(**spec) -> set[int]:
        out = tmp_path / json.dumps(spec, default=str).replace("/", "_")
        services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(**spec), out=out)
        return {r["run_id"] for r in read_folder(out)}

    assert run_ids() == {passed.pk, failed.pk, old.pk}
    assert run_ids(verdict="passed") == {passed.pk, old.pk}
    assert run_ids(verdict="failed") == {failed.pk}
    assert run_ids(date_from=(timezone.now() - timedelta(days=2)).date()) == {passed.pk, failed.pk}
    assert run_ids(surface="android") == set() and run_ids(automation="other") == set()
    assert run_ids(automation="agent-file", date_to=(timezone.now() - timedelta(days=20)).date()) == {old.pk}


def test_the_command_writes_a_folder_and_refuses_bad_input(personas, automation, tmp_path, capsys):
    make_agent_run(automation)
    call_command("export_trajectories", str(tmp_path / "out"), "--workspace", personas.workspace.slug)
    assert json.loads(capsys.readouterr().out)["records"] == 3
    with pytest.raises(CommandError, match="no workspace"):
        call_command("export_trajectories", str(tmp_path / "x"), "--workspace", "nope")
    with pytest.raises(CommandError, match="date_from is after date_to"):
        call_command("export_trajectories", str(tmp_path / "y"), "--workspace", personas.workspace.slug,
                     "--from", "2026-02-01", "--to", "2026-01-01")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty"):
        call_command("export_trajectories", str(tmp_path / "busy"), "--workspace", personas.workspace.slug)


def zip_of(response) -> zipfile.ZipFile:
    assert response.streaming and response["Content-Type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_api_streams_the_owners_workspace_only(personas, automation):
    from venus_rpa.automations.services import automation_create

    mine = make_agent_run(automation, turns=2)
    theirs_automation = automation_create(
        workspace=personas.other_workspace, user=personas.outsider, slug="agent-file", name="Theirs",
        definition={"start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"], "goal": "x",
                    "steps": [{"kind": "agent", "name": "Sign in", "goal": "x"}]})
    theirs = make_agent_run(theirs_automation, turns=1)

    archive = zip_of(personas.client(personas.owner).get(EXPORT))
    names = archive.namelist()
    assert f"data/run-{mine.pk:06d}.jsonl" in names and f"data/run-{theirs.pk:06d}.jsonl" not in names
    assert sum(n.startswith("images/") for n in names) == 2 and "dataset_card.json" in names
    card = json.loads(archive.read("dataset_card.json"))
    assert card["runs"] == 1 and card["workspace"] == personas.workspace.slug
    # The outsider owns another workspace: its export holds its own run only.
    outsider = zip_of(personas.client(personas.outsider).get(EXPORT))
    assert [n for n in outsider.namelist() if n.startswith("data/")] == [f"data/run-{theirs.pk:06d}.jsonl"]


def test_editors_viewers_reviewers_and_anonymous_callers_cannot_export(personas, automation):
    from tests.factories import MembershipFactory, UserFactory

    make_agent_run(automation)
    reviewer = UserFactory(username="rita")
    MembershipFactory(workspace=personas.workspace, user=reviewer, role="reviewer")
    for user in (personas.teammate, personas.viewer, reviewer):
        response = personas.client(user).get(EXPORT)
        assert "owner role" in assert_error(response, 403)["message"], user
    assert_error(APIClient().get(EXPORT), 401)
    # Bad filters are refused before anything streams (and only after the role check).
    assert "verdict" in assert_error(personas.client(personas.owner).get(EXPORT, {"verdict": "maybe"}), 400)["fields"]
    assert assert_error(personas.client(personas.owner).get(EXPORT, {"date_from": "2026-02-01",
                                                                     "date_to": "2026-01-01"}), 400)["fields"]


def test_the_dashboard_run_page_shows_the_step_evaluator_verdict(personas, automation):
    from tests.dashboard.conftest import signed_in

    run = make_agent_run(automation, turns=1)
    html = signed_in(personas.owner).get(f"/runs/{run.pk}/").content.decode()
    assert 'data-effect="ineffective"' in html and "nothing changed" in html


def test_under_asgi_the_zip_is_sent_piece_by_piece_from_an_async_iterator(personas, automation):
    from asgiref.sync import async_to_sync
    from django.test import AsyncClient

    from venus_rpa.accounts.services import api_token_create

    for _ in range(3):
        make_agent_run(automation, turns=2)
    _, raw = api_token_create(workspace=personas.workspace, user=personas.owner, name="asgi")

    async def fetch():
        response = await AsyncClient().get(EXPORT, headers={"authorization": f"Bearer {raw}"})
        assert response.status_code == 200 and response.is_async, response.content  # not buffered whole by Django
        return [part async for part in response.streaming_content]

    parts = async_to_sync(fetch)()
    assert len([p for p in parts if p]) > 3
    archive = zipfile.ZipFile(io.BytesIO(b"".join(parts)))
    assert json.loads(archive.read("dataset_card.json"))["records"] == 6


def test_history_carries_action_errors_and_the_users_answer_and_decisions_are_labels(personas, automation, tmp_path):
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run, Step

    run = make_agent_run(automation, turns=1)
    Run.objects.filter(pk=run.pk).update(question="Which report?", answer="The March one")
    Step.objects.filter(run=run, index=1).update(grounding={"mapped": [{"error": "the page did not load"}]})
    ask = {"text": "CallUser(content='Which report?')", "actions": [{"type": "CallUser", "content": "Which report?"}]}
    Step.objects.create(run=run, index=2, kind="agent", name="Sign in", status="succeeded", thought="Ask.",
                        action=ask, started_at=timezone.now())
    review = ReviewRequest.objects.create(
        workspace=run.workspace, run=run, kind="risky_action", status="rejected", title="Pay 42 €",
        comment="Not this month", expires_at=timezone.now(), proposed_action={"type": "Click", "point": [1, 2]},
        decided_by=personas.owner, decided_at=timezone.now())
    pay = {"text": "Click(point=(1, 2))", "actions": [{"type": "Click", "point": [1, 2]}]}
    Step.objects.create(run=run, index=3, kind="agent", name="Sign in", status="succeeded", thought="Pay.",
                        action=pay, started_at=timezone.now(),
                        grounding={"risk": {"level": "high", "review": {"id": review.pk, "decision": "rejected"}}})
    services.export_to_folder(workspace=personas.workspace, spec=ExportFilter(), out=tmp_path)
    records = {r["step_index"]: r for r in read_folder(tmp_path)}
    last = records[3]["messages"]
    assert last[3]["content"] == "The action Click(point=(100, 200)) failed: the page did not load"
    assert last[5]["content"][0]["text"] == "The user answered: The March one\nCurrent Screenshot:\n"
    human = records[3]["labels"]["human"]
    assert human == [{**human[0], "kind": "risky_action", "decision": "rejected", "comment": "Not this month"}]
    assert records[2]["labels"]["human"][0]["answer"] == "The March one"
    assert records[1]["labels"]["human"] == [] and len(records[1]["labels"]["run_human"]) == 2
