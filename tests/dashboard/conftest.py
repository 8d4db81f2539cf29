"""Dashboard fixtures: signed-in test clients for each persona and a small automation."""

from __future__ import annotations

import pytest
from django.test import Client


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviewer(personas):
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(username="rita")
    MembershipFactory(workspace=personas.workspace, user=user, role="reviewer")
    return user


@pytest.fixture
def owner_client(personas) -> Client:
    return signed_in(personas.owner)


@pytest.fixture
def editor_client(personas) -> Client:
    return signed_in(personas.teammate)


@pytest.fixture
def viewer_client(personas) -> Client:
    return signed_in(personas.viewer)


@pytest.fixture
def outsider_client(personas) -> Client:
    return signed_in(personas.outsider)


PARAM_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "count": {"type": "integer", "default": 2},
        "when": {"type": "string", "format": "date"},
        "category": {"type": "string", "enum": ["Travel", "Meals"], "default": "Travel"},
        "urgent": {"type": "boolean"},
    },
    "required": ["title", "when"],
    "additionalProperties": False,
}


def definition(**overrides) -> dict:
    return {
        "start_url": "http://127.0.0.1:9/form",
        "allowed_domains": ["127.0.0.1"],
        "goal": "File {{title}}",
        "param_schema": PARAM_SCHEMA,
        "steps": [
            {"kind": "fill", "name": "Title", "target": "Title", "value": "{{title}}"},
            {"kind": "click", "target": {"role": "button", "name": "Save"}},
        ],
        **overrides,
    }


@pytest.fixture
def automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="file-expense",
                             name="File expense", definition=definition())


@pytest.fixture
def foreign_automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.other_workspace, user=personas.outsider, slug="globex-secret",
                             name="Globex secret", definition={"steps": [{"kind": "goto", "url": "http://x.test/"}],
                                                                  "allowed_domains": ["x.test"]})


def make_run(automation, *, status="succeeded", steps: int = 0, **fields):
    """A run with recorded steps (screenshots included), without a worker."""
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from venus_rpa.runs.models import Run, Step

    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, status=status, **fields)
    for index in range(steps):
        step = Step(run=run, index=index, kind="click", name=f"Step {index}", status="succeeded",
                    action={"kind": "click", "target": {"text": "Save"}},
                    grounding={"strategy": "role", "box": {"x": 100, "y": 200, "width": 128, "height": 40}},
                    started_at=timezone.now() - timedelta(seconds=10 - index), act_ms=12.5, observe_ms=30)
        step.screenshot.save(f"run{run.pk}-step{index}.jpg", ContentFile(b"\xff\xd8fake-jpeg-%d" % index), save=False)
        step.save()
    return run
