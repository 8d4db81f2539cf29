"""Outbound callbacks: a signed run.finished POST per matching endpoint when a run ends,
retried with backoff against a real local receiver, every attempt logged, resend, sweep,
the management API, roles and isolation."""

from __future__ import annotations

import json
import time

import pytest
from django.utils import timezone

from tests.api.conftest import assert_error
from tests.triggers.receiver import receiver_running
from venus_rpa.runs.models import Run, RunStatus
from venus_rpa.runs.services import run_finish
from venus_rpa.triggers import services
from venus_rpa.triggers.models import CallbackAttempt, CallbackDelivery, CallbackEndpoint, DeliveryStatus
from venus_rpa.triggers.services.callbacks import callbacks_on_run_finished
from venus_rpa.triggers.signing import verify

LIST = "/api/callbacks/"
DELIVERIES = "/api/callbacks/deliveries/"
CLOSED_PORT_URL = "http://127.0.0.1:9/nobody-listens"


def running_run(automation) -> Run:
    """A run that a worker is executing (made directly: nothing is sent to the agent queue)."""
    return Run.objects.create(workspace=automation.workspace, automation=automation,
                              version=automation.current_version, params={"order_id": "1"},
                              status=RunStatus.RUNNING, started_at=timezone.now())


def endpoint_make(automation_or_workspace, url: str, **kwargs) -> tuple[CallbackEndpoint, str]:
    workspace = getattr(automation_or_workspace, "workspace", automation_or_workspace)
    automation = automation_or_workspace if hasattr(automation_or_workspace, "workspace") else None
    return services.callback_endpoint_create(workspace=workspace, user=None, url=url, automation=automation, **kwargs)


def wait_for_delivery(delivery_filter: dict, status: str, timeout: float = 30.0) -> CallbackDelivery:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        delivery = CallbackDelivery.objects.filter(**delivery_filter).first()
        if delivery is not None and delivery.status == status:
            return delivery
        time.sleep(0.1)
    found = list(CallbackDelivery.objects.filter(**delivery_filter).values())
    raise AssertionError(f"no {status} delivery for {delivery_filter}: {found}")


# --- through a real worker ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_callback_is_retried_after_a_failing_receiver_and_delivered_once_it_recovers(default_worker, automation):
    with receiver_running(fail_first=2) as receiver:
        endpoint, secret = endpoint_make(automation, receiver.url)
        run = running_run(automation)

        assert run_finish(run_id=run.pk, status=RunStatus.SUCCEEDED, reason="all steps passed",
                          output={"reference": "EXP-1042"}, verdict={"passed": True})

        delivery = wait_for_delivery({"run": run, "endpoint": endpoint}, DeliveryStatus.DELIVERED)
        requests = receiver.wait_for(3)

    assert [r.answered for r in requests] == [500, 500, 200]
    assert delivery.attempts == 3 and delivery.last_status_code == 200 and delivery.last_error == ""
    attempts = list(CallbackAttempt.objects.filter(delivery=delivery))
    assert [a.status_code for a in attempts] == [500, 500, 200]
    assert "HTTP 500" in attempts[0].error and attempts[2].error == ""
    assert all(a.duration_ms > 0 for a in attempts)
    assert attempts[1].at - attempts[0].at >= timezone.timedelta(seconds=0.2)  # backoff between attempts

    last = requests[-1]
    verify(secret, last.headers["X-Venus-Timestamp"], last.body, last.headers["X-Venus-Signature"])
    assert last.headers["X-Venus-Event"] == "run.finished"
    assert last.headers["X-Venus-Delivery"] == str(delivery.pk)
    payload = json.loads(last.body)
    assert payload == {
        "event": "run.finished",
        "run": {"id": run.pk, "automation": automation.slug, "status": "succeeded",
                "status_reason": "all steps passed", "output": {"reference": "EXP-1042"}, "verdict": {"passed": True},
                "started_at": payload["run"]["started_at"], "finished_at": payload["run"]["finished_at"]},
        "links": {"api": f"http://127.0.0.1:8000/api/runs/{run.pk}/",
                  "dashboard": payload["links"]["dashboard"]},
    }
    assert payload["run"]["finished_at"] and str(run.pk) in payload["links"]["dashboard"]
    assert secret not in last.body.decode() and "order_id" not in last.body.decode()


@pytest.mark.django_db(transaction=True)
def test_resend_delivers_a_failed_delivery(default_worker, automation, owner):
    with receiver_running() as receiver:
        endpoint, secret = endpoint_make(automation, receiver.url)
        run = running_run(automation)
        Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, finished_at=timezone.now())
        delivery = CallbackDelivery.objects.create(
            endpoint=endpoint, run=run, status=DeliveryStatus.FAILED, attempts=5, last_error="ConnectError",
            payload=services.callbacks.run_payload(Run.objects.get(pk=run.pk)),
        )

        response = owner.post(f"{DELIVERIES}{delivery.pk}/resend/")

        assert response.status_code == 202, response.json()
        assert response.json()["status"] == "pending" and response.json()["attempts"] == 0
        delivered = wait_for_delivery({"pk": delivery.pk}, DeliveryStatus.DELIVERED)
        (request,) = receiver.wait_for(1)
    assert delivered.attempts == 1
    verify(secret, request.headers["X-Venus-Timestamp"], request.body, request.headers["X-Venus-Signature"])
    assert json.loads(request.body)["run"]["status"] == "failed"


