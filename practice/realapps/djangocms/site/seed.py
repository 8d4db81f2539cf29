"""Create the test site's database: migrate, then a superuser with a TOTP device, a second staff
user, and three pages. Run with the site's own virtualenv:
`DJANGOCMS_DB=... DJANGOCMS_ADMIN_PASSWORD=... DJANGOCMS_TOTP_HEX=... python seed.py`."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cmssite.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sites.models import Site  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django_otp.plugins.otp_totp.models import TOTPDevice  # noqa: E402

from cms.api import create_page  # noqa: E402


def main() -> None:
    call_command("migrate", verbosity=0, interactive=False)
    admin = User.objects.create_superuser("admin", "admin@example.com", os.environ["DJANGOCMS_ADMIN_PASSWORD"])
    TOTPDevice.objects.create(user=admin, name="default", key=os.environ["DJANGOCMS_TOTP_HEX"],
                              confirmed=True)
    User.objects.create_user("temp-editor", "temp-editor@example.com", "temp-editor-password", is_staff=True,
                             first_name="Tess", last_name="Temp")
    Site.objects.filter(pk=1).update(domain="127.0.0.1", name="Example CMS")
    create_page("Home", "page.html", "en", published=True, in_navigation=True).set_as_homepage()
    create_page("About us", "page.html", "en", published=True, in_navigation=True)
    create_page("Spring sale", "page.html", "en", published=False, in_navigation=True)


if __name__ == "__main__":
    main()
