"""Websocket routes: the live run page's event stream (consumer in the dashboard app)."""

from venus_rpa.dashboard.routing import websocket_urlpatterns as dashboard_websockets

websocket_urlpatterns: list = [*dashboard_websockets]
