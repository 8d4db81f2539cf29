"""Fixtures for risky-action reviews: a reviewer persona, API clients per role, a run waiting on
a `risky_action` review (as the worker files it)."""

from __future__ import annotations

import pytest

from workers.gates.review import ReviewQuestion

PRACTICE_URL = "http://127.0.0.1:8765"


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def reviewer(personas):
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="rita")
    MembershipFactory(workspace=personas.workspace, user=user, role="reviewer")
    return user


@pytest.fixture
def clients(personas, reviewer):
    """API clients by role: owner, editor, viewer, reviewer, outsider."""
    return {"owner": personas.client(personas.owner), "editor": personas.client(personas.teammate),
            "viewer": personas.client(personas.viewer), "reviewer": personas.client(reviewer),
            "outsider": personas.client(personas.outsider)}


def make_automation(workspace, slug: str = "checkout"):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=workspace, user=None, slug=slug, name=slug, definition={
        "start_url": PRACTICE_URL + "/shop/checkout", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "fill", "target": "Card number", "value": "4000 0566 5566 5556"},
                  {"kind": "click", "target": {"role": "button", "name": "Place order"}}],
    })


def question(**overrides) -> ReviewQuestion:
    data = dict(
        action={"kind": "click", "name": "Place the order", "timeout_s": 10.0,
                "target": {"role": "button", "name": "Place order"}},
        description="Click the button 'Place order'",
        verdict={"category": "PAY", "level": "R3", "decision": "review",
                 "reason": "Clicking 'place order' spends or moves money. Held for review.", "evidence": [],
                 "modifiers": []},
        fingerprint="f" * 32, url=PRACTICE_URL + "/shop/checkout", screenshot=b"\xff\xd8\xff\xe0jpeg",
        target={"role": "button", "name": "Place order", "tag": "button", "rect": [10, 20, 100, 40]},
        step={"index": 17, "name": "Place the order", "kind": "click"}, editable=["target"], timeout_s=600,
    )
    data.update(overrides)
    return ReviewQuestion(**data)


def file_review(run, q: ReviewQuestion | None = None):
    """File a risky-action review for run as DjangoRecorder.open_review does."""
    from venus_rpa.reviews.services import review_create_risky

    q = q or question()
    return review_create_risky(run_id=run.pk, title=q.description, detail=q.detail(), screenshot=q.screenshot,
                               ttl_s=q.timeout_s, action=q.action, verdict=q.verdict, fingerprint=q.fingerprint)


@pytest.fixture
def waiting_run(personas):
    from venus_rpa.runs.models import Run

    automation = make_automation(personas.workspace)
    return Run.objects.create(workspace=personas.workspace, automation=automation,
                              version=automation.current_version, status="awaiting_review")


@pytest.fixture
def risky(waiting_run):
    return file_review(waiting_run)
