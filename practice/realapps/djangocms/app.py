"""django CMS (django-cms.org), a content management system, as a real-app target with 2FA.

Pinned: django CMS 3.11 on its own Django 4.2, in its own virtualenv (`.local/realapps/djangocms/
venv`, made by `_support.ensure_venv`), never mixed with the platform's packages. The admin
sign-in asks for a one-time code: django-two-factor-auth (TOTP devices of django-otp) guards the whole admin. The site is ours and
small (`site/`: settings, urls, one page template); `site/seed.py` migrates a SQLite database and
seeds a superuser with a TOTP device, a second staff user and three pages (one unpublished). The
seeded database is made once per recipe and copied for every server and every `reset()`, so each
run starts from the same state (and the TOTP device has not seen a code yet). Django's
`runserver` serves it on a free 127.0.0.1 port. Checks read the site's own SQLite database.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from practice.realapps._support import AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "djangocms"
PINS = [
    "Django==4.2.30", "django-cms==3.11.11", "djangocms-admin-style==3.3.1", "django-treebeard==4.8.0",
    "django-sekizai==4.1.0", "django-classy-tags==4.1.0", "packaging==26.4", "asgiref==3.13.0", "sqlparse==0.6.1",
    "typing_extensions==4.16.0",
    # 2FA: django-two-factor-auth on django-otp; its migrations import phonenumbers.
    "django-two-factor-auth==1.17.0", "django-otp==1.7.5", "django-formtools==2.6.1",
    "django-phonenumber-field==8.5.0", "phonenumberslite==9.0.42", "qrcode==7.4.2", "pypng==0.20220715.0",
]
USERNAME, PASSWORD = "admin", "Vq8-mR2d-Lx5w"  # random-looking: a fragment of it is masked in errors
TOTP_SECRET = "JBSWY3DPEHPK3PXPKRLGS4TQMFXHI2LO"  # the secret the site's setup QR code would hold
SITE = Path(__file__).resolve().parent / "site"


def ensure_installed() -> Path:
    """The site's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS)


def seeded_database(venv: Path) -> Path:
    """The seeded SQLite database, made once per recipe (about 3 s) and kept under .local."""
    site = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(SITE.rglob("*.py")))).hexdigest()
    return seeded(venv, (PINS, USERNAME, PASSWORD, TOTP_SECRET, site), lambda db: _seed(venv, db), suffix=".sqlite3")


def _seed(venv: Path, db: Path) -> None:
    run_tool([str(venv / "bin" / "python"), str(SITE / "seed.py")], cwd=SITE,
             env=_site_env(DJANGOCMS_DB=str(db), DJANGOCMS_ADMIN_PASSWORD=PASSWORD,
                           DJANGOCMS_TOTP_HEX=totp_key_hex(TOTP_SECRET)))


def _site_env(**extra: str) -> dict[str, str]:
    """The site's environment: ours without our Django settings or import path."""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")}
    return {**env, "DJANGO_SETTINGS_MODULE": "cmssite.settings", **extra}


def totp_key_hex(secret: str) -> str:
    """django-otp keeps a TOTP key as hex; authenticator apps (and our credentials) use base32."""
    return base64.b32decode(secret + "=" * (-len(secret) % 8)).hex()


class Server(AppServer):
    """The django CMS site on 127.0.0.1, seeded, reset on demand. Use as a context manager."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD
    totp_secret = TOTP_SECRET

    @property
    def db_path(self) -> Path:
        return self.workdir / "db.sqlite3"

    def credential_fields(self) -> dict[str, str]:
        """The fields of the sign-in credential: username, password and the TOTP secret."""
        return {**super().credential_fields(), "totp": self.totp_secret}

    def seed(self) -> None:
        copy_seed(seeded_database(self.venv), self.db_path)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), "manage.py", "runserver", f"127.0.0.1:{self.port}",
                     "--noreload"], ready="/account/login/", cwd=SITE,
                    env=_site_env(DJANGOCMS_DB=str(self.db_path), DJANGOCMS_MEDIA=str(self.workdir / "media")))

    # -- the app's own state, for checks -------------------------------------------------------
    def pages(self) -> dict[str, dict]:
        """Each page's draft by title: its slug, meta description, and whether it is published
        (django CMS 3 keeps a draft and, once published, a public copy of every page)."""
        rows = self.query("SELECT t.title, t.slug, t.meta_description, t.published, p.publisher_public_id "
                          "FROM cms_title t JOIN cms_page p ON p.id = t.page_id WHERE p.publisher_is_draft = 1")
        published = {row[0] for row in self.query(
            "SELECT t.page_id FROM cms_title t JOIN cms_page p ON p.id = t.page_id "
            "WHERE p.publisher_is_draft = 0 AND t.published = 1")}
        return {title: {"slug": slug, "description": description or "", "published": bool(public in published)}
                for title, slug, description, _, public in rows}

    def users(self) -> list[str]:
        return [row[0] for row in self.query("SELECT username FROM auth_user ORDER BY username")]

    def signed_in_with_code(self) -> bool:
        """The TOTP device accepted a code (django-otp records the time step it last accepted)."""
        return bool(self.query("SELECT 1 FROM otp_totp_totpdevice WHERE last_t > 0"))
