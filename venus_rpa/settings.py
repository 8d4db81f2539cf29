"""Django settings for Venus RPA, read from the environment with safe local defaults.

Embedded defaults (no configuration): a SQLite file in `.local/` (WAL, immediate transactions),
Redis on 127.0.0.1:6379, keys generated into `.local/`. Production sets DATABASE_URL,
REDIS_URL, DJANGO_SECRET_KEY and VENUS_CREDENTIAL_KEY.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from cryptography.fernet import Fernet

from venus_rpa.env import env_bool, env_float, env_int, env_list, env_str, local_secret, token_urlsafe

BASE_DIR = Path(__file__).resolve().parent.parent
LOCAL_DIR = Path(env_str("VENUS_LOCAL_DIR", str(BASE_DIR / ".local")))

SECRET_KEY = local_secret("DJANGO_SECRET_KEY", LOCAL_DIR / "secret_key", generate=token_urlsafe)
CREDENTIAL_KEY = local_secret(
    "VENUS_CREDENTIAL_KEY", LOCAL_DIR / "credential.key", generate=lambda: Fernet.generate_key().decode()
)
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "django_celery_beat",
    "channels",
    "django_htmx",
    "venus_rpa.core",
    "venus_rpa.accounts",
    "venus_rpa.automations",
    "venus_rpa.runs",
    "venus_rpa.reviews",
    "venus_rpa.triggers",
    "venus_rpa.dashboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "venus_rpa.urls"
ASGI_APPLICATION = "venus_rpa.asgi.application"
WSGI_APPLICATION = "venus_rpa.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "frontend" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]


def _database() -> dict:
    url = env_str("DATABASE_URL")
    if url:
        return dj_database_url.parse(url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60), conn_health_checks=True)
    # Embedded default: one SQLite file shared by web and workers. WAL lets readers run beside
    # the writer; IMMEDIATE transactions take the write lock up front, so concurrent writers wait
    # (busy timeout) instead of failing with "database is locked" half-way through.
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": LOCAL_DIR / "venus.sqlite3",
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
STATIC_ROOT = LOCAL_DIR / "static"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("VENUS_MEDIA_ROOT", str(LOCAL_DIR / "media")))
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL]},
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "venus_rpa.accounts.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "venus_rpa.core.api.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Venus RPA API",
    "DESCRIPTION": "Automations, runs and their steps. Every object is scoped to the caller's workspace.",
    "VERSION": "0.1.0",
}

# Celery: two queues; agent runs go to workers that hold a browser.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ROUTES = {"venus_rpa.runs.tasks.run_execute_task": {"queue": "agent"}}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}

# Runs
VENUS_HEARTBEAT_SECONDS = env_float("VENUS_HEARTBEAT_SECONDS", 5.0)
VENUS_HEARTBEAT_STALE_SECONDS = env_float("VENUS_HEARTBEAT_STALE_SECONDS", 60.0)
VENUS_SWEEP_SECONDS = env_float("VENUS_SWEEP_SECONDS", 30.0)
VENUS_CHROMIUM_PATH = env_str("VENUS_CHROMIUM_PATH", "/usr/bin/chromium")
VENUS_HEADLESS = env_bool("VENUS_HEADLESS", True)
VENUS_PRACTICE_URL = env_str("VENUS_PRACTICE_URL", "http://127.0.0.1:8001")
VENUS_PUBLIC_URL = env_str("VENUS_PUBLIC_URL", "http://127.0.0.1:8000")
# Flower, the Celery dashboard, linked from the dashboard's devices page.
VENUS_FLOWER_URL = env_str("VENUS_FLOWER_URL", "http://127.0.0.1:5555/")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

CELERY_BEAT_SCHEDULE = {
    "runs-sweep-stale": {"task": "venus_rpa.runs.tasks.runs_sweep_task", "schedule": VENUS_SWEEP_SECONDS},
    "triggers-callbacks-sweep": {
        "task": "venus_rpa.triggers.tasks.callbacks_sweep_task", "schedule": VENUS_SWEEP_SECONDS,
    },
}

# Triggers: signed webhooks in, signed run.finished callbacks out (docs/webhooks.md).
VENUS_WEBHOOK_TOLERANCE_SECONDS = env_int("VENUS_WEBHOOK_TOLERANCE_SECONDS", 300)
VENUS_CALLBACK_MAX_ATTEMPTS = env_int("VENUS_CALLBACK_MAX_ATTEMPTS", 5)
VENUS_CALLBACK_BACKOFF_SECONDS = env_float("VENUS_CALLBACK_BACKOFF_SECONDS", 2.0)  # then 4, 8, 16…
VENUS_CALLBACK_TIMEOUT_SECONDS = env_float("VENUS_CALLBACK_TIMEOUT_SECONDS", 10.0)

# The UI-Venus model server (vLLM's OpenAI-compatible API). Unset: agent steps fail at start.
VENUS_MODEL_URL = env_str("VENUS_MODEL_URL")
VENUS_MODEL = env_str("VENUS_MODEL", "ui-venus-2")
VENUS_API_KEY = env_str("VENUS_API_KEY")
VENUS_MODEL_TIMEOUT = env_float("VENUS_MODEL_TIMEOUT", 120.0)
VENUS_MODEL_TRIES = env_int("VENUS_MODEL_TRIES", 3)
VENUS_HISTORY_IMAGES = env_int("VENUS_HISTORY_IMAGES", 2)
VENUS_MAX_PIXELS = env_int("VENUS_MAX_PIXELS", 0)  # 0: send screenshots at full size
VENUS_PROMPT_DIR = env_str("VENUS_PROMPT_DIR")
VENUS_NAV_TEMPERATURE = env_float("VENUS_NAV_TEMPERATURE", 0.6)
VENUS_NAV_MAX_TOKENS = env_int("VENUS_NAV_MAX_TOKENS", 4096)
VENUS_ANSWER_TIMEOUT_SECONDS = env_float("VENUS_ANSWER_TIMEOUT_SECONDS", 3600.0)
VENUS_CAPTCHA_REVIEW_SECONDS = env_float("VENUS_CAPTCHA_REVIEW_SECONDS", 900.0)
# Safety reviews: how long a run waiting for a reviewer keeps its live browser session; past this
# the session is saved and the browser context freed, and restored when the decision arrives.
VENUS_REVIEW_HOLD_SECONDS = env_float("VENUS_REVIEW_HOLD_SECONDS", 600.0)
