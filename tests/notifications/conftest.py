"""Fixtures for notifications: a reviewer with an e-mail address, a waiting run, and a factory
for the risky-action reviews a worker files."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def enqueued(monkeypatch) -> list[tuple]:
    """The notice tasks sent after commit, recorded instead of reaching the broker: these tests
    call notice_send themselves, and a worker of another test on the same broker must not claim
    the notice first (it did, in the full suite)."""
    from venus_rpa.notifications import services

    sent: list[tuple] = []

    class Broker:
        @staticmethod
        def send_task(name, args=(), countdown=None, **kwargs):
            sent.append((name, tuple(args), countdown))

    monkeypatch.setattr(services, "celery_app", Broker())
    return sent


@pytest.fixture
def reviewer(personas):
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="rita", email="rita@example.com")
    MembershipFactory(workspace=personas.workspace, user=user, role="reviewer")
    return user


@pytest.fixture
def waiting_run(personas):
    from tests.dashboard.conftest import definition, make_run
    from venus_rpa.automations.services import automation_create

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="pay-invoice",
                                   name="Pay invoice", definition=definition())
    return make_run(automation, status="running")


def file_review(run, *, title: str = "Click “Pay 120.00 EUR”", level: str = "R3", category: str = "PAY",
                modifiers: list[str] | None = None, reason: str = "submits a payment"):
    """A risky-action review as the worker files it (the same service)."""
    from venus_rpa.reviews.services import review_create_risky

    verdict = {"level": level, "category": category, "reason": reason, "modifiers": modifiers or []}
    return review_create_risky(run_id=run.pk, title=title, detail={"verdict": verdict, "action": {"kind": "click"}},
                               screenshot=None, ttl_s=600, action={"kind": "click", "target": {"text": "Pay"}},
                               verdict=verdict, fingerprint="fp")
