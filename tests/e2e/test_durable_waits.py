"""Durable waits end to end: real Celery workers, Chromium and the practice site. A run waiting for
a person past the hold window parks (its thread and browser freed, its session saved encrypted),
and the person's decision resumes it on a worker in a restored session: risky-action approve,
reject and edit, the agent's question, a CAPTCHA for a person, and a review that expires (beat).
50 parked runs on a worker of concurrency 4 do not delay a new run."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_agent_end_to_end import create_agent_automation
from tests.e2e.test_runs_end_to_end import api_client
from tests.e2e.test_safety_end_to_end import checkout_automation, client_for, orders
from tests.helpers.definitions import delete_account_definition
from tests.helpers.fake_model import Reply, venus
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
QUEUE = "durable"
HOLD_S = 3
ROUTED = ("venus_rpa.runs.tasks.run_execute_task", "venus_rpa.runs.tasks.run_resume_task")


def route_runs_to(queue: str) -> None:
    """Runs and continuations enqueued by this process go to `queue` (None: the settings' routes)."""
    from django.conf import settings

    from venus_rpa import celery_app

    celery_app.conf["task_routes"] = ({name: {"queue": queue} for name in ROUTED} if queue
                                      else settings.CELERY_TASK_ROUTES)
    celery_app.amqp.flush_routes()
    celery_app.amqp.__dict__.pop("router", None)  # the cached router holds the old table


@pytest.fixture(autouse=True)
def durable_queue():
    """This module's runs go to its own workers."""
    route_runs_to(QUEUE)
    yield
    route_runs_to(None)


@pytest.fixture(scope="module")
def one_thread(django_db_setup, django_db_blocker, tmp_path_factory, model_server):
    """A worker with ONE thread and a short hold window: a parked run must leave it free."""
    log = tmp_path_factory.mktemp("durable") / "worker.log"
    env = {"VENUS_REVIEW_HOLD_SECONDS": str(HOLD_S), "VENUS_AGENT_QUEUE": QUEUE, "VENUS_MODEL_URL": model_server.url,
           "VENUS_MODEL": model_server.model, "VENUS_MODEL_TRIES": "2", "VENUS_MODEL_TIMEOUT": "10"}
    with celery_worker(queues=QUEUE, name="durable", concurrency=1, log_path=log, extra_env=env) as proc:
        yield proc
    print(f"worker log: {log}")


@pytest.fixture
def rita(demo):
    return client_for(demo["workspace"], "rita", "reviewer")


def wait_parked(run, *, timeout: float = 120.0):
    """The run once it is parked: continuation stored, status waiting with the reason, no worker."""
    from venus_rpa.runs.models import RunContinuation

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        assert run.status not in TERMINAL, run.status_reason
        if RunContinuation.objects.filter(run=run).exists():
            run.refresh_from_db()
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run.pk} did not park within {timeout}s (it is {run.status})")


def pending(run, kind: str, *, exclude: tuple = (), timeout: float = 60.0):
    from venus_rpa.reviews.models import ReviewRequest

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        review = ReviewRequest.objects.filter(run=run, kind=kind, status="pending").exclude(pk__in=exclude).first()
        if review is not None:
            return review
        run.refresh_from_db()
        assert run.status not in TERMINAL, run.status_reason
        time.sleep(0.05)
    raise AssertionError(f"no pending {kind} review for run {run.pk}")


def expense_params(title: str) -> dict:
    return {"title": title, "amount": "12.00", "category": "Meals"}


def assert_session_stored_encrypted(run) -> None:
    from venus_rpa.runs.models import RunContinuation

    parked = RunContinuation.objects.get(run=run)
    assert "cookies" not in parked.ciphertext and "sessionid" not in parked.ciphertext
    assert parked.ciphertext.startswith("gAAAAA")  # a Fernet token


