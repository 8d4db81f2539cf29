"""Django settings for the practice site (standalone; no database, no venus_rpa imports)."""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent


def _env_flag(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable such as ``PRACTICE_DEBUG=1``."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


# A fixed key is acceptable here: the practice site is a throwaway demo target with a
# published password, holding no real data, so there is nothing a forged cookie could
# expose. A stable key also keeps sign-ins valid across restarts during demos.
SECRET_KEY = "practice-site-not-a-secret-do-not-reuse"  # noqa: S105

DEBUG = _env_flag("PRACTICE_DEBUG")

# Extra hosts (e.g. a docker-compose service name) can be added without code changes.
ALLOWED_HOSTS = ["127.0.0.1", "localhost"] + [
    host.strip()
    for host in os.environ.get("PRACTICE_ALLOWED_HOSTS", "").split(",")
    if host.strip()
]

# The single demo account automations sign in with.
PRACTICE_USER = os.environ.get("PRACTICE_USER", "demo")
PRACTICE_PASSWORD = os.environ.get("PRACTICE_PASSWORD", "demo-password")

# A second account with two-step sign-in: after the password, /login/code asks for the one-time
# code of an authenticator app set up with this TOTP secret (base32; a practice value, public).
PRACTICE_2FA_USER = os.environ.get("PRACTICE_2FA_USER", "otp-demo")
PRACTICE_2FA_PASSWORD = os.environ.get("PRACTICE_2FA_PASSWORD", "otp-demo-password")
PRACTICE_2FA_SECRET = os.environ.get("PRACTICE_2FA_SECRET", "VQZ3DYJ7NCMX4LHWT5EKGRAUBP2SIO6F")

# Test hook: GET /api/captcha/<challenge_id> returns a CAPTCHA's expected answer. It defeats
# the CAPTCHAs by design, so it is off unless PRACTICE_TEST_HOOKS=1 (tests start the site
# with it); never enable it where the site is exposed to automations under evaluation.
PRACTICE_TEST_HOOKS = _env_flag("PRACTICE_TEST_HOOKS")

# No auth/admin/contenttypes: the site must run without a database.
INSTALLED_APPS: list[str] = []
DATABASES: dict[str, dict[str, str]] = {}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "practice.sessions.EndedSessionsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Sessions live in a signed cookie so no session table (or any database) is needed.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_NAME = "practice_session"
SESSION_COOKIE_HTTPONLY = True

ROOT_URLCONF = "practice.urls"
WSGI_APPLICATION = "practice.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "practice.context.current_user",
            ],
        },
    },
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# Receipts above 5 MB are rejected by the form; let Django spool big uploads to disk.
RECEIPT_MAX_BYTES = 5 * 1024 * 1024
