"""Authorization matrix: every route × method × role, enumerated from the URL resolver.

A route missing from MATRIX fails `test_every_route_is_in_the_matrix`, so a new endpoint cannot
ship without saying who may use it. Each (route, method) is then requested as anonymous, viewer,
editor, reviewer, owner and the owner of another workspace, on objects of the first workspace;
each role's request runs in a savepoint that is rolled back, so one role's write does not change
what the next one sees.

Rules: R any member reads; W owner or editor; D owner or reviewer (risky decisions); C owner,
editor or reviewer (CAPTCHA answers in the dashboard); O owner only (workspace settings, members);
T the object's own user or an owner (the world's API token is the viewer's); P public. "Allowed" means the answer is
none of 401/403/404 and no redirect to sign-in (a 400 for an empty body is allowed: the request
got past the role check). Denied means: anonymous 401 (API) or a redirect to sign-in
(dashboard), a member without the role 403, the other workspace's owner 404 on our objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.dashboard.conftest import make_run, signed_in
from tests.reviews.conftest import file_review, make_automation

ROLES = ["anonymous", "viewer", "editor", "reviewer", "owner", "outsider"]
RULES = {"R": {"viewer", "editor", "reviewer", "owner"}, "W": {"editor", "owner"}, "D": {"reviewer", "owner"},
         "C": {"editor", "reviewer", "owner"}, "O": {"owner"}, "T": {"viewer", "owner"}, "P": set(ROLES)}

API = {
    "workspace-detail": {"GET": "R", "PATCH": "O"},
    "automation-list": {"GET": "R", "POST": "W"},
    "automation-detail": {"GET": "R", "PATCH": "W"},
    "automation-versions": {"GET": "R"},
    "automation-version-restore": {"POST": "W"},
    "automation-clone": {"POST": "W"},
    "automation-archive": {"POST": "W"},
    "automation-unarchive": {"POST": "W"},
    "run-start": {"POST": "W"},
    "picker-start": {"POST": "W"},
    "picker-detail": {"GET": "W"},
    "picker-screenshot": {"GET": "W"},
    "picker-resolve": {"POST": "W"},
    "run-list": {"GET": "R"},
    "run-detail": {"GET": "R"},
    "run-cancel": {"POST": "W"},
    "run-answer": {"POST": "W"},
    "trajectory-export": {"GET": "O"},  # a dataset of every run's screens and decisions (docs/datasets.md)
    "run-retry": {"POST": "W"},
    "run-items": {"GET": "R"},
    "run-items-export": {"GET": "R"},
    "run-items-retry": {"POST": "W"},
    "run-bulk": {"POST": "W"},
    "review-list": {"GET": "R"},
    "review-bulk-reject": {"POST": "D"},
    "review-detail": {"GET": "R"},
    "review-respond": {"POST": "W"},
    "review-approve": {"POST": "D"},
    "review-reject": {"POST": "D"},
    "review-edit": {"POST": "D"},
    "credential-list": {"GET": "R", "POST": "W"},
    "credential-detail": {"DELETE": "W"},
    "device-list": {"GET": "R", "POST": "O"},
    "device-detail": {"GET": "R", "PATCH": "O", "DELETE": "O"},
    "credential-session-list": {"GET": "R", "DELETE": "W"},
    "credential-session-detail": {"DELETE": "W"},
    "schedule-list": {"GET": "R", "POST": "W"},
    "schedule-detail": {"GET": "R", "PATCH": "W", "DELETE": "W"},
    "schedule-pause": {"POST": "W"},
    "schedule-resume": {"POST": "W"},
    "webhook-list": {"GET": "R", "POST": "W"},
    "webhook-detail": {"GET": "R", "PATCH": "W", "DELETE": "W"},
    "webhook-rotate-secret": {"POST": "W"},
    "callback-list": {"GET": "R", "POST": "W"},
    "callback-detail": {"GET": "R", "PATCH": "W", "DELETE": "W"},
    "callback-rotate-secret": {"POST": "W"},
    "callback-delivery-list": {"GET": "R"},
    "callback-delivery-detail": {"GET": "R"},
    "callback-delivery-resend": {"POST": "W"},
    "schema": {"GET": "P"},
    "api-docs": {"GET": "P"},
    "media": {"GET": "R"},
}
DASHBOARD = {
    "dashboard:home": {"GET": "R"},
    "dashboard:automations": {"GET": "R"},
    "dashboard:automation-new": {"GET": "W", "POST": "W"},
    "dashboard:automation-step-row": {"GET": "W"},
    "dashboard:automation-param-row": {"GET": "W"},
    "dashboard:automation-param-schema": {"POST": "W"},
    "dashboard:automation-edit": {"GET": "R", "POST": "W"},
    "dashboard:automation-versions": {"GET": "R"},
    "dashboard:automation-overview": {"GET": "R"},
    "dashboard:automation-launch": {"GET": "R", "POST": "W"},
    "dashboard:automation-clone": {"POST": "W"},
    "dashboard:automation-archive": {"GET": "W", "POST": "W"},
    "dashboard:automation-unarchive": {"POST": "W"},
    "dashboard:automation-version-restore": {"GET": "W", "POST": "W"},
    "dashboard:runs": {"GET": "R"},
    "dashboard:run-detail": {"GET": "R"},
    "dashboard:run-summary": {"GET": "R"},
    "dashboard:run-steps": {"GET": "R"},
    "dashboard:run-step": {"GET": "R"},
    "dashboard:run-cancel": {"POST": "W"},
    "dashboard:run-answer": {"POST": "W"},
    "dashboard:run-trace": {"GET": "R"},
    "dashboard:run-retry": {"POST": "W"},
    "dashboard:run-items": {"GET": "R"},
    "dashboard:run-items-download": {"GET": "R"},
    "dashboard:run-items-retry": {"POST": "W"},
    "dashboard:runs-bulk": {"POST": "W"},
    "dashboard:reviews-bulk-reject": {"POST": "D"},
    "dashboard:reviews": {"GET": "R"},
    "dashboard:review-queue": {"GET": "R"},
    "dashboard:review-respond": {"POST": "C"},
    "dashboard:review-decide": {"POST": "D"},
    "dashboard:review-detail": {"GET": "R"},
    "dashboard:reviews-approve-run": {"POST": "D"},
    # The audit log and one's own notification channels: every role that acts (not viewers).
    "dashboard:audit": {"GET": "C"},
    "dashboard:notification-settings": {"GET": "C", "POST": "C"},
    "dashboard:credentials": {"GET": "R"},
    "dashboard:credential-detail": {"GET": "R"},
    "dashboard:credential-sessions-revoke": {"POST": "W"},
    "dashboard:credential-session-revoke": {"POST": "W"},
    "dashboard:credential-delete": {"GET": "W", "POST": "W"},
    "dashboard:schedule-delete": {"GET": "W", "POST": "W"},
    "dashboard:webhook-delete": {"GET": "W", "POST": "W"},
    "dashboard:devices": {"GET": "R"},
    "dashboard:device-workers": {"GET": "R"},
    "dashboard:workspace-settings": {"GET": "R", "POST": "O"},
    # Everyone sees who is in the workspace; owners add, change and remove. Everyone makes their own
    # API tokens; a token is revoked by its user or an owner.
    "dashboard:members": {"GET": "R", "POST": "O"},
    "dashboard:member-invite": {"POST": "O"},
    "dashboard:member-role": {"POST": "O"},
    "dashboard:member-remove": {"GET": "O", "POST": "O"},
    "dashboard:tokens": {"GET": "R", "POST": "R"},
    "dashboard:token-revoke": {"POST": "T"},
    "dashboard:schedules": {"GET": "R"},
    "dashboard:schedule-toggle": {"POST": "W"},
    "dashboard:webhooks": {"GET": "R"},
    "dashboard:webhook-create": {"POST": "W"},
    "dashboard:webhook-detail": {"GET": "R"},
    "dashboard:webhook-rotate": {"POST": "W"},
    "dashboard:webhook-toggle": {"POST": "W"},
    "dashboard:webhook-delete": {"POST": "W"},
    "dashboard:webhook-test": {"POST": "W"},
    "dashboard:callback-create": {"POST": "W"},
    "dashboard:callback-toggle": {"POST": "W"},
    "dashboard:callback-delete": {"GET": "W", "POST": "W"},
    "dashboard:delivery-resend": {"POST": "W"},
    "dashboard:device-android": {"POST": "O"},
    # An invitation's sign-up page: anyone with the link (here a wrong one: 400 for every caller).
    "dashboard:welcome": {"GET": "P", "POST": "P"},
}
# Routes with their own gate, tested where that gate lives rather than by workspace role.
OWN_GATE = {
    "healthz": "public liveness probe (tests/test_deployment.py)",
    "webhook-receive": "HMAC signature, not a role (tests/triggers/test_webhooks.py)",
    "metrics": "loopback or VENUS_METRICS_TOKEN",
    "dashboard:login": "the sign-in page itself",
    "dashboard:logout": "signs out whoever asks",
    "admin:*": "Django admin: staff only",
}
MATRIX = {**API, **DASHBOARD}
# Form data where an empty form would be refused before the role is looked at.
FORMS = {"dashboard:review-decide": {"decision": "reject"}, "dashboard:webhook-delete": {"confirm": "delete"},
         "dashboard:callback-delete": {"confirm": "delete"},
         "dashboard:webhook-test": {"body": "{}", "start_run": "on"}}


def _routes(patterns=None, prefix: str = "", namespace: str = "") -> dict[str, str]:
    """{route name (namespaced): route string} of every named URL; the admin collapses to admin:*."""
    out: dict[str, str] = {}
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            ns = pattern.namespace or namespace
            if ns == "admin":
                out["admin:*"] = prefix + str(pattern.pattern)
                continue
            out.update(_routes(pattern.url_patterns, prefix + str(pattern.pattern), ns))
        elif isinstance(pattern, URLPattern) and pattern.name:
            out[f"{namespace}:{pattern.name}" if namespace else pattern.name] = prefix + str(pattern.pattern)
    return out


def test_every_route_is_in_the_matrix():
    routes = set(_routes())
    missing = sorted(routes - set(MATRIX) - set(OWN_GATE))
    stale = sorted((set(MATRIX) | set(OWN_GATE)) - routes)
    assert not missing, f"add these routes to the authorization matrix: {missing}"
    assert not stale, f"these matrix entries name no route: {stale}"


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    """The personas get passwords; the default PBKDF2 work factor would take seconds per test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class World:
    users: dict
    values: dict


