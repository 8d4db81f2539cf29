"""Websocket routes of the dashboard (composed by the project-level `venus_rpa.routing`)."""

from django.urls import path

from venus_rpa.dashboard.consumers import RunConsumer, WorkspaceConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunConsumer.as_asgi()),
    path("ws/live/", WorkspaceConsumer.as_asgi()),
]