# --- the attempt service, synchronously -----------------------------------------------------------


@pytest.fixture
def fast_retries(settings):
    settings.VENUS_CALLBACK_MAX_ATTEMPTS = 3
    settings.VENUS_CALLBACK_BACKOFF_SECONDS = 0
    settings.VENUS_CALLBACK_TIMEOUT_SECONDS = 0.5


def finished_delivery(endpoint: CallbackEndpoint) -> CallbackDelivery:
    """End a new run of the endpoint's automation; its pending delivery to that endpoint."""
    run = running_run(endpoint.automation)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.SUCCEEDED, finished_at=timezone.now())
    (delivery,) = [d for d in callbacks_on_run_finished(run_id=run.pk) if d.endpoint_id == endpoint.pk]
    return delivery


def delivery_for(automation, url: str) -> tuple[CallbackDelivery, str]:
    endpoint, secret = endpoint_make(automation, url)
    return finished_delivery(endpoint), secret


@pytest.mark.django_db
def test_it_gives_up_after_the_last_attempt_and_logs_every_one(automation, fast_retries):
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)

    results = [services.callback_delivery_attempt(delivery_id=delivery.pk) for _ in range(4)]

    assert [r.status if r else None for r in results] == ["pending", "pending", "failed", None]
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.next_attempt_at is None
    assert "ConnectError" in delivery.last_error
    log = list(delivery.attempt_log.all())
    assert len(log) == 3 and all(a.status_code is None and "ConnectError" in a.error for a in log)


@pytest.mark.django_db
def test_a_slow_receiver_is_a_timeout_and_is_retried(automation, fast_retries):
    with receiver_running(delay_s=1.5) as receiver:
        delivery, _ = delivery_for(automation, receiver.url)
        result = services.callback_delivery_attempt(delivery_id=delivery.pk)
    assert result.status == DeliveryStatus.PENDING
    assert "Timeout" in result.last_error and result.attempt_log.get().status_code is None


@pytest.mark.django_db
def test_an_attempt_that_is_not_due_or_not_pending_is_skipped(automation, settings):
    settings.VENUS_CALLBACK_BACKOFF_SECONDS = 60
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)
    assert services.callback_delivery_attempt(delivery_id=delivery.pk).status == DeliveryStatus.PENDING
    assert services.callback_delivery_attempt(delivery_id=delivery.pk) is None  # next attempt in 60 s
    assert delivery.attempt_log.count() == 1


@pytest.mark.django_db
def test_exponential_backoff(settings):
    from venus_rpa.triggers.services.callbacks import backoff_seconds

    settings.VENUS_CALLBACK_BACKOFF_SECONDS = 2
    assert [backoff_seconds(n) for n in (1, 2, 3, 4)] == [2, 4, 8, 16]


@pytest.mark.django_db
def test_resend_after_failure_sends_again_and_keeps_the_attempt_log(automation, fast_retries, owner):
    with receiver_running(fail_first=3) as receiver:
        delivery, secret = delivery_for(automation, receiver.url)
        for _ in range(3):
            services.callback_delivery_attempt(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED and delivery.last_status_code == 500

        assert owner.post(f"{DELIVERIES}{delivery.pk}/resend/").status_code == 202
        result = services.callback_delivery_attempt(delivery_id=delivery.pk)

    assert result.status == DeliveryStatus.DELIVERED and result.attempts == 1
    assert [a.status_code for a in result.attempt_log.all()] == [500, 500, 500, 200]


@pytest.mark.django_db
def test_a_pending_delivery_cannot_be_resent(automation, owner):
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)
    assert_error(owner.post(f"{DELIVERIES}{delivery.pk}/resend/"), 409, "conflict")


# --- which endpoints get a delivery ---------------------------------------------------------------


@pytest.mark.django_db
def test_run_finish_creates_one_delivery_per_matching_enabled_endpoint(automation, other_automation, personas,
                                                                       django_capture_on_commit_callbacks):
    from tests.triggers.conftest import automation_make

    sibling = automation_make(personas.workspace, personas.owner, slug="refund-order")
    for_all, _ = endpoint_make(personas.workspace, "https://hooks.example.com/all")
    for_this, _ = endpoint_make(automation, "https://hooks.example.com/this")
    endpoint_make(sibling, "https://hooks.example.com/sibling")
    endpoint_make(automation, "https://hooks.example.com/disabled", enabled=False)
    endpoint_make(other_automation, "https://hooks.example.com/globex")
    run = running_run(automation)

    with django_capture_on_commit_callbacks(execute=True):
        run_finish(run_id=run.pk, status=RunStatus.FAILED, reason="boom")
        run_finish(run_id=run.pk, status=RunStatus.SUCCEEDED, reason="too late")  # already ended: no-op

    deliveries = CallbackDelivery.objects.filter(run=run)
    assert {d.endpoint for d in deliveries} == {for_all, for_this}
    assert all(d.status == DeliveryStatus.PENDING and d.payload["run"]["status"] == "failed" for d in deliveries)