@pytest.fixture
def world(personas) -> World:
    """One object of every kind in the personas' workspace, and a user per role."""
    from django.core.files.base import ContentFile

    from tests.factories import MembershipFactory, UserFactory
    from venus_rpa.accounts.services import api_token_create
    from venus_rpa.devices.services import device_register
    from venus_rpa.triggers.models import CallbackDelivery
    from venus_rpa.triggers.services import callback_endpoint_create, schedule_create, webhook_trigger_create

    reviewer = UserFactory(username="rita")
    MembershipFactory(workspace=personas.workspace, user=reviewer, role="reviewer")
    automation = make_automation(personas.workspace)
    run = make_run(automation, status="awaiting_review", steps=1)
    step = run.steps.get(index=0)
    if not step.screenshot:
        step.screenshot.save("authz.jpg", ContentFile(b"\xff\xd8\xff\xe0jpeg"), save=True)
    review = file_review(run)
    owner = personas.owner
    schedule = schedule_create(workspace=personas.workspace, user=owner, automation=automation, name="Nightly",
                               cron="0 3 * * *", params={}, enabled=False)
    trigger, _ = webhook_trigger_create(workspace=personas.workspace, user=owner, automation=automation, name="Hook")
    endpoint, _ = callback_endpoint_create(workspace=personas.workspace, user=owner, url="http://127.0.0.1:9/cb",
                                           enabled=False)
    delivery = CallbackDelivery.objects.create(endpoint=endpoint, run=run, payload={}, status="failed")
    credential, session = _login_session(personas.workspace)
    device = device_register(workspace=personas.workspace, serial="authz-phone")
    snapshot = _picker_snapshot(automation)
    viewer_token, _ = api_token_create(workspace=personas.workspace, user=personas.viewer, name="viewer's")
    viewer_membership = personas.workspace.memberships.get(user=personas.viewer)
    values = {"snapshot_id": snapshot.pk, "device_id": device.pk, "name": credential.name, "session_id": session.pk,"slug": automation.slug, "run_id": run.pk, "review_id": review.pk, "schedule_id": schedule.pk,
              "trigger_id": trigger.pk, "endpoint_id": endpoint.pk, "delivery_id": delivery.pk, "index": 0, "number": 1, "fmt": "csv",
              "path": step.screenshot.name, "public_id": trigger.public_id, "token_id": viewer_token.pk,
              "membership_id": viewer_membership.pk, "uidb64": "MQ", "token": "not-a-token"}
    users = {"viewer": personas.viewer, "editor": personas.teammate, "reviewer": reviewer, "owner": owner,
             "outsider": personas.outsider}
    return World(users, values)


