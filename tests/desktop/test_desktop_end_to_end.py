"""The desktop surface end to end: run_start -> a real Celery worker on the `desktop` queue ->
leased Xvfb displays -> real Debian applications (gnumeric, mousepad, pcmanfm). The model is the
UI-Venus test double, answering with points measured on the real screen it is sent."""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.desktop.conftest import SEED
from tests.e2e.conftest import wait_for_run
from tests.helpers.fake_model import FakeModel, venus
from tests.helpers.worker import celery_worker
from workers import ocr

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


@pytest.fixture(scope="module")
def desktop_model():
    with FakeModel() as fake:
        yield fake


@pytest.fixture(scope="module")
def desktop_worker(django_db_setup, django_db_blocker, displays, desktop_model, tmp_path_factory):
    """One real worker consuming only the `desktop` queue (and its machine's own), one run at a
    time; a run waiting for a person more than 2 s is parked."""
    log = tmp_path_factory.mktemp("desktop-worker") / "worker.log"
    env = {"VENUS_MODEL_URL": desktop_model.url, "VENUS_MODEL": desktop_model.model, "VENUS_MODEL_TIMEOUT": "30",
           "VENUS_DESKTOP_SEED_DIR": str(SEED), "VENUS_DESKTOP_ACQUIRE_TIMEOUT_SECONDS": "20",
           "VENUS_REVIEW_HOLD_SECONDS": "2"}
    with celery_worker(queues="desktop", name="desktop", extra_env=env, log_path=log, concurrency=1) as proc:
        yield proc
    print(f"desktop worker log: {log}")


@pytest.fixture
def pool(transactional_db, displays, desktop_model):
    """The test displays registered in the (committed) display pool, and a workspace."""
    from tests.factories import WorkspaceFactory
    from venus_rpa.pools.displays import display_register

    desktop_model.clear()
    for display in displays:
        display_register(display=display)
    return WorkspaceFactory(name="Desk")


def automation(workspace, slug: str, **definition):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=workspace, user=None, slug=slug, name=slug,
                             definition={"surface": "desktop", **definition})


def cells(content: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".gnumeric") as f:
        f.write(content)
        f.flush()
        return subprocess.run(["ssconvert", "--export-type=Gnumeric_stf:stf_csv", f.name, "fd://1"],
                              capture_output=True, text=True, timeout=60).stdout


EXPENSES = {
    "start_url": "app:gnumeric/expenses.gnumeric",
    "param_schema": {"type": "object", "properties": {"item": {"type": "string"}, "amount": {"type": "string"}},
                     "required": ["item", "amount"]},
    "steps": [
        {"kind": "fill", "name": "Item", "target": {"role": "cell", "name": "A3"}, "value": "{{item}}"},
        {"kind": "fill", "name": "Amount", "target": {"role": "cell", "name": "B3"}, "value": "{{amount}}"},
        {"kind": "press", "name": "Save", "key": "ctrl+s"},
        {"kind": "wait_for", "url_contains": "app://gnumeric/expenses.gnumeric", "timeout_s": 20},
    ],
}


def test_an_explicit_automation_fills_the_spreadsheet_and_its_saved_file_is_the_runs_artifact(desktop_worker, pool):
    from rest_framework.test import APIClient

    from venus_rpa.runs.services import run_start

    run = run_start(automation=automation(pool, "expenses", **EXPENSES), params={"item": "Taxi 出租车", "amount": "42.5"})
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=150)
    assert run.status == "succeeded", run.status_reason
    [artifact] = run.artifacts.all()
    assert artifact.name == "expenses.gnumeric"
    assert '"Taxi 出租车",42.5' in cells(artifact.file.read())
    steps = list(run.steps.order_by("index"))
    assert [s.kind for s in steps] == ["goto", "fill", "fill", "press", "wait_for"]
    assert steps[1].grounding == {"strategy": "cell", "cell": "A3", "risk": steps[1].grounding["risk"]}
    assert all(s.screenshot for s in steps) and steps[0].url.startswith("app://gnumeric/")

    from venus_rpa.accounts.services import api_token_create
    from tests.factories import UserFactory
    from venus_rpa.accounts.models import Membership

    user = UserFactory(username="dora")
    Membership.objects.create(workspace=pool, user=user, role="viewer")
    _, raw = api_token_create(workspace=pool, user=user, name="t")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    detail = api.get(f"/api/runs/{run.pk}/").json()
    assert [(a["name"], a["kind"]) for a in detail["artifacts"]] == [("expenses.gnumeric", "file")]
    assert api.get(detail["artifacts"][0]["url"]).status_code == 200


