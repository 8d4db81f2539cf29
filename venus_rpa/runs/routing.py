"""Websocket routes (the live run page arrives with the dashboard issue)."""

websocket_urlpatterns: list = []