def test_a_parked_review_frees_the_only_thread_and_an_approval_resumes_it_in_a_restored_session(
        one_thread, demo, practice_url, rita):
    from venus_rpa.runs.models import RunContinuation
    from venus_rpa.runs.services import run_start

    run = wait_parked(run_start(automation=checkout_automation(demo, practice_url), params={}))
    assert run.status == "awaiting_review" and run.worker == ""
    assert "parked after 3s" in run.status_reason and "review" in run.status_reason
    assert_session_stored_encrypted(run)
    review = pending(run, "risky_action")

    # The worker's one thread is free: another run goes through while the first one waits.
    other = run_start(automation=demo["automation"], params=expense_params("While parked"))
    other = wait_for_run(other.pk, statuses=TERMINAL, timeout=90)
    assert other.status == "succeeded", other.status_reason
    run.refresh_from_db()
    assert run.status == "awaiting_review" and orders(practice_url) == []

    assert rita.post(f"/api/reviews/{review.pk}/approve/", {"comment": "ok"}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    (order,) = orders(practice_url)  # signed in from the restored cookies; the form typed again
    assert order["shipping"]["city"] == "London" and order["card_last4"] == "4242"
    risk = run.steps.get(name="Place the order").grounding["risk"]["review"]
    assert (risk["decision"], risk["decided_by"], risk["session"]) == ("approve", "rita", "restored")
    assert not RunContinuation.objects.filter(run=run).exists()  # the saved session is gone
    indexes = list(run.steps.order_by("index").values_list("index", flat=True))
    assert indexes == list(range(len(indexes)))  # one trace, no gap, no repeat


def test_a_rejection_of_a_parked_run_fails_it_with_the_comment(one_thread, demo, practice_url, rita):
    from venus_rpa.runs.models import RunContinuation
    from venus_rpa.runs.services import run_start

    run = wait_parked(run_start(automation=checkout_automation(demo, practice_url), params={}))
    review = pending(run, "risky_action")
    response = rita.post(f"/api/reviews/{review.pk}/reject/", {"comment": "Not this quarter."}, format="json")
    assert response.status_code == 200, response.content
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "failed"
    assert "rejected by reviewer rita" in run.status_reason and "Not this quarter." in run.status_reason
    assert orders(practice_url) == []
    assert not RunContinuation.objects.filter(run=run).exists()


def test_an_edit_of_a_parked_run_is_typed_instead_and_the_next_review_parks_again(one_thread, demo, practice_url, rita):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import PRACTICE_CREDENTIAL
    from venus_rpa.runs.services import run_start

    # Typing into a form is not reviewed (its submit is), but typing an API key into a page is.
    login = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    key = "sk-live-" + "a1B2c3D4e5F6g7H8i9J0k1L2"
    automation = automation_create(workspace=demo["workspace"], user=None, slug="message-edit", name="Message", definition={
        "start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "fill", "target": "Username", "value": login % "username"},
                  {"kind": "fill", "target": "Password", "value": login % "password"},
                  {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
                  {"kind": "wait_for", "url_contains": "/expenses/new"},
                  {"kind": "goto", "url": "/messages/new"},
                  {"kind": "fill", "target": "To", "value": "grace@example.com"},
                  {"kind": "fill", "target": "Subject", "value": "The key"},
                  {"kind": "fill", "name": "Body", "target": "Body", "value": key},
                  {"kind": "click", "name": "Send", "target": {"role": "button", "name": "Send"}},
                  {"kind": "wait_for", "text": "Message sent"}]})
    run = wait_parked(run_start(automation=automation, params={}))
    body = pending(run, "risky_action")
    assert body.proposed_action["value"] == key and body.category == "SHARE"
    response = rita.post(f"/api/reviews/{body.pk}/edit/", {"action": {"value": "Ask me for the key."}}, format="json")
    assert response.status_code == 200, response.content
    send = pending(run, "risky_action", exclude=(body.pk,), timeout=90)
    assert send.title == "Click the button 'Send'"
    assert {"label": "Body", "type": "textarea", "value": "Ask me for the key."} in send.detail["form"]
    run = wait_parked(run)  # parked a second time, on the next review
    assert rita.post(f"/api/reviews/{send.pk}/approve/", {}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    (sent,) = httpx.get(practice_url + "/api/messages").json()["sent"]
    assert sent["body"] == "Ask me for the key."
    assert run.steps.get(name="Body").grounding["risk"]["review"]["edited"]["value"] == "Ask me for the key."


def test_a_parked_review_nobody_decides_is_expired_by_beat_and_the_run_fails(one_thread, demo, practice_url):
    from django.conf import settings

    from venus_rpa.reviews.services import reviews_sweep
    from venus_rpa.runs.models import RunContinuation
    from venus_rpa.runs.services import run_start

    assert settings.CELERY_BEAT_SCHEDULE["reviews-sweep"]["task"] == "venus_rpa.reviews.tasks.reviews_sweep_task"
    automation = checkout_automation(demo, practice_url, safety={"review_timeout_s": HOLD_S + 3}, slug="checkout-exp")
    run = wait_parked(run_start(automation=automation, params={}))
    review = pending(run, "risky_action")
    assert reviews_sweep() == {"expired": [], "resumed": []}  # not due yet: nothing happens
    time.sleep(max((review.expires_at - review.created_at).total_seconds() - HOLD_S, 0) + 1)
    swept = reviews_sweep()  # what beat runs every VENUS_SWEEP_SECONDS
    assert swept["expired"] == [review.pk]
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "failed" and "expired without a decision" in run.status_reason
    review.refresh_from_db()
    assert review.status == "expired"
    assert orders(practice_url) == []
    assert not RunContinuation.objects.filter(run=run).exists()


def test_a_parked_agent_question_is_answered_and_the_agent_goes_on_with_its_history(
        one_thread, demo, fake_model, practice_url):
    import json

    from venus_rpa.runs.services import run_start

    automation = create_agent_automation(demo["workspace"], practice_url, [
        {"kind": "agent", "goal": "File an expense; ask which category if unsure", "into": "category"}],
        slug="agent-ask-parked")

    def after_answer(body: dict) -> Reply:
        text = json.dumps(body["messages"])
        assert "The user answered: Meals" in text and "Which category should I use?" in text, text
        return venus("The user wants Meals.", "Finished(content='Meals')")

    fake_model.script(venus("I do not know the category.", "CallUser(content='Which category should I use?')"),
                      after_answer)
    run = wait_parked(run_start(automation=automation, params=expense_params("x")))
    assert run.status == "awaiting_user" and run.question == "Which category should I use?"
    client = api_client(demo["workspace"])
    assert client.post(f"/api/runs/{run.pk}/answer/", {"answer": "Meals"}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason
    assert run.output == {"category": "Meals"}
    assert fake_model.requests and len(fake_model.requests) == 2  # the model was not asked again from scratch


def test_a_parked_captcha_for_a_person_resumes_with_the_answer(one_thread, demo, practice_url):
    from venus_rpa.automations.services import automation_update
    from venus_rpa.runs.services import run_start

    automation = automation_update(automation=demo["automation"], user=None, definition={
        "start_url": f"{practice_url}/login?captcha=visual_reasoning", "captcha": {"solvers": ["human"]}})
    run = wait_parked(run_start(automation=automation, params=expense_params("Gated parked")))
    assert run.status == "awaiting_user" and "CAPTCHA" in run.status_reason
    first = pending(run, "captcha")
    client = api_client(demo["workspace"])

    def answer(review) -> None:
        count = httpx.get(f"{practice_url}/api/captcha/latest-visual_reasoning").json()["answer"]
        response = client.post(f"/api/reviews/{review.pk}/respond/", {"text": str(count)}, format="json")
        assert response.status_code == 200, response.content

    answer(first)
    # This site issues a new challenge when the page is opened again: the restored run shows the
    # new one to a person, whose answer within the hold window resumes it in place.
    deadline = time.monotonic() + 90
    while (run := type(run).objects.get(pk=run.pk)).status not in TERMINAL and time.monotonic() < deadline:
        from venus_rpa.reviews.models import ReviewRequest

        fresh = ReviewRequest.objects.filter(run=run, kind="captcha", status="pending").exclude(pk=first.pk).first()
        if fresh is not None:
            answer(fresh)
            break
        time.sleep(0.05)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    first.refresh_from_db()
    assert first.status == "answered"
    filed = [e for e in httpx.get(practice_url + "/api/expenses").json() if e["title"] == "Gated parked"]
    assert len(filed) == 1


def delete_account_automation(demo, practice_url: str):
    """Sign in and delete the account: one risky action (DEL), reviewed."""
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=demo["workspace"], user=None, slug="delete-account", name="Delete",
                             definition=delete_account_definition(practice_url))


@pytest.mark.timeout(900)
def test_fifty_runs_waiting_for_review_on_four_threads_do_not_delay_a_new_run(demo, practice_url, tmp_path):
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run, RunContinuation
    from venus_rpa.runs.services import run_cancel, run_start

    route_runs_to("fifty")
    automation = delete_account_automation(demo, practice_url)
    with celery_worker(queues="fifty", name="fifty", concurrency=4, log_path=tmp_path / "fifty.log",
                       # Its runs admit the next ones as they park: those go to its queue too.
                       extra_env={"VENUS_REVIEW_HOLD_SECONDS": "1", "VENUS_AGENT_QUEUE": "fifty"}):
        waiting = [run_start(automation=automation, params={}) for _ in range(50)]
        deadline = time.monotonic() + 600
        while RunContinuation.objects.filter(run__in=waiting).count() < 50:
            assert time.monotonic() < deadline, "the 50 runs did not all park"
            assert not Run.objects.filter(pk__in=[r.pk for r in waiting], status__in=TERMINAL).exists()
            time.sleep(0.5)
        assert ReviewRequest.objects.filter(run__in=waiting, status="pending").count() == 50

        new = run_start(automation=demo["automation"], params=expense_params("Not delayed"))
        new = wait_for_run(new.pk, statuses=TERMINAL, timeout=120)
        assert new.status == "succeeded", new.status_reason
        start_delay = (new.started_at - new.created_at).total_seconds()
        print(f"new run started {start_delay * 1000:.0f} ms after it was queued, with 50 parked runs")
        assert start_delay < 5.0
    assert RunContinuation.objects.filter(run__in=waiting).count() == 50  # still parked, untouched
    for run in waiting:  # a parked run is cancelled at once: no worker holds it
        assert run_cancel(run=run).status == "cancelled"
    assert not RunContinuation.objects.filter(run__in=waiting).exists()
    assert ReviewRequest.objects.filter(run__in=waiting, status="cancelled").count() == 50
