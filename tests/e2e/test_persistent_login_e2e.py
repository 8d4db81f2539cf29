"""Persistent logins end to end: a real Celery worker, Chromium and the practice site.

The first run signs in and saves the session; the next starts signed in and skips the sign-in
steps; after the site ends its sessions server side, a run finds the saved one signed out, signs
in again and refreshes it. Sessions never cross workspaces or credentials, and no cookie value
reaches an API answer, a page, a step record or the worker's log.
"""

from __future__ import annotations

import json

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for_run
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
PARAMS = {"title": "Parking", "amount": "9.50", "category": "Travel"}


@pytest.fixture(scope="module")
def login_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A worker of its own (queue `logins`), so every run here is in its log."""
    log = tmp_path_factory.mktemp("login-worker") / "worker.log"
    with celery_worker(queues="logins", name="logins", log_path=log):
        yield log


def signed_in_automation(workspace, practice_url, *, credential: str = "practice-login", slug: str = "signed-in"):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_signed_in_expense_definition

    text = json.dumps(demo_signed_in_expense_definition(practice_url)).replace("practice-login", credential)
    return automation_create(workspace=workspace, user=None, slug=slug, name=slug, definition=json.loads(text))


def execute(automation):
    """Run the automation's current version on the test's own worker; wait until it ends."""
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import params_validate
    from venus_rpa.runs.tasks import run_execute_task

    version = automation.current_version
    run = Run.objects.create(workspace=automation.workspace, automation=automation, version=version,
                             params=params_validate(schema=version.param_schema, params=PARAMS),
                             admitted_at=timezone.now())  # sent to its own queue below, past the dispatcher
    run_execute_task.apply_async(args=[run.pk], queue="logins")
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason
    return run


def sign_in_records(run) -> list[str]:
    return [s.action["session"] for s in run.steps.filter(kind="sign_in").order_by("index")]


def typed_the_password(run) -> bool:
    return run.steps.filter(name="Type the password").exists()


def the_session(workspace, credential: str = "practice-login"):
    from venus_rpa.automations.models import LoginSession

    return LoginSession.objects.get(workspace=workspace, credential__name=credential, domain="127.0.0.1")


def session_cookie(session) -> str:
    from venus_rpa.automations.crypto import decrypt_json

    cookies = {c["name"]: c["value"] for c in decrypt_json(session.ciphertext)["cookies"]}
    return cookies["practice_session"]


def owner_api(workspace) -> APIClient:
    from venus_rpa.accounts.models import Membership
    from venus_rpa.accounts.services import api_token_create

    owner = Membership.objects.filter(workspace=workspace, role="owner").first().user
    _, raw = api_token_create(workspace=workspace, user=owner, name="logins")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_a_saved_session_skips_sign_in_until_the_site_ends_it(login_worker, demo, practice_url):
    workspace = demo["workspace"]
    automation = signed_in_automation(workspace, practice_url)

    first = execute(automation)
    assert typed_the_password(first) and sign_in_records(first) == ["saved"]
    saved = the_session(workspace)
    assert saved.saved_by_run_id == first.pk and saved.expires_at > saved.saved_at
    cookie = session_cookie(saved)
    assert cookie not in saved.ciphertext
    # The stored cookie is the site's live session: it opens the expense form without a sign-in.
    form = httpx.get(practice_url + "/expenses/new", cookies={"practice_session": cookie})
    assert form.status_code == 200 and "Sign out" in form.text

    second = execute(automation)
    assert sign_in_records(second) == ["reused"] and not typed_the_password(second)
    assert second.steps.count() == first.steps.count() - 3  # the three sign-in steps; one record each way
    assert the_session(workspace).last_used_at is not None
    assert second.output["reference"].startswith("EXP-")

    assert httpx.post(practice_url + "/api/sessions/end").status_code == 200  # the site signs everyone out
    third = execute(automation)
    assert sign_in_records(third) == ["expired", "saved"] and typed_the_password(third)
    refreshed = the_session(workspace)
    assert refreshed.saved_by_run_id == third.pk and refreshed.saved_at > saved.saved_at
    new_cookie = session_cookie(refreshed)
    assert new_cookie != cookie

    fourth = execute(automation)
    assert sign_in_records(fourth) == ["reused"] and not typed_the_password(fourth)

    api = owner_api(workspace)
    listed = api.get("/api/credentials/practice-login/sessions/")
    assert [s["domain"] for s in listed.json()] == ["127.0.0.1"]
    assert api.delete(f"/api/credentials/practice-login/sessions/{refreshed.pk}/").status_code == 204
    fifth = execute(automation)
    assert sign_in_records(fifth) == ["saved"] and typed_the_password(fifth)

    expenses = [e for e in httpx.get(practice_url + "/api/expenses").json() if e["title"] == "Parking"]
    assert len(expenses) == 5

    # No cookie value in any answer, page, step record or log line.
    runs = [first, second, third, fourth, fifth]
    answers = [api.get(f"/api/runs/{run.pk}/").content.decode() for run in runs]
    answers.append(api.get("/api/credentials/practice-login/sessions/").content.decode())
    answers.append(api.get("/api/automations/signed-in/").content.decode())
    dashboard = APIClient()
    dashboard.force_login(get_user_model().objects.get(username="demo"))
    page = dashboard.get("/credentials/practice-login/")
    assert page.status_code == 200 and "127.0.0.1" in page.content.decode()
    answers.append(page.content.decode())
    shown = {second: "Signed in with the saved session", third: "Saved session not signed in"}
    for run, decision in shown.items():  # the run pages show the sign-in decisions
        run_page = dashboard.get(f"/runs/{run.pk}/")
        assert run_page.status_code == 200 and decision in run_page.content.decode()
        answers.append(run_page.content.decode())
    answers += [json.dumps([s.action, s.grounding, s.output, s.url, s.error]) for run in runs for s in run.steps.all()]
    answers.append(login_worker.read_text(errors="replace"))
    for value in {cookie, new_cookie, session_cookie(the_session(workspace))}:
        assert not any(value in text for text in answers)


def test_sessions_never_cross_workspaces_or_credentials(login_worker, demo, practice_url):
    from venus_rpa.accounts.services import workspace_create
    from venus_rpa.automations.models import LoginSession
    from venus_rpa.automations.services import credential_set

    workspace = demo["workspace"]
    execute(signed_in_automation(workspace, practice_url))
    assert LoginSession.objects.count() == 1

    # The same practice account, stored under another credential of the same workspace.
    credential_set(workspace=workspace, name="practice-login-2", domains=["127.0.0.1"],
                   fields={"username": "demo", "password": "demo-password"})
    other_credential = execute(signed_in_automation(workspace, practice_url, credential="practice-login-2",
                                                    slug="signed-in-2"))
    assert sign_in_records(other_credential) == ["saved"] and typed_the_password(other_credential)

    # Another workspace with a credential of the same name and the same automation.
    owner = get_user_model().objects.create_user("globex-owner", password="x-unused-password")
    other = workspace_create(name="Globex", slug="globex", owner=owner)
    credential_set(workspace=other, name="practice-login", domains=["127.0.0.1"],
                   fields={"username": "demo", "password": "demo-password"})
    other_workspace = execute(signed_in_automation(other, practice_url))
    assert sign_in_records(other_workspace) == ["saved"] and typed_the_password(other_workspace)

    sessions = LoginSession.objects.order_by("pk")
    assert [(s.workspace_id, s.credential.name) for s in sessions] == [
        (workspace.pk, "practice-login"), (workspace.pk, "practice-login-2"), (other.pk, "practice-login")]
    assert len({session_cookie(s) for s in sessions}) == 3  # three sign-ins, three sessions
