"""Fixtures for the REST API tests: a credential, the demo definition, an automation, clients."""

from __future__ import annotations

import copy

import pytest

from venus_rpa.core.demo import PRACTICE_CREDENTIAL, demo_expense_definition

# The practice site is not started: definitions only need a URL, and no run is executed.
PRACTICE_URL = "http://127.0.0.1:8765"
PRACTICE_USERNAME = "demo-user"
PRACTICE_PASSWORD = "pr4ctice-S3cret-value"


def assert_error(response, status: int, code: str | None = None) -> dict:
    """Check the API's one error shape and return the `error` object."""
    assert response.status_code == status, (response.status_code, getattr(response, "data", response.content))
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "fields"}, error
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["fields"], dict)
    if code is not None:
        assert error["code"] == code, error
    return error


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    """The persona users get a password; the default PBKDF2 work factor makes each test take seconds."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def definition() -> dict:
    return copy.deepcopy(demo_expense_definition(PRACTICE_URL))


@pytest.fixture
def practice_credential(personas):
    from venus_rpa.automations.services import credential_set

    return credential_set(
        workspace=personas.workspace, name=PRACTICE_CREDENTIAL,
        fields={"username": PRACTICE_USERNAME, "password": PRACTICE_PASSWORD}, domains=["127.0.0.1"],
    )


@pytest.fixture
def automation(personas, practice_credential, definition):
    """The demo automation in the personas' workspace (version 1), created through the service."""
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=personas.workspace, user=personas.owner, slug="demo-expense", name="Demo expense",
        definition=definition,
    )


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
