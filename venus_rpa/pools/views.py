"""The web's Prometheus endpoint: django-prometheus' exporter plus the database gauges.

Access: callers on loopback (a Prometheus beside the web process, or an SSH tunnel), and anyone
sending `Authorization: Bearer <VENUS_METRICS_TOKEN>`. Others get 404 when no token is set (the
endpoint does not exist for them) and 401 when one is.
"""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django_prometheus.exports import ExportToDjangoView
from prometheus_client import generate_latest

from venus_rpa.pools.metrics import DB_REGISTRY


def metrics_access(request: HttpRequest) -> bool:
    """True when the caller may read the metrics: a valid bearer token, or a loopback address
    while VENUS_METRICS_ALLOW_LOOPBACK is on."""
    token = settings.VENUS_METRICS_TOKEN
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return True
    if not settings.VENUS_METRICS_ALLOW_LOOPBACK:
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR") or "").is_loopback
    except ValueError:
        return False


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not metrics_access(request):
        if not settings.VENUS_METRICS_TOKEN:
            raise Http404()
        response = HttpResponse("A valid metrics token is required.\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    process = ExportToDjangoView(request)
    response = HttpResponse(process.content + generate_latest(DB_REGISTRY), content_type=process["Content-Type"])
    response["Cache-Control"] = "no-store"
    return response
