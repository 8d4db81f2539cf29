"""The WSGI application, behind a stand-in for the shop's front proxy: every request arrives as the
staff user `admin` (REMOTE_USER), so the admin needs no sign-in page."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "enoteca_site.settings")
_django = get_wsgi_application()


def application(environ, start_response):
    environ["REMOTE_USER"] = "admin"
    return _django(environ, start_response)
