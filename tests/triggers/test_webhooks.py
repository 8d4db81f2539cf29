"""Inbound webhooks: signed POSTs start runs with mapped parameters; bad, missing, old and
replayed signatures start nothing; idempotency keys; the management API, roles, isolation."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.triggers.models import WebhookTrigger
from venus_rpa.triggers.signing import sign, signed_headers

LIST = "/api/webhooks/"
MAPPING = {"order_id": "data.order.id", "priority": "data.order.flags.0"}
PAYLOAD = {"event": "order.paid", "data": {"order": {"id": "1042", "flags": ["high"]}}}


def detail(trigger_id: int) -> str:
    return f"/api/webhooks/{trigger_id}/"


@pytest.fixture
def hook(owner, automation) -> dict:
    """A trigger created through the API: its JSON, secret included (shown this once)."""
    response = owner.post(LIST, {"automation": automation.slug, "name": "Shop orders", "param_mapping": MAPPING},
                          format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def post_hook(hook: dict, body: bytes, *, secret: str | None = None, timestamp: int | None = None,
              signature: str | None = None, client: APIClient | None = None, **headers):
    ts = int(time.time()) if timestamp is None else timestamp
    signed = signed_headers(secret or hook["secret"], body, timestamp=ts)
    meta = {"HTTP_X_VENUS_TIMESTAMP": signed["X-Venus-Timestamp"],
            "HTTP_X_VENUS_SIGNATURE": signature if signature is not None else signed["X-Venus-Signature"]}
    meta.update({f"HTTP_{k.upper().replace('-', '_')}": v for k, v in headers.items()})
    meta = {k: v for k, v in meta.items() if v != "-"}  # "-": leave the header out
    client = client or APIClient(enforce_csrf_checks=True)
    return client.post(f"/hooks/{hook['public_id']}/", data=body, content_type="application/json", **meta)


def body_of(payload) -> bytes:
    return json.dumps(payload).encode()


# --- receiving ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_signed_post_starts_a_webhook_run_with_mapped_params(hook, automation, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = post_hook(hook, body_of(PAYLOAD))

    assert response.status_code == 202, response.json()
    body = response.json()
    assert set(body) == {"run_id", "status", "url"}
    assert body["status"] == "queued"
    assert body["url"] == f"http://127.0.0.1:8000/api/runs/{body['run_id']}/"
    run = Run.objects.get(pk=body["run_id"])
    assert run.trigger == Trigger.WEBHOOK
    assert run.automation == automation
    assert run.params == {"order_id": "1042", "priority": "high"}
    assert run.created_by is None
    assert [c.__name__ for c in callbacks].count("runs_dispatch") == 1  # sent to the queue after commit


@pytest.mark.django_db
def test_absent_paths_fall_back_to_the_schema_defaults(hook):
    response = post_hook(hook, body_of({"data": {"order": {"id": "7"}}}))
    assert response.status_code == 202, response.json()
    assert Run.objects.get(pk=response.json()["run_id"]).params == {"order_id": "7", "priority": "low"}


@pytest.mark.django_db
def test_without_a_mapping_the_body_is_the_params(owner, automation):
    created = owner.post(LIST, {"automation": automation.slug, "name": "Direct"}, format="json").json()
    response = post_hook(created, body_of({"order_id": "99", "priority": "high"}))
    assert response.status_code == 202, response.json()
    assert Run.objects.get(pk=response.json()["run_id"]).params == {"order_id": "99", "priority": "high"}


@pytest.mark.django_db
@pytest.mark.parametrize(("case", "kwargs"), [
    ("wrong secret", {"secret": "whsec_not-the-secret"}),
    ("garbage signature", {"signature": "sha256=deadbeef"}),
    ("missing signature", {"signature": "-"}),
    ("missing timestamp", {"X-Venus-Timestamp": "-"}),
    ("six minutes old", {"timestamp_offset": -360}),
    ("six minutes ahead", {"timestamp_offset": 360}),
])
def test_a_bad_signature_is_401_and_starts_no_run(hook, case, kwargs):
    kwargs = dict(kwargs)
    if "timestamp_offset" in kwargs:
        kwargs["timestamp"] = int(time.time()) + kwargs.pop("timestamp_offset")
    response = post_hook(hook, body_of(PAYLOAD), **kwargs)

    error = assert_error(response, 401, "invalid_signature")
    assert error["message"]
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_signature_for_another_body_is_refused(hook):
    ts = int(time.time())
    forged = sign(hook["secret"], ts, body_of({"data": {"order": {"id": "1"}}}))
    response = post_hook(hook, body_of(PAYLOAD), timestamp=ts, signature=forged)
    assert_error(response, 401, "invalid_signature")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_replayed_signature_is_401_and_starts_no_second_run(hook):
    ts = int(time.time())
    first = post_hook(hook, body_of(PAYLOAD), timestamp=ts)
    assert first.status_code == 202, first.json()

    replay = post_hook(hook, body_of(PAYLOAD), timestamp=ts)

    error = assert_error(replay, 401, "invalid_signature")
    assert "used before" in error["message"]
    assert Run.objects.count() == 1


@pytest.mark.django_db
def test_without_the_replay_check_nothing_is_started(hook, settings):
    settings.REDIS_URL = "redis://127.0.0.1:9/0"  # nobody listens: fail closed
    assert_error(post_hook(hook, body_of(PAYLOAD)), 503, "unavailable")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_the_same_idempotency_key_twice_gives_one_run(hook):
    first = post_hook(hook, body_of(PAYLOAD), Idempotency_Key="order-1042-paid")
    # A retry is signed anew (a new timestamp): the signature differs, the key is the same.
    second = post_hook(hook, body_of(PAYLOAD), timestamp=int(time.time()) + 1, Idempotency_Key="order-1042-paid")

    assert first.status_code == 202, first.json()
    assert second.status_code == 200, second.json()
    assert second.json()["run_id"] == first.json()["run_id"]
    assert Run.objects.count() == 1
    other = post_hook(hook, body_of(PAYLOAD), timestamp=int(time.time()) + 2, Idempotency_Key="order-1043-paid")
    assert other.status_code == 202 and other.json()["run_id"] != first.json()["run_id"]


@pytest.mark.django_db
def test_idempotency_keys_belong_to_one_trigger(owner, hook, automation):
    second_hook = owner.post(LIST, {"automation": automation.slug, "name": "Other", "param_mapping": MAPPING},
                             format="json").json()
    first = post_hook(hook, body_of(PAYLOAD), Idempotency_Key="same-key")
    second = post_hook(second_hook, body_of(PAYLOAD), Idempotency_Key="same-key")
    assert first.status_code == second.status_code == 202
    assert Run.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_idempotency_key_start_one_run(hook, no_run_enqueue):
    barrier, responses = threading.Barrier(4), []

    def send(offset: int) -> None:
        try:
            barrier.wait()
            responses.append(post_hook(hook, body_of(PAYLOAD), timestamp=int(time.time()) + offset,
                                       Idempotency_Key="concurrent"))
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(r.status_code for r in responses) == [200, 200, 200, 202], [r.json() for r in responses]
    assert len({r.json()["run_id"] for r in responses}) == 1
    assert Run.objects.count() == 1
    assert len(no_run_enqueue) == 1


@pytest.mark.django_db
def test_malformed_json_is_400_with_a_body_error(hook):
    response = post_hook(hook, b'{"data": {"order": ')
    error = assert_error(response, 400, "invalid")
    assert error["fields"]["body"] == ["line 1, column 20: a value is expected here (text in double quotes, a number, "
                                      "true, false, null, [ or {)."]
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_params_that_fail_the_schema_are_400_with_field_errors_naming_the_body_path(hook):
    response = post_hook(hook, body_of({"data": {"order": {"id": "not-a-number", "flags": ["urgent"]}}}))

    error = assert_error(response, 400, "invalid")
    assert set(error["fields"]) == {"params.order_id", "params.priority"}
    assert "data.order.id" in error["fields"]["params.order_id"][0]
    assert "data.order.flags.0" in error["fields"]["params.priority"][0]
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_missing_required_param_is_400(hook):
    error = assert_error(post_hook(hook, body_of({"data": {}})), 400, "invalid")
    assert "params.order_id" in error["fields"]


@pytest.mark.django_db
def test_a_failed_request_does_not_claim_its_idempotency_key(hook):
    bad = post_hook(hook, body_of({"data": {}}), Idempotency_Key="k1")
    good = post_hook(hook, body_of(PAYLOAD), timestamp=int(time.time()) + 1, Idempotency_Key="k1")
    assert bad.status_code == 400
    assert good.status_code == 202, good.json()


@pytest.mark.django_db
def test_a_disabled_trigger_is_409_and_starts_no_run(owner, hook):
    assert owner.patch(detail(hook["id"]), {"enabled": False}, format="json").status_code == 200
    assert_error(post_hook(hook, body_of(PAYLOAD)), 409, "trigger_disabled")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_an_unknown_trigger_is_404(hook):
    assert_error(post_hook({**hook, "public_id": "nope"}, body_of(PAYLOAD)), 404, "not_found")


@pytest.mark.django_db
def test_a_session_cookie_does_not_matter_and_csrf_is_not_required(hook, personas):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(personas.owner)
    assert post_hook(hook, body_of(PAYLOAD), client=client).status_code == 202


# --- management API -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_create_returns_the_secret_once_and_stores_it_encrypted(owner, hook):
    assert hook["secret"].startswith("whsec_")
    assert hook["url"] == f"http://127.0.0.1:8000/hooks/{hook['public_id']}/"
    trigger = WebhookTrigger.objects.get(pk=hook["id"])
    assert hook["secret"] not in trigger.secret_ciphertext
    assert str(trigger.pk) != trigger.public_id and len(trigger.public_id) >= 20

    shown = owner.get(detail(hook["id"]))
    listed = owner.get(LIST)
    assert "secret" not in shown.json() and all("secret" not in item for item in listed.json()["results"])
    assert hook["secret"] not in shown.content.decode() + listed.content.decode()


@pytest.mark.django_db
def test_rotate_secret_returns_a_new_secret_and_the_old_one_stops_working(owner, hook):
    response = owner.post(f"{detail(hook['id'])}rotate-secret/")
    assert response.status_code == 200
    new_secret = response.json()["secret"]
    assert new_secret != hook["secret"]

    assert_error(post_hook(hook, body_of(PAYLOAD)), 401, "invalid_signature")
    assert post_hook(hook, body_of(PAYLOAD), secret=new_secret).status_code == 202


@pytest.mark.django_db
def test_patch_changes_the_mapping_and_validates_it(owner, hook):
    response = owner.patch(detail(hook["id"]), {"param_mapping": {"order_id": "id"}}, format="json")
    assert response.status_code == 200 and response.json()["param_mapping"] == {"order_id": "id"}

    error = assert_error(owner.patch(detail(hook["id"]), {"param_mapping": {"colour": "a.b", "order_id": "a..b"}},
                                     format="json"), 400, "invalid")
    assert set(error["fields"]) == {"param_mapping.colour", "param_mapping.order_id"}


@pytest.mark.django_db
def test_create_rejects_unknown_fields_and_automations(owner, automation, other_automation):
    error = assert_error(owner.post(LIST, {"automation": automation.slug, "name": "x", "secret": "mine"},
                                    format="json"), 400)
    assert error["fields"] == {"secret": ["Unknown field."]}
    error = assert_error(owner.post(LIST, {"automation": other_automation.slug, "name": "x"}, format="json"), 400)
    assert "automation" in error["fields"]


@pytest.mark.django_db
def test_delete_removes_the_trigger_and_its_url(owner, hook):
    assert owner.delete(detail(hook["id"])).status_code == 204
    assert_error(post_hook(hook, body_of(PAYLOAD)), 404)


@pytest.mark.django_db
def test_viewers_can_read_but_not_write(viewer, hook, automation):
    assert viewer.get(LIST).status_code == 200
    assert viewer.get(detail(hook["id"])).status_code == 200
    assert_error(viewer.post(LIST, {"automation": automation.slug, "name": "x"}, format="json"), 403)
    assert_error(viewer.patch(detail(hook["id"]), {"enabled": False}, format="json"), 403)
    assert_error(viewer.post(f"{detail(hook['id'])}rotate-secret/"), 403)
    assert_error(viewer.delete(detail(hook["id"])), 403)


@pytest.mark.django_db
def test_editors_can_write(editor, hook):
    assert editor.patch(detail(hook["id"]), {"name": "Renamed"}, format="json").json()["name"] == "Renamed"


@pytest.mark.django_db
def test_other_workspaces_get_404(outsider, hook):
    assert outsider.get(LIST).json()["results"] == []
    assert_error(outsider.get(detail(hook["id"])), 404)
    assert_error(outsider.patch(detail(hook["id"]), {"enabled": False}, format="json"), 404)
    assert_error(outsider.post(f"{detail(hook['id'])}rotate-secret/"), 404)
    assert_error(outsider.delete(detail(hook["id"])), 404)


@pytest.mark.django_db
def test_the_api_needs_authentication(hook):
    assert_error(APIClient().get(LIST), 401)
