"""Websocket routes of the dashboard (included by `venus_rpa.runs.routing`)."""

from django.urls import path

from venus_rpa.dashboard.consumers import RunConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunConsumer.as_asgi()),
]
