"""Prometheus metrics of runs, steps, the model server and pools (docs/scaling.md lists them).

Two kinds:
- Process metrics, in prometheus_client's default registry: step phase and model latency
  histograms, observed by a `post_save` receiver on `Step` in whichever process stores the step
  (an agent worker), and exported by that worker's metrics server (`worker_metrics`).
- Database gauges (runs by status, queued wait, waits for people, leases, pool resources, broker
  queue depth), read at scrape time by `DatabaseCollector`. Only the web's `/metrics` exports
  `DB_REGISTRY`, so N workers do not report the same rows N times.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import redis
from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from venus_rpa.pools import selectors
from venus_rpa.pools.models import ResourceKind
from venus_rpa.runs.models import Step
from venus_rpa.runs.queues import surface_queues

logger = logging.getLogger(__name__)

# Seconds: a DOM action takes milliseconds, a model call seconds, a slow page load up to a minute.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160)

STEP_PHASE_SECONDS = Histogram(
    "venus_step_phase_seconds", "Time a recorded step spent per phase (observe, model, act).",
    ["phase", "kind"], buckets=_LATENCY_BUCKETS)
STEPS = Counter("venus_steps", "Steps recorded, by step kind and status.", ["kind", "status"])
MODEL_REQUEST_SECONDS = Histogram(
    "venus_model_request_seconds", "Latency of model-server calls made by agent steps, retries included.",
    buckets=_LATENCY_BUCKETS)
MODEL_TOKENS = Counter("venus_model_tokens", "Tokens used by model-server calls.", ["type"])
CAPTCHA_ATTEMPTS = Counter(
    "venus_captcha_attempts", "CAPTCHA attempts by widget kind, solver (local, model, human) and outcome "
    "(passed, unverified, failed, error, abstained: the local solver was not sure and handed it on).",
    ["kind", "solver", "outcome"])


def step_observe(step: Step) -> None:
    """Record one stored step's timings (the Step row keeps milliseconds) and model usage."""
    STEPS.labels(kind=step.kind, status=step.status).inc()
    if step.kind == "captcha" and isinstance(step.action, dict):
        CAPTCHA_ATTEMPTS.labels(kind=str(step.action.get("kind", "")), solver=str(step.action.get("solver", "")),
                                outcome=str(step.action.get("outcome", ""))).inc()
    for phase in ("observe", "model", "act"):
        value_ms = float(getattr(step, f"{phase}_ms") or 0)
        if value_ms > 0 or phase != "model":
            STEP_PHASE_SECONDS.labels(phase=phase, kind=step.kind).observe(value_ms / 1000)
    model = step.model if isinstance(step.model, dict) else {}
    if model.get("latency_ms") is not None:
        MODEL_REQUEST_SECONDS.observe(float(model["latency_ms"]) / 1000)
    for kind in ("prompt", "completion"):
        if isinstance(model.get(f"{kind}_tokens"), int):
            MODEL_TOKENS.labels(type=kind).inc(model[f"{kind}_tokens"])


@receiver(post_save, sender=Step, dispatch_uid="venus_rpa.pools.metrics.step_saved")
def _step_saved(sender, instance: Step, created: bool, **kwargs) -> None:
    if not created:
        return
    try:
        step_observe(instance)
    except Exception:  # metrics must never fail the run that stores the step
        logger.exception("could not record metrics of step %s", instance.pk)


class DatabaseCollector(Collector):
    """Gauges read from the database (and the broker's queue lengths) when Prometheus scrapes."""

    def collect(self) -> Iterator[Metric]:
        runs = GaugeMetricFamily("venus_runs", "Runs by status.", labels=["status"])
        for status, count in selectors.runs_count_by_status().items():
            runs.add_metric([status], count)
        yield runs
        yield GaugeMetricFamily("venus_runs_queued_oldest_age_seconds",
                                "How long the oldest queued run has waited.", value=selectors.runs_queued_oldest_age_s())
        waits = GaugeMetricFamily("venus_waits_for_people",
                                  "Pending requests for a person (risky-action reviews, CAPTCHAs, questions).",
                                  labels=["kind"])
        for kind, count in selectors.reviews_pending_by_kind().items():
            waits.add_metric([kind], count)
        yield waits
        yield from _pool_metrics()
        queues = _queue_lengths()
        if queues is not None:
            depth = GaugeMetricFamily("venus_queue_depth", "Messages waiting in a Celery queue.", labels=["queue"])
            for name, length in queues.items():
                depth.add_metric([name], length)
            yield depth


def _pool_metrics() -> Iterator[Metric]:
    leases = GaugeMetricFamily("venus_leases_active", "Active leases by resource kind.", labels=["kind"])
    counts = selectors.lease_counts_by_kind()
    for kind in ResourceKind.values:
        leases.add_metric([kind], counts.get(kind, 0))
    yield leases
    resources = GaugeMetricFamily("venus_pool_resources", "Pooled resources by kind and status.",
                                  labels=["kind", "status"])
    for (kind, status), count in sorted(selectors.pool_resource_counts().items()):
        resources.add_metric([kind, status], count)
    yield resources


def _queue_names() -> list[str]:
    return sorted({settings.CELERY_TASK_DEFAULT_QUEUE, *surface_queues().values()})


def _queue_lengths() -> dict[str, int] | None:
    """LLEN of each Celery queue on a Redis broker; None when the broker is not Redis or is down
    (the scrape still answers, without this gauge)."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    try:
        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return {name: int(client.llen(name)) for name in _queue_names()}
        finally:
            client.close()
    except redis.RedisError:
        logger.warning("metrics: the broker did not answer; queue depth left out")
        return None


DB_REGISTRY = CollectorRegistry()
DB_REGISTRY.register(DatabaseCollector())