def _picker_snapshot(automation):
    """A ready step-picker snapshot of the automation (venus_rpa/picker)."""
    from datetime import timedelta

    from django.utils import timezone

    from venus_rpa.picker.models import PickerSnapshot

    return PickerSnapshot.objects.create(
        workspace=automation.workspace, automation=automation, version=automation.current_version, step=0,
        kind="click", status="ready", width=100, height=100, screenshot=b"\xff\xd8\xff\xe0jpeg",
        elements=[{"id": 0, "box": [0, 0, 50, 50], "also": [], "target": {"text": "Go"}, "count": 1, "why": "",
                   "describe": 'button "Go"', "fits": True}],
        expires_at=timezone.now() + timedelta(minutes=15))


def _login_session(workspace):
    """A credential with a saved sign-in session (persistent logins)."""
    from datetime import timedelta

    from django.utils import timezone

    from venus_rpa.automations.services import credential_set, login_session_save

    credential = credential_set(workspace=workspace, name="authz-login", domains=["127.0.0.1"],
                                fields={"username": "u", "password": "authz-password"})
    session = login_session_save(workspace=workspace, credential_name=credential.name, domain="127.0.0.1",
                                 state={"cookies": [], "origins": []}, allowed_domains=["127.0.0.1"],
                                 expires_at=timezone.now() + timedelta(days=1))
    return credential, session


