"""The OpenAPI document is the API: schemathesis, every check, against a live server.

The server is pytest-django's live server (a real HTTP server on 127.0.0.1, this test database),
seeded with one object of every kind so that examples and fuzzing reach real rows. Name
resolution is stubbed to loopback-only for the duration, so nothing the fuzzer puts in a URL
(callback URLs, start URLs) can make the server look up or reach another host.
"""

from __future__ import annotations

import json
import socket

import pytest
from django.utils import timezone

from tests.security.schemathesis_run import run

pytestmark = pytest.mark.timeout(400)

# Per operation and generation mode; keeps the test near a minute on two cores.
MAX_EXAMPLES = 6
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "testserver"}


@pytest.fixture
def loopback_only_dns(monkeypatch):
    """Any name but loopback fails to resolve, before any packet leaves the machine."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name in LOOPBACK_NAMES or name.startswith("127."):
            return real(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, f"test: {name} is not resolved")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def seeded_token(transactional_db, settings) -> str:
    """An owner's token in a workspace with an automation, a credential, a run with a step, a
    review, a schedule, a webhook, a callback endpoint and a delivery; plus another workspace."""
    from tests.reviews.conftest import file_review, make_automation
    from venus_rpa.accounts.models import Role
    from venus_rpa.accounts.services import api_token_create
    from tests.factories import MembershipFactory, UserFactory, WorkspaceFactory
    from venus_rpa.automations.services import credential_set
    from venus_rpa.runs.models import Run, Step
    from venus_rpa.triggers.models import CallbackDelivery
    from venus_rpa.triggers.services import callback_endpoint_create, schedule_create, webhook_trigger_create

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    workspace, other = WorkspaceFactory(name="Acme"), WorkspaceFactory(name="Globex")
    owner = UserFactory(username="alice")
    MembershipFactory(workspace=workspace, user=owner, role=Role.OWNER)
    MembershipFactory(workspace=other, user=UserFactory(username="mallory"), role=Role.OWNER)
    make_automation(other, slug="globex")
    automation = make_automation(workspace)
    credential_set(workspace=workspace, name="shop", fields={"username": "u", "password": "p4ss-w0rd"},
                   domains=["127.0.0.1"])
    run_ = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                              status="awaiting_review")
    Step.objects.create(run=run_, index=0, kind="click", name="Place order", status="ok", started_at=timezone.now())
    file_review(run_)
    schedule_create(workspace=workspace, user=owner, automation=automation, name="Nightly", cron="0 3 * * *",
                    timezone_name="UTC", params={}, enabled=False)
    webhook_trigger_create(workspace=workspace, user=owner, automation=automation, name="Hook", param_mapping={},
                           enabled=True)
    endpoint, _ = callback_endpoint_create(workspace=workspace, user=owner, automation=None,
                                           url="http://127.0.0.1:9/callback", enabled=False)
    CallbackDelivery.objects.create(endpoint=endpoint, run=run_, payload={"run": run_.pk}, status="failed")
    _picker_snapshot(automation)
    return api_token_create(workspace=workspace, user=owner, name="schemathesis")[1]


def _picker_snapshot(automation):
    """A ready step-picker snapshot, so its read and resolve operations reach a real row."""
    from datetime import timedelta

    from venus_rpa.picker.models import PickerSnapshot

    PickerSnapshot.objects.create(
        workspace=automation.workspace, automation=automation, version=automation.current_version, step=0,
        kind="fill", status="ready", width=1280, height=800, screenshot=b"\xff\xd8\xff\xe0jpeg",
        elements=[{"id": 0, "box": [0, 0, 200, 40], "also": [], "target": {"text": "Card number"}, "count": 1,
                   "why": "'Card number' matches this element only", "describe": 'input[text] "Card number"',
                   "fits": True}],
        expires_at=timezone.now() + timedelta(minutes=15))


def test_schemathesis_finds_no_server_error_and_no_schema_violation(live_server, seeded_token, loopback_only_dns):
    result = run(live_server.url, seeded_token, MAX_EXAMPLES)

    summary = json.dumps(result, indent=1)
    print(summary)  # the counts, shown with -rA or -s (valid_rejected is reported, not asserted)
    assert result["cases"] > 400, summary
    assert not result["errors"], summary
    assert result["server_errors"] == 0, summary
    assert result["schema_violations"] == 0, summary
