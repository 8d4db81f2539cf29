"""The Prometheus endpoints: who may read /metrics, what the gauges and histograms report, and
the worker's own metrics server."""

from __future__ import annotations

import socket
import urllib.request
from datetime import timedelta

import pytest
import redis
from celery.signals import worker_ready, worker_shutdown
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from tests.pools.conftest import make_run
from venus_rpa.pools import services, worker_metrics
from venus_rpa.runs.models import Run, Step

pytestmark = pytest.mark.django_db
REMOTE = "203.0.113.9"  # documentation range: only put into REMOTE_ADDR, never connected to


def _samples(body: bytes) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body.decode()) for s in family.samples}


def test_loopback_callers_read_the_metrics(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    names = {name for name, _ in _samples(response.content)}
    assert {"venus_runs", "venus_leases_active", "venus_waits_for_people"} <= names
    assert any(name.startswith("django_http_requests") for name in names)  # django-prometheus


def test_anonymous_remote_callers_get_not_found(client, settings):
    settings.VENUS_METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR=REMOTE).status_code == 404
    assert client.get("/metrics", REMOTE_ADDR=REMOTE, HTTP_AUTHORIZATION="Bearer guess").status_code == 404


def test_remote_callers_need_the_metrics_token(client, settings):
    settings.VENUS_METRICS_TOKEN = "s3cret-scrape-token"
    anonymous = client.get("/metrics", REMOTE_ADDR=REMOTE)
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"].startswith("Bearer")
    assert b"venus_runs" not in anonymous.content
    assert client.get("/metrics", REMOTE_ADDR=REMOTE, HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    granted = client.get("/metrics", REMOTE_ADDR=REMOTE, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")
    assert granted.status_code == 200 and b"venus_runs" in granted.content


def test_loopback_trust_can_be_turned_off_behind_a_local_proxy(client, settings):
    settings.VENUS_METRICS_TOKEN, settings.VENUS_METRICS_ALLOW_LOOPBACK = "tok", False
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer tok").status_code == 200


def test_metrics_only_answer_get(client):
    assert client.post("/metrics").status_code == 405


def test_gauges_count_runs_waits_and_leases(client, workspace):
    from venus_rpa.reviews.models import ReviewRequest

    queued = make_run(workspace, slug="queued", status="queued")
    Run.objects.filter(pk=queued.pk).update(created_at=timezone.now() - timedelta(seconds=90))
    waiting = make_run(workspace, slug="waiting", status="awaiting_review")
    ReviewRequest.objects.create(workspace=workspace, run=waiting, kind="risky_action", title="Pay",
                                 expires_at=timezone.now() + timedelta(hours=1))
    services.pool_resource_register(kind="display", key=":99")
    services.pool_resource_register(kind="display", key=":100")
    services.lease_acquire(kind="display", holder="agent@a", run_id=waiting.pk, ttl_s=60)

    samples = _samples(client.get("/metrics").content)
    assert samples[("venus_runs", (("status", "queued"),))] == 1
    assert samples[("venus_runs", (("status", "awaiting_review"),))] == 1
    assert samples[("venus_runs", (("status", "succeeded"),))] == 0
    assert samples[("venus_runs_queued_oldest_age_seconds", ())] >= 90
    assert samples[("venus_waits_for_people", (("kind", "risky_action"),))] == 1
    assert samples[("venus_leases_active", (("kind", "display"),))] == 1
    assert samples[("venus_leases_active", (("kind", "device"),))] == 0
    assert samples[("venus_pool_resources", (("kind", "display"), ("status", "available")))] == 2


def test_queue_depth_is_read_from_the_broker(client, settings):
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = broker.llen("agent")
    broker.lpush("agent", b"{}")
    try:
        samples = _samples(client.get("/metrics").content)
    finally:
        broker.lrem("agent", 1, b"{}")
    assert samples[("venus_queue_depth", (("queue", "agent"),))] == before + 1
    assert ("venus_queue_depth", (("queue", "default"),)) in samples


def test_a_broker_that_does_not_answer_leaves_queue_depth_out(client, settings):
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{unused.getsockname()[1]}/0"
        response = client.get("/metrics")
    assert response.status_code == 200
    names = {name for name, _ in _samples(response.content)}
    assert "venus_runs" in names and "venus_queue_depth" not in names


def _value(name: str, labels: dict | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


def test_a_stored_step_feeds_the_latency_histograms(run):
    phase = {"phase": "model", "kind": "agent"}
    count, slow = _value("venus_step_phase_seconds_count", phase), _value("venus_step_phase_seconds_bucket",
                                                                          {**phase, "le": "1.0"})
    model_count = _value("venus_model_request_seconds_count")
    tokens = _value("venus_model_tokens_total", {"type": "prompt"})
    step = Step.objects.create(run=run, index=0, kind="agent", status="ok", started_at=timezone.now(),
                               observe_ms=120, model_ms=1800, act_ms=40,
                               model={"latency_ms": 1750.0, "prompt_tokens": 900, "completion_tokens": 40})
    assert _value("venus_step_phase_seconds_count", phase) == count + 1
    assert _value("venus_step_phase_seconds_bucket", {**phase, "le": "1.0"}) == slow  # 1.8 s is above 1 s
    assert _value("venus_step_phase_seconds_sum", {"phase": "act", "kind": "agent"}) >= 0.04
    assert _value("venus_model_request_seconds_count") == model_count + 1
    assert _value("venus_model_tokens_total", {"type": "prompt"}) == tokens + 900
    assert _value("venus_steps_total", {"kind": "agent", "status": "ok"}) >= 1
    step.status = "failed"
    step.save()  # an update is not a new step
    assert _value("venus_step_phase_seconds_count", phase) == count + 1


def test_captcha_steps_count_attempts_by_solver_and_outcome_abstentions_included(run):
    labels = {"kind": "ocr", "solver": "local", "outcome": "abstained"}
    before = _value("venus_captcha_attempts_total", labels)
    Step.objects.create(run=run, index=0, kind="captcha", status="failed", started_at=timezone.now(),
                        error="abstained: confidence 0.05 < 0.20",
                        action={"kind": "ocr", "solver": "local", "attempt": 1, "outcome": "abstained"})
    Step.objects.create(run=run, index=1, kind="captcha", status="succeeded", started_at=timezone.now(),
                        action={"kind": "ocr", "solver": "model", "attempt": 2, "outcome": "passed"})
    assert _value("venus_captcha_attempts_total", labels) == before + 1
    assert _value("venus_captcha_attempts_total", {**labels, "solver": "model", "outcome": "passed"}) >= 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_worker_serves_its_metrics_once_ready_when_a_port_is_set(settings, run):
    settings.VENUS_WORKER_METRICS_PORT, settings.VENUS_WORKER_METRICS_ADDR = _free_port(), "127.0.0.1"
    Step.objects.create(run=run, index=0, kind="click", status="ok", started_at=timezone.now(), act_ms=30)
    worker_ready.send(sender=None)
    try:
        url = f"http://127.0.0.1:{settings.VENUS_WORKER_METRICS_PORT}/metrics"
        body = urllib.request.urlopen(url, timeout=5).read()
    finally:
        worker_shutdown.send(sender=None)
    assert b'venus_step_phase_seconds_count{kind="click",phase="act"}' in body
    assert b"venus_runs{" not in body  # database gauges are the web's job
    assert worker_metrics._server is None


def test_a_worker_without_a_port_serves_nothing(settings):
    settings.VENUS_WORKER_METRICS_PORT = 0
    worker_ready.send(sender=None)
    assert worker_metrics._server is None


def test_a_busy_port_leaves_worker_metrics_off_without_failing(caplog):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert worker_metrics.metrics_server_start(port=busy.getsockname()[1]) is None
    assert "metrics stay off" in caplog.text