def _url(name: str, values: dict) -> str:
    from django.urls import reverse

    route = _routes()[name]
    kwargs = {k: v for k, v in values.items() if f"<{k}>" in route or f":{k}>" in route}
    return reverse(name, kwargs=kwargs)


def _client(role: str, world: World, api: bool):
    if role == "anonymous":
        return Client()
    if api:
        from venus_rpa.accounts.selectors import workspace_default_for_user
        from venus_rpa.accounts.services import api_token_create

        user = world.users[role]
        _, raw = api_token_create(workspace=workspace_default_for_user(user=user), user=user, name="authz")
        return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return signed_in(world.users[role])


def _request(client: Client, method: str, name: str, url: str, api: bool):
    if api:
        return client.generic(method, url, "{}" if method != "GET" else "", content_type="application/json")
    return client.get(url) if method == "GET" else client.post(url, FORMS.get(name, {}))


def _expected(rule: str, role: str, api: bool, object_route: bool) -> str:
    if rule == "P":
        return "allowed"
    if role == "anonymous":
        return "401" if api else "login"
    if role == "outsider":
        # Our objects do not exist for them; a collection is their own workspace, where they own.
        return "404" if object_route else "allowed"
    return "allowed" if role in RULES[rule] else "403"


def _outcome(response, api: bool) -> str:
    status = response.status_code
    if status in (301, 302) and "/login/" in response.get("Location", ""):
        return "login"
    if status in (401, 403, 404):
        return str(status)
    assert status < 500, (status, response.content[:300])
    return "allowed"


def _cases():
    for name, methods in MATRIX.items():
        for method, rule in methods.items():
            yield pytest.param(name, method, rule, id=f"{method} {name}")


@pytest.mark.django_db
@pytest.mark.parametrize("name, method, rule", list(_cases()))
def test_route_answers_each_role_as_the_matrix_says(world, name, method, rule):
    api = not name.startswith("dashboard:")
    url = _url(name, world.values)
    object_route = "<" in _routes()[name]
    wrong = []
    for role in ROLES:
        expected = _expected(rule, role, api, object_route)
        with transaction.atomic():
            response = _request(_client(role, world, api), method, name, url, api)
            transaction.set_rollback(True)
        actual = _outcome(response, api)
        if actual != expected:
            wrong.append(f"{role}: expected {expected}, got {response.status_code}")
    assert not wrong, f"{method} {url}: " + "; ".join(wrong)