def _screen(body: dict) -> bytes:
    """The current screenshot the agent sent (the last image of the last user turn)."""
    last = [m for m in body["messages"] if m["role"] == "user"][-1]
    url = [p["image_url"]["url"] for p in last["content"] if p["type"] == "image_url"][-1]
    return base64.b64decode(url.split(",", 1)[1])


def _box_below(text: str, dy: int):
    """A script step: click `dy` pixels below `text` as OCR finds it on the screenshot sent."""
    def answer(body: dict):
        image = _screen(body)
        [box, *_] = ocr.find_text(image, text)
        x, y = box.center
        from PIL import Image
        import io

        width, height = Image.open(io.BytesIO(image)).size
        return venus(f"The editor is open; click into its text area below '{text}'.",
                     f"Click(box=({x * 999 // width}, {(y + dy) * 999 // height}))")
    return answer


def test_an_agent_step_writes_and_saves_a_note_in_the_text_editor(desktop_worker, pool, desktop_model):
    from venus_rpa.runs.services import run_start

    desktop_model.script(
        _box_below("File", 200),
        venus("Type the note.", "Type(content='Grüße aus 北京\\nsecond line')"),
        venus("Save it.", "Hotkey(keys=['ctrl', 's'])"),
        venus("The Save As dialog asks for a name.", "Type(content='note.txt\\n')"),
        venus("The note is saved.", "Finished(content='saved note.txt')"),
    )
    run = run_start(automation=automation(pool, "note", start_url="app:mousepad", steps=[
        {"kind": "agent", "name": "Write the note", "goal": "Write the note and save it as note.txt", "max_actions": 8},
    ], success_criteria={"text_visible": "note.txt"}), params={})
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=150)
    assert run.status == "succeeded", run.status_reason
    [artifact] = run.artifacts.all()
    assert (artifact.name, artifact.file.read().decode()) == ("note.txt", "Grüße aus 北京\nsecond line")
    agent = list(run.steps.filter(kind="agent").order_by("index"))
    assert agent[0].action["actions"][0]["type"] == "Click" and agent[0].grounding["mapped"][0]["x"] > 0
    assert agent[0].grounding["viewport"] == {"width": 1280, "height": 800}
    assert run.output["result"] == "saved note.txt"
    system = desktop_model.requests[0]["messages"][0]["content"]
    assert "box=" in json.dumps(system)  # the desktop action space was prompted


TIDY = [
    {"kind": "wait_for", "text": "report.txt", "timeout_s": 30},
    {"kind": "click", "target": "report.txt"},
    {"kind": "press", "key": "shift+F10"},
    {"kind": "click", "name": "Delete the report", "target": {"role": "menuitem", "name": "Delete"}},
]


def _parked_on_review(run_id: int, timeout: float = 150.0):
    """Wait until the run waits for a review and has been parked (continuation stored, worker let
    go); returns the run, its review and the display lease kept for it."""
    from venus_rpa.pools.models import Lease
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run, RunContinuation

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        assert run.status not in TERMINAL, run.status_reason
        review = ReviewRequest.objects.filter(run=run, status="pending").first()
        lease = Lease.objects.filter(run=run, released_at__isnull=True).select_related("resource").first()
        if (review and RunContinuation.objects.filter(run=run).exists() and lease and lease.holder.startswith("parked")
                and not run.worker):  # the worker let go is the parking's last write (CI under load read it before)
            return run, review, lease
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} was never parked on a review ({Run.objects.get(pk=run_id).status})")


def _reviewer(workspace):
    from tests.factories import UserFactory
    from venus_rpa.accounts.models import Membership

    user = UserFactory()
    Membership.objects.create(workspace=workspace, user=user, role="reviewer")
    return user


