"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from channels.auth import AuthMiddlewareStack
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "venus_rpa.settings")
django_asgi_app = get_asgi_application()

from venus_rpa.routing import websocket_urlpatterns  # noqa: E402  (needs apps loaded)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
