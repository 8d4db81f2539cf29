"""Websocket routes of the whole project (the ASGI application's `websocket` side).

Each app that serves websockets keeps its own `routing.py`; they are composed here, at project
level, so no app imports another for its routes.
"""

from venus_rpa.dashboard.routing import websocket_urlpatterns as dashboard_websockets

websocket_urlpatterns: list = [*dashboard_websockets]
