"""A Celery worker's Prometheus endpoint (step and model latency histograms of this worker).

Off by default. With VENUS_WORKER_METRICS_PORT set, the worker's main process serves
prometheus_client's default registry on VENUS_WORKER_METRICS_ADDR:PORT once it is ready. Agent
workers run the `threads` pool, so every step is observed in that one process. A prefork worker
must set PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode) for its children's
metrics to be served; this module then aggregates them. Each worker on a host needs its own port.
Importing this module only connects signal handlers: it is safe before Django is set up.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings  # lazy: read when the worker is ready
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    multiprocess,
    start_http_server,
)

logger = logging.getLogger(__name__)
_server: Any = None


def metrics_server_start(*, port: int, addr: str = "127.0.0.1") -> Any:
    """Serve this process's metrics (or the multiprocess directory's) on addr:port; returns the
    server, or None when the port cannot be bound (logged; the worker keeps running)."""
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    try:
        server, _thread = start_http_server(port, addr=addr, registry=registry)
    except OSError as exc:
        logger.error("worker metrics: cannot listen on %s:%s (%s); metrics stay off", addr, port, exc)
        return None
    logger.info("worker metrics on http://%s:%s/metrics", addr, server.server_port)
    return server


@worker_ready.connect(dispatch_uid="venus_rpa.pools.worker_metrics.start")
def _on_worker_ready(**kwargs: Any) -> None:
    global _server
    port = settings.VENUS_WORKER_METRICS_PORT
    if port and _server is None:
        _server = metrics_server_start(port=port, addr=settings.VENUS_WORKER_METRICS_ADDR)


@worker_shutdown.connect(dispatch_uid="venus_rpa.pools.worker_metrics.stop")
def _on_worker_shutdown(**kwargs: Any) -> None:
    global _server
    if _server is not None:
        _server.shutdown()
        _server.server_close()
        _server = None
