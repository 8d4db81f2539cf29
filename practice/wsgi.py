"""WSGI entry point for the practice site."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

# Force (not setdefault): the surrounding environment may point at the main project.
os.environ["DJANGO_SETTINGS_MODULE"] = "practice.settings"

application = get_wsgi_application()
