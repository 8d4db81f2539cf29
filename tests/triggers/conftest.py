"""Fixtures for schedules, webhooks and callbacks: a small automation with a parameter schema,
API clients per persona, and a real Celery worker on the default queue."""

from __future__ import annotations

import pytest

from tests.helpers.worker import celery_worker

PARAM_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^[0-9]+$"},
        "priority": {"type": "string", "enum": ["low", "high"], "default": "low"},
    },
    "required": ["order_id"],
    "additionalProperties": False,
}


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def automation_make(workspace, user, slug: str = "ship-order"):
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=workspace, user=user, slug=slug, name=slug.replace("-", " ").title(),
        definition={"start_url": "https://shop.example.com/orders/{{order_id}}", "param_schema": PARAM_SCHEMA,
                    "allowed_domains": ["shop.example.com"],
                    "steps": [{"kind": "press", "key": "Enter"}]},
    )


@pytest.fixture
def automation(personas):
    return automation_make(personas.workspace, personas.owner)


@pytest.fixture
def other_automation(personas):
    """An automation in the outsider's workspace."""
    return automation_make(personas.other_workspace, personas.outsider, slug="globex-order")


@pytest.fixture
def owner(personas):
    return personas.client(personas.owner)


@pytest.fixture
def editor(personas):
    return personas.client(personas.teammate)


@pytest.fixture
def viewer(personas):
    return personas.client(personas.viewer)


@pytest.fixture
def outsider(personas):
    return personas.client(personas.outsider)


@pytest.fixture
def no_run_enqueue(monkeypatch) -> list[int]:
    """Record the run ids `run_start` would send to the agent queue (once admitted) instead of
    sending them: tests that commit (transactional_db) must not leave runs for an agent worker."""
    sent: list[int] = []
    monkeypatch.setattr("venus_rpa.runs.services.run_enqueue", lambda run_id: sent.append(run_id) or True)
    return sent


@pytest.fixture(scope="session")
def default_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real Celery worker on the `default` queue with short callback backoff."""
    log = tmp_path_factory.mktemp("triggers-worker") / "worker.log"
    env = {"VENUS_CALLBACK_BACKOFF_SECONDS": "0.2", "VENUS_CALLBACK_TIMEOUT_SECONDS": "3"}
    with celery_worker(queues="default", name="triggers", extra_env=env, log_path=log) as proc:
        yield proc
    print(f"worker log: {log}")