def test_delete_waits_in_review_parked_freeing_the_worker_and_resumes_in_the_same_session(desktop_worker, pool):
    """The worker serves one run at a time: the parked run lets it go, keeps its display (the open
    menu survives), and resumes there after the approval."""
    from venus_rpa.pools.models import Lease
    from venus_rpa.reviews.services import review_decide
    from venus_rpa.runs.services import run_start

    risky = run_start(automation=automation(pool, "tidy", start_url="app:pcmanfm", steps=TIDY), params={})
    risky, review, kept = _parked_on_review(risky.pk)
    assert (review.category, review.level) == ("DEL", "R3")
    assert review.screenshot and review.detail["target"]["name"] == "Delete"
    x, y, w, h = review.detail["target"]["rect"]
    assert w > 0 and h > 0  # the marked box on the review screenshot
    assert risky.worker == "" and "display " + kept.resource.key + " kept for the run" in risky.status_reason

    other = run_start(automation=automation(pool, "expenses", **EXPENSES), params={"item": "Lunch", "amount": "12"})
    other = wait_for_run(other.pk, statuses=TERMINAL, timeout=150)  # on the same worker, the other display
    assert other.status == "succeeded", other.status_reason
    [used] = Lease.objects.filter(run=other)
    assert used.resource_id != kept.resource_id and used.released_at
    kept.refresh_from_db()
    assert kept.released_at is None and kept.holder == f"parked:run-{risky.pk}"  # never given to the other run

    review_decide(review=review, user=_reviewer(pool), decision="approve", comment="")
    risky = wait_for_run(risky.pk, statuses=TERMINAL, timeout=90)
    assert risky.status == "succeeded", risky.status_reason  # the menu was still open: Delete was clicked
    steps = list(risky.steps.order_by("index"))
    assert steps[-1].name == "Delete the report" and steps[-1].status == "succeeded"
    kept.refresh_from_db()
    assert kept.released_at and kept.release_reason == "released"  # closed by the worker that resumed it


def test_a_parked_run_rejected_ends_with_the_reason_and_a_cancelled_one_gives_its_display_back(desktop_worker, pool):
    import psutil

    from venus_rpa.reviews.services import review_decide
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import run_cancel, run_start
    from workers.envs.xdisplay import MARKER

    tidy = automation(pool, "tidy", start_url="app:pcmanfm", steps=TIDY)
    first, second = run_start(automation=tidy, params={}), run_start(automation=tidy, params={})
    first, review, first_lease = _parked_on_review(first.pk)
    second, _, second_lease = _parked_on_review(second.pk)  # both parked at once, on both displays
    assert first_lease.resource_id != second_lease.resource_id

    review_decide(review=review, user=_reviewer(pool), decision="reject", comment="keep the report")
    first = wait_for_run(first.pk, statuses=TERMINAL, timeout=90)
    assert first.status == "failed" and "keep the report" in first.status_reason

    home = next(p.environ()["HOME"] for p in psutil.process_iter() if _marked(p, MARKER, second_lease.resource.key))
    run_cancel(run=Run.objects.get(pk=second.pk))
    second.refresh_from_db()
    assert second.status == "cancelled" and second.status_reason.startswith("cancelled by user while waiting for a person")
    second_lease.refresh_from_db()
    assert second_lease.released_at and second_lease.release_reason == "run_ended"
    deadline = time.monotonic() + 30  # the display's machine discards the kept session: processes, then HOME
    while any(_marked(p, MARKER, second_lease.resource.key) for p in psutil.process_iter()):
        assert time.monotonic() < deadline, "the cancelled run's session still runs on its display"
        time.sleep(0.2)
    while Path(home).exists():
        assert time.monotonic() < deadline, "the cancelled run's session HOME was not removed"
        time.sleep(0.2)
    first_lease.refresh_from_db()
    assert first_lease.released_at


def _marked(proc, marker: str, display: str) -> bool:
    try:
        return proc.environ().get(marker) == display
    except Exception:  # noqa: BLE001 -- gone, or not ours to read
        return False