@pytest.mark.django_db
def test_the_sweep_creates_deliveries_for_runs_that_ended_without_run_finish(automation):
    endpoint, _ = endpoint_make(automation, "https://hooks.example.com/x")
    run = running_run(automation)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, status_reason="worker lost",
                                         finished_at=timezone.now())
    old_run = running_run(automation)
    Run.objects.filter(pk=old_run.pk).update(status=RunStatus.FAILED, finished_at=endpoint.created_at
                                             - timezone.timedelta(seconds=1))

    assert services.callbacks_sweep() == 1
    assert services.callbacks_sweep() == 0
    delivery = CallbackDelivery.objects.get()
    assert delivery.run == run and delivery.payload["run"]["status_reason"] == "worker lost"


# --- management API -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_create_returns_the_secret_once(owner, automation):
    response = owner.post(LIST, {"url": "https://hooks.example.com/venus", "automation": automation.slug},
                          format="json")

    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["secret"].startswith("cbsec_") and created["automation"] == automation.slug
    assert created["secret"] not in CallbackEndpoint.objects.get().secret_ciphertext
    shown, listed = owner.get(f"{LIST}{created['id']}/").json(), owner.get(LIST).json()
    assert "secret" not in shown and all("secret" not in item for item in listed["results"])

    rotated = owner.post(f"{LIST}{created['id']}/rotate-secret/").json()["secret"]
    assert rotated != created["secret"]


@pytest.mark.django_db
def test_an_endpoint_for_all_automations_and_patching_it(owner, automation):
    created = owner.post(LIST, {"url": "https://hooks.example.com/all"}, format="json").json()
    assert created["automation"] is None

    patched = owner.patch(f"{LIST}{created['id']}/", {"automation": automation.slug, "enabled": False}, format="json")
    assert patched.json()["automation"] == automation.slug and patched.json()["enabled"] is False
    assert owner.patch(f"{LIST}{created['id']}/", {"automation": None}, format="json").json()["automation"] is None
    assert owner.delete(f"{LIST}{created['id']}/").status_code == 204
    assert not CallbackEndpoint.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["ftp://files.example.com/x", "not a url", "javascript:alert(1)"])
def test_a_bad_url_is_400(owner, url):
    error = assert_error(owner.post(LIST, {"url": url}, format="json"), 400, "invalid")
    assert "url" in error["fields"]


@pytest.mark.django_db
def test_deliveries_are_listed_by_run_with_their_attempts(owner, automation, fast_retries):
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)
    services.callback_delivery_attempt(delivery_id=delivery.pk)
    finished_delivery(delivery.endpoint)  # another run's delivery

    response = owner.get(DELIVERIES, {"run": delivery.run_id})

    assert response.status_code == 200
    (item,) = response.json()["results"]
    assert item["id"] == delivery.pk and item["run"] == delivery.run_id and item["status"] == "pending"
    assert len(item["attempt_log"]) == 1 and "ConnectError" in item["attempt_log"][0]["error"]
    assert item["payload"]["event"] == "run.finished"
    assert owner.get(DELIVERIES).json()["count"] == 2
    assert owner.get(DELIVERIES, {"endpoint": delivery.endpoint_id, "status": "pending"}).json()["count"] == 2
    assert_error(owner.get(DELIVERIES, {"run": "abc"}), 400)


@pytest.mark.django_db
def test_viewers_can_read_but_not_write(viewer, owner, automation):
    created = owner.post(LIST, {"url": "https://hooks.example.com/all"}, format="json").json()
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)
    assert viewer.get(LIST).status_code == 200 and viewer.get(DELIVERIES).status_code == 200
    assert_error(viewer.post(LIST, {"url": "https://hooks.example.com/v"}, format="json"), 403)
    assert_error(viewer.patch(f"{LIST}{created['id']}/", {"enabled": False}, format="json"), 403)
    assert_error(viewer.post(f"{LIST}{created['id']}/rotate-secret/"), 403)
    CallbackDelivery.objects.filter(pk=delivery.pk).update(status=DeliveryStatus.FAILED)
    assert_error(viewer.post(f"{DELIVERIES}{delivery.pk}/resend/"), 403)


@pytest.mark.django_db
def test_other_workspaces_get_404(outsider, owner, automation):
    created = owner.post(LIST, {"url": "https://hooks.example.com/all"}, format="json").json()
    delivery, _ = delivery_for(automation, CLOSED_PORT_URL)
    assert outsider.get(LIST).json()["results"] == [] and outsider.get(DELIVERIES).json()["count"] == 0
    assert_error(outsider.get(f"{LIST}{created['id']}/"), 404)
    assert_error(outsider.delete(f"{LIST}{created['id']}/"), 404)
    assert_error(outsider.get(f"{DELIVERIES}{delivery.pk}/"), 404)
    assert_error(outsider.post(f"{DELIVERIES}{delivery.pk}/resend/"), 404)
    assert CallbackEndpoint.objects.filter(pk=created["id"]).exists()
