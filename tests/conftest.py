"""Shared fixtures: real servers (practice site, Celery worker) and the persona fixture
(owner, teammate, viewer, outsider) in the healthchecks style."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.helpers.servers import practice_site


@pytest.fixture(autouse=True, scope="session")
def password_hashes_made_once():
    """Each password is hashed once per hasher setting in the test process: a production hash
    (PBKDF2 with Django's iterations, so servers and workers started by tests verify it as they
    would in production) costs about 0.4 s of CPU, and fixtures create users for hundreds of tests
    (the personas, the seeded demo). Same password, same salt: harmless here."""
    from django.conf import settings
    from django.contrib.auth import base_user, hashers, models

    made: dict[tuple, str] = {}

    def make_password(password, salt=None, hasher="default"):
        if password is None or salt is not None or hasher != "default":
            return hashers.make_password(password, salt, hasher)
        key = (password, tuple(settings.PASSWORD_HASHERS))
        if key not in made:
            made[key] = hashers.make_password(password)
        return made[key]

    base_user.make_password = models.make_password = make_password
    yield
    base_user.make_password = models.make_password = hashers.make_password


@pytest.fixture(autouse=True)
def stub_dns(monkeypatch) -> dict[str, list[str]]:
    """No test sends a DNS query off the machine: the egress guard resolves names through this
    stub. "localhost" is loopback; tests map other names by adding to the returned dict; any
    other name does not resolve."""
    names: dict[str, list[str]] = {"localhost": ["127.0.0.1", "::1"]}

    def resolve(host: str, port: int) -> list[str]:
        if host.lower() in names:
            return list(names[host.lower()])
        raise OSError(f"stub resolver: {host} is not mapped")

    monkeypatch.setattr("workers.egress.resolve", resolve)
    return names


@pytest.fixture(scope="session")
def practice_url():
    with practice_site(test_hooks=True) as url:
        yield url


@dataclass
class Personas:
    workspace: object
    owner: object
    teammate: object
    viewer: object
    outsider: object
    other_workspace: object

    def client(self, user):
        from rest_framework.test import APIClient

        from venus_rpa.accounts.services import api_token_create
        from venus_rpa.accounts.selectors import workspace_default_for_user

        _, raw = api_token_create(workspace=workspace_default_for_user(user=user), user=user, name="test")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        return client


@pytest.fixture
def personas(db) -> Personas:
    from venus_rpa.accounts.models import Role
    from tests.factories import MembershipFactory, UserFactory, WorkspaceFactory

    workspace, other = WorkspaceFactory(name="Acme"), WorkspaceFactory(name="Globex")
    owner, teammate, viewer, outsider = (UserFactory(username=n) for n in ("alice", "bob", "victor", "mallory"))
    MembershipFactory(workspace=workspace, user=owner, role=Role.OWNER)
    MembershipFactory(workspace=workspace, user=teammate, role=Role.EDITOR)
    MembershipFactory(workspace=workspace, user=viewer, role=Role.VIEWER)
    MembershipFactory(workspace=other, user=outsider, role=Role.OWNER)
    return Personas(workspace, owner, teammate, viewer, outsider, other)
