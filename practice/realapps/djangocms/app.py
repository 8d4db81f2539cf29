"""django CMS (django-cms.org), a content management system, as a real-app target with 2FA.

Pinned: django CMS 3.11 on its own Django 4.2, in its own virtualenv (`.local/realapps/djangocms/
venv`), never mixed with the platform's packages. The admin sign-in asks for a one-time code:
django-two-factor-auth (TOTP devices of django-otp) guards the whole admin. The site is ours and
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
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

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
ROOT = Path(__file__).resolve().parents[3]
LOCAL = Path(os.environ.get("VENUS_REALAPPS_DIR", ROOT / ".local" / "realapps")) / NAME


class InstallError(RuntimeError):
    """The site's virtualenv could not be made (no route to PyPI, a pin that is gone…)."""


def ensure_installed() -> Path:
    """The site's own virtualenv with exactly PINS; returns its directory. Idempotent: a stamp of
    the pins skips pip when nothing changed."""
    venv = LOCAL / "venv"
    stamp = venv / f".pins-{hashlib.sha256(' '.join(PINS).encode()).hexdigest()[:16]}"
    if stamp.is_file() and (venv / "bin" / "python").is_file():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    for cmd in ([sys.executable, "-m", "venv", str(venv)],
                [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", *PINS]):
        done = subprocess.run(cmd, capture_output=True, text=True)  # noqa: S603 — fixed argv, no shell
        if done.returncode != 0:
            tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise InstallError(f"{NAME}: `{' '.join(cmd[:4])} …` failed ({done.returncode}): {tail}")
    stamp.touch()
    return venv


def seeded_database(venv: Path) -> Path:
    """The seeded SQLite database, made once per recipe (about 3 s) and kept under .local."""
    recipe = hashlib.sha256(repr((PINS, USERNAME, PASSWORD, TOTP_SECRET)).encode()
                            + b"".join(p.read_bytes() for p in sorted(SITE.rglob("*.py")))).hexdigest()[:12]
    template = LOCAL / f"seeded-{recipe}.sqlite3"
    if not template.is_file():
        scratch = template.with_suffix(f".{os.getpid()}.tmp")
        scratch.unlink(missing_ok=True)
        done = subprocess.run([str(venv / "bin" / "python"), str(SITE / "seed.py")], cwd=SITE,  # noqa: S603
                              capture_output=True,
                              text=True, env=_site_env(DJANGOCMS_DB=str(scratch), DJANGOCMS_ADMIN_PASSWORD=PASSWORD,
                                                       DJANGOCMS_TOTP_HEX=totp_key_hex(TOTP_SECRET)))
        if done.returncode != 0:
            raise RuntimeError(f"seeding django CMS failed: {(done.stderr or done.stdout).strip()[-800:]}")
        scratch.rename(template)
    return template


def _site_env(**extra: str) -> dict[str, str]:
    """The site's environment: ours without our Django settings or import path."""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")}
    return {**env, "DJANGO_SETTINGS_MODULE": "cmssite.settings", **extra}


def totp_key_hex(secret: str) -> str:
    """django-otp keeps a TOTP key as hex; authenticator apps (and our credentials) use base32."""
    return base64.b32decode(secret + "=" * (-len(secret) % 8)).hex()


class Server:
    """The django CMS site on 127.0.0.1, seeded, reset on demand. Use as a context manager."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="venus-djangocms-"))
        self.db = self.workdir / "db.sqlite3"
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.username, self.password, self.totp_secret = USERNAME, PASSWORD, TOTP_SECRET

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def credential_fields(self) -> dict[str, str]:
        """The fields of the sign-in credential: username, password and the TOTP secret."""
        return {"username": self.username, "password": self.password, "totp": self.totp_secret}

    def start(self) -> "Server":
        from tests.helpers.servers import free_port, wait_http

        venv = ensure_installed()
        self.port = self.port or free_port()
        shutil.copyfile(seeded_database(venv), self.db)
        log = open(self.workdir / "server.log", "ab")
        with log:
            self.proc = subprocess.Popen(  # noqa: S603 — the site's own python, fixed argv
                [str(venv / "bin" / "python"), "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                cwd=SITE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=_site_env(PYTHONUNBUFFERED="1", DJANGOCMS_DB=str(self.db),
                              DJANGOCMS_MEDIA=str(self.workdir / "media")))
        wait_http(self.base_url + "/account/login/", timeout=30, proc=self.proc)
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def reset(self) -> None:
        """Back to the seeded state (the same port)."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the app's own state, for checks -------------------------------------------------------
    def query(self, sql: str, *args) -> list[tuple]:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            return db.execute(sql, args).fetchall()

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
