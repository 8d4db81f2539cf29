"""Django settings for Venus RPA, read from the environment with safe local defaults.

Embedded defaults (no configuration): a SQLite file in `.local/` (WAL, immediate transactions),
Redis on 127.0.0.1:6379, keys generated into `.local/`. Production sets DATABASE_URL,
REDIS_URL, DJANGO_SECRET_KEY and VENUS_CREDENTIAL_KEY.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from redis.asyncio.retry import Retry as RedisRetry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError, TimeoutError as RedisTimeoutError
from cryptography.fernet import Fernet
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from venus_rpa.env import env_bool, env_float, env_int, env_list, env_str, local_secret, token_urlsafe

BASE_DIR = Path(__file__).resolve().parent.parent
LOCAL_DIR = Path(env_str("VENUS_LOCAL_DIR", str(BASE_DIR / ".local")))

SECRET_KEY = local_secret("DJANGO_SECRET_KEY", LOCAL_DIR / "secret_key", generate=token_urlsafe)
CREDENTIAL_KEY = local_secret(
    "VENUS_CREDENTIAL_KEY", LOCAL_DIR / "credential.key", generate=lambda: Fernet.generate_key().decode()
)
# Off unless a developer turns it on (DJANGO_DEBUG=1); even then error pages hide secrets
# (DEFAULT_EXCEPTION_REPORTER_FILTER below).
DEBUG = env_bool("DJANGO_DEBUG", False)
# Form bodies: the automation editor posts two fields per closed step row (dashboard.step_lines),
# so a 10,000-step automation is about 20,000 fields; Django's default of 1,000 refused any
# editor form past about 25 open rows. Bodies stay bounded by DATA_UPLOAD_MAX_MEMORY_SIZE.
DATA_UPLOAD_MAX_NUMBER_FIELDS = env_int("DJANGO_DATA_UPLOAD_MAX_NUMBER_FIELDS", 50_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DJANGO_DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024)
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
    "drf_spectacular_sidecar",  # Swagger UI assets served from here, not a CDN
    "csp",
    "axes",
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
    "venus_rpa.pools",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "venus_rpa.core.middleware.StaticFilesMiddleware",  # whitenoise
    "venus_rpa.core.middleware.JsonBodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes requires: refuses sign-ins for a locked-out username + address.
    "axes.middleware.AxesMiddleware",
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

# django-axes first: it counts failed sign-ins (dashboard and admin) and refuses locked-out ones.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
STATIC_ROOT = Path(env_str("VENUS_STATIC_ROOT", str(LOCAL_DIR / "static")))
# whitenoise serves /static/. `collectstatic` (scripts/up.sh, the Dockerfile) writes compressed
# copies into STATIC_ROOT and sets VENUS_STATIC_COLLECTED=1 so they are served; without it (a plain
# checkout, the tests) files are served from the source folders, always current.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = not env_bool("VENUS_STATIC_COLLECTED", False)
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("VENUS_MEDIA_ROOT", str(LOCAL_DIR / "media")))
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# --- Web security ------------------------------------------------------------------------------
DEFAULT_EXCEPTION_REPORTER_FILTER = "venus_rpa.core.debug.VenusExceptionReporterFilter"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Served over https (directly or behind a TLS proxy that sets X-Forwarded-Proto; docker-compose.yml
# turns it on): cookies only travel over https, and browsers are told to stay on https (HSTS).
VENUS_HTTPS = env_bool("VENUS_HTTPS", env_str("VENUS_PUBLIC_URL").startswith("https://"))
if VENUS_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("VENUS_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("VENUS_HSTS_INCLUDE_SUBDOMAINS", False)
    # Usually the proxy redirects http to https; the health check stays reachable over http.
    SECURE_SSL_REDIRECT = env_bool("VENUS_SSL_REDIRECT", False)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# Content-Security-Policy (django-csp 4 format): scripts and styles only from our own static
# files; style attributes stay allowed (step marks are positioned with them). htmx is local.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],  # includes the same-origin websocket (CSP level 3)
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Sign-in throttling (django-axes): 5 failed sign-ins for one username from one address lock
# that pair out for VENUS_LOGIN_COOLOFF_MINUTES. API tokens do not sign in and are not counted.
AXES_FAILURE_LIMIT = env_int("VENUS_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("VENUS_LOGIN_COOLOFF_MINUTES", 15.0))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "venus_rpa.accounts.lockout.lockout_response"
AXES_VERBOSE = False

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")

# The channel layer's connections outlive a Redis restart: a command on a connection Redis closed
# reconnects and is retried (with backoff, about 3 s in all) instead of failing once per pooled
# connection, and idle connections are health-checked before use.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [{
            "address": REDIS_URL,
            "retry": RedisRetry(ExponentialBackoff(cap=1.0, base=0.05), 6),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError, OSError],
            "health_check_interval": 10,
            "socket_keepalive": True,
        }]},
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
    # JSON bodies are bounded in size (413) and nesting depth (400) before they are parsed.
    "DEFAULT_PARSER_CLASSES": [
        "venus_rpa.core.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Venus RPA API",
    "DESCRIPTION": "Automations, runs and their steps. Every object is scoped to the caller's workspace.",
    "VERSION": "0.1.0",
    # /api/docs/ loads Swagger UI from drf-spectacular-sidecar's static files (no CDN).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: one queue per surface for runs (web: agent, android, desktop) and `default` for the rest.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Runs and parked runs' continuations go to their surface's queue, whichever process sends them (the
# web process, a worker whose run ended or parked and so admitted the next one, beat); see
# venus_rpa/runs/queues.py and docs/surfaces.md. A worker serves the surfaces of the queues it consumes.
VENUS_AGENT_QUEUE = env_str("VENUS_AGENT_QUEUE", "agent")  # web runs (browser pool)
VENUS_ANDROID_QUEUE = env_str("VENUS_ANDROID_QUEUE", "android")  # Android runs (leased devices)
VENUS_DESKTOP_QUEUE = env_str("VENUS_DESKTOP_QUEUE", "desktop")  # desktop runs (leased displays)
CELERY_TASK_ROUTES = ("venus_rpa.runs.queues.route_run_task",)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A message a worker took and never acknowledged (the worker was killed) goes back to its queue
# after this long. Kept short: a redelivered message of a run still in progress is a no-op
# (run_claim), and the runs sweep re-sends or drops a dead worker's messages sooner
# (VENUS_QUEUED_STALE_SECONDS); the hour Celery suggests would park them that long.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("VENUS_BROKER_VISIBILITY_TIMEOUT", 600)}

# Runs
VENUS_HEARTBEAT_SECONDS = env_float("VENUS_HEARTBEAT_SECONDS", 5.0)
VENUS_HEARTBEAT_STALE_SECONDS = env_float("VENUS_HEARTBEAT_STALE_SECONDS", 60.0)
VENUS_SWEEP_SECONDS = env_float("VENUS_SWEEP_SECONDS", 30.0)
# Recovery (venus_rpa.runs.recovery): a queued run whose broker message has been gone this long
# is sent again, at most VENUS_REQUEUE_MAX times in all; a run whose worker was lost is retried
# (after its last journaled action) until it has run VENUS_RUN_MAX_ATTEMPTS times.
VENUS_QUEUED_STALE_SECONDS = env_float("VENUS_QUEUED_STALE_SECONDS", 60.0)
VENUS_REQUEUE_MAX = env_int("VENUS_REQUEUE_MAX", 3)
VENUS_RUN_MAX_ATTEMPTS = env_int("VENUS_RUN_MAX_ATTEMPTS", 2)
# Fair concurrency (venus_rpa/runs/admission.py, docs/scaling.md): how many runs of one workspace
# may hold a worker slot at once (an owner may set 1..VENUS_RUNS_PER_WORKSPACE_MAX for their
# workspace), and how many runs of all workspaces together (0: no platform cap; set it to the
# agent workers' total concurrency so the dispatcher, not Celery's FIFO, picks who goes next).
VENUS_RUNS_PER_WORKSPACE = env_int("VENUS_RUNS_PER_WORKSPACE", 8)
VENUS_RUNS_PER_WORKSPACE_MAX = env_int("VENUS_RUNS_PER_WORKSPACE_MAX", 64)
# Runs with items (runs.items, docs/workflows.md): at most this many items per run, and an items
# file (CSV/XLSX) of at most this many bytes.
VENUS_ITEMS_MAX = env_int("VENUS_ITEMS_MAX", 1000)
VENUS_ITEMS_FILE_MAX_BYTES = env_int("VENUS_ITEMS_FILE_MAX_BYTES", 1024 * 1024)
# Run parameters (runs.services.params_validate: API, dashboard, schedules, webhooks, CLI): a value
# of at most this many characters (an array or object: of JSON), at most this many parameters, and
# at most this many bytes of JSON together. Larger input is refused (400), no run is created.
VENUS_PARAM_MAX_CHARS = env_int("VENUS_PARAM_MAX_CHARS", 10_000)
VENUS_PARAMS_MAX_KEYS = env_int("VENUS_PARAMS_MAX_KEYS", 100)
VENUS_PARAMS_MAX_BYTES = env_int("VENUS_PARAMS_MAX_BYTES", 64 * 1024)
# Files (runs.run_files, docs/workflows.md "Files"): a download larger than this is refused (nothing
# of it is stored); an input file given at launch is at most this large.
VENUS_DOWNLOAD_MAX_BYTES = env_int("VENUS_DOWNLOAD_MAX_BYTES", 50 * 1024 * 1024)
VENUS_INPUT_FILE_MAX_BYTES = env_int("VENUS_INPUT_FILE_MAX_BYTES", 10 * 1024 * 1024)
VENUS_RUNS_MAX_ACTIVE = env_int("VENUS_RUNS_MAX_ACTIVE", 0)
VENUS_CHROMIUM_PATH = env_str("VENUS_CHROMIUM_PATH", "/usr/bin/chromium")
VENUS_HEADLESS = env_bool("VENUS_HEADLESS", True)
# The browser pool of each agent worker process (workers/envs/pool.py; docs/scaling.md). Keep
# BROWSERS x CONTEXTS_PER_BROWSER >= the worker's --concurrency, or runs wait for a free slot (a run
# whose for_each block has lanes uses one context per lane when one is free: docs/workflows.md).
VENUS_BROWSERS_PER_WORKER = env_int("VENUS_BROWSERS_PER_WORKER", 2)
VENUS_CONTEXTS_PER_BROWSER = env_int("VENUS_CONTEXTS_PER_BROWSER", 4)
VENUS_BROWSER_RECYCLE_RUNS = env_int("VENUS_BROWSER_RECYCLE_RUNS", 200)
VENUS_BROWSER_MEMORY_CEILING_MB = env_float("VENUS_BROWSER_MEMORY_CEILING_MB", 1500.0)  # 0: no ceiling
VENUS_BROWSER_CRASH_POLICY = env_str("VENUS_BROWSER_CRASH_POLICY", "fail")  # or "retry" (once, on a new browser)
if min(VENUS_BROWSERS_PER_WORKER, VENUS_CONTEXTS_PER_BROWSER, VENUS_BROWSER_RECYCLE_RUNS) < 1:
    raise ImproperlyConfigured("VENUS_BROWSERS_PER_WORKER, VENUS_CONTEXTS_PER_BROWSER and VENUS_BROWSER_RECYCLE_RUNS must be at least 1")
if VENUS_BROWSER_CRASH_POLICY not in ("fail", "retry"):
    raise ImproperlyConfigured(f"VENUS_BROWSER_CRASH_POLICY must be 'fail' or 'retry', not {VENUS_BROWSER_CRASH_POLICY!r}")
VENUS_BROWSER_HEALTH_SECONDS = env_float("VENUS_BROWSER_HEALTH_SECONDS", 30.0)
VENUS_BROWSER_ACQUIRE_TIMEOUT_SECONDS = env_float("VENUS_BROWSER_ACQUIRE_TIMEOUT_SECONDS", 300.0)
VENUS_BROWSER_IDLE_CLOSE_SECONDS = env_float("VENUS_BROWSER_IDLE_CLOSE_SECONDS", 300.0)
VENUS_PRACTICE_URL = env_str("VENUS_PRACTICE_URL", "http://127.0.0.1:8001")
VENUS_PUBLIC_URL = env_str("VENUS_PUBLIC_URL", "http://127.0.0.1:8000")
# Flower, the Celery dashboard, linked from the dashboard's devices page.
# Empty: Flower on port 5555 of the host the dashboard was reached on (dashboard.flower_url).
VENUS_FLOWER_URL = env_str("VENUS_FLOWER_URL", "")

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
    # Admission runs whenever a run is created or frees its slot; this tick is the safety net for
    # a trigger lost with its process (docs/scaling.md, "Fair concurrency").
    "runs-dispatch": {"task": "venus_rpa.runs.tasks.runs_dispatch_task", "schedule": VENUS_SWEEP_SECONDS},
    "triggers-callbacks-sweep": {
        "task": "venus_rpa.triggers.tasks.callbacks_sweep_task", "schedule": VENUS_SWEEP_SECONDS,
    },
    # Parked runs: expired reviews and unanswered questions end them per policy; lost continuations re-sent.
    "reviews-sweep": {"task": "venus_rpa.reviews.tasks.reviews_sweep_task", "schedule": VENUS_SWEEP_SECONDS},
    "runs-waits-sweep": {"task": "venus_rpa.runs.tasks.runs_waits_sweep_task", "schedule": VENUS_SWEEP_SECONDS},
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
# Judge models that vote on a finished run's whole trace (issue 16, docs/verification.md): a JSON
# list of {"name", "url", "model", "api_key_env"}; operator-set only (an automation names judges, never
# URLs). With a model server configured, "ui-venus" (the same server) is always available.
VENUS_JUDGES = env_str("VENUS_JUDGES")
VENUS_JUDGE_TIMEOUT = env_float("VENUS_JUDGE_TIMEOUT", 60.0)
VENUS_JUDGE_SCREENSHOTS = env_int("VENUS_JUDGE_SCREENSHOTS", 3)
# Step judges (docs/verification.md#step-judges): names among those judges asked about single agent
# actions the step evaluator leaves undecided or weakly decided, comma-separated; empty (default): off.
VENUS_STEP_JUDGES = env_str("VENUS_STEP_JUDGES")
VENUS_STEP_JUDGE_TIMEOUT = env_float("VENUS_STEP_JUDGE_TIMEOUT", 15.0)
VENUS_ANSWER_TIMEOUT_SECONDS = env_float("VENUS_ANSWER_TIMEOUT_SECONDS", 3600.0)
VENUS_CAPTCHA_REVIEW_SECONDS = env_float("VENUS_CAPTCHA_REVIEW_SECONDS", 900.0)
# Durable waits: how long a run waiting for a person (a risky-action review, a CAPTCHA, the agent's
# question) keeps its worker thread and live browser session. A decision within it resumes the run
# in place; past it the run is parked (session and position saved encrypted, thread and browser
# freed) and the decision enqueues its continuation on any worker.
VENUS_REVIEW_HOLD_SECONDS = env_float("VENUS_REVIEW_HOLD_SECONDS", 20.0)
# A parked desktop or Android run keeps its display / device leased (the application's state
# survives) for at most this long without a worker; it is released as soon as the run ends.
VENUS_PARKED_LEASE_SECONDS = env_float("VENUS_PARKED_LEASE_SECONDS", 7 * 24 * 3600.0)
# Persistent logins: a saved sign-in session is offered to runs for at most this long (sooner when
# its cookies expire sooner, or when the automation's signed-in check finds it signed out).
VENUS_LOGIN_SESSION_MAX_AGE_SECONDS = env_float("VENUS_LOGIN_SESSION_MAX_AGE_SECONDS", 7 * 24 * 3600.0)

# --- API contract (issue 9): the OpenAPI document describes what the API really does ----------
# Bounded limit/offset pages; errors, bearer tokens and paged lists described (venus_rpa.core.schema).
REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "venus_rpa.core.schema.ApiSchema"
REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"] = "venus_rpa.core.pagination.Pagination"
SPECTACULAR_SETTINGS.update({
    "DESCRIPTION": "Automations, runs and their steps. Every object is scoped to the caller's workspace; "
                   'errors have the shape {"error": {"code", "message", "fields"}}.',
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_INCLUDE_SCHEMA": False,
    # The API is documented as JSON only: form bodies cannot express its nested objects.
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    "ENUM_NAME_OVERRIDES": {
        "SurfaceEnum": "venus_rpa.automations.models.Surface",
        "RunStatusEnum": "venus_rpa.runs.models.RunStatus",
        "ReviewStatusEnum": "venus_rpa.reviews.models.ReviewStatus",
        "DeliveryStatusEnum": "venus_rpa.triggers.models.DeliveryStatus",
    },
})

# --- Regex & policy governance (issue 9, helper "regex") ---------------------------------------
# The workspace audit log (who lowered an automation's safety review, when, before/after).
INSTALLED_APPS += ["venus_rpa.audit"]

# --- Leases and metrics (issue 10, helper "leases & observability") ----------------------------
# Pooled-resource leases are reclaimed by beat beside the runs sweep (venus_rpa/pools).
CELERY_BEAT_SCHEDULE["pools-leases-reclaim"] = {
    "task": "venus_rpa.pools.tasks.leases_reclaim_task", "schedule": VENUS_SWEEP_SECONDS,
}
# Prometheus (docs/scaling.md): django-prometheus counts requests around every other middleware;
# /metrics answers loopback callers and bearers of VENUS_METRICS_TOKEN, nobody else.
INSTALLED_APPS += ["django_prometheus"]
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    *MIDDLEWARE,
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]
VENUS_METRICS_TOKEN = env_str("VENUS_METRICS_TOKEN")
# Off behind a reverse proxy on the same host, where every caller looks like loopback.
VENUS_METRICS_ALLOW_LOOPBACK = env_bool("VENUS_METRICS_ALLOW_LOOPBACK", True)
# A worker's own metrics server (step and model latency histograms); 0 leaves it off.
VENUS_WORKER_METRICS_PORT = env_int("VENUS_WORKER_METRICS_PORT", 0)
VENUS_WORKER_METRICS_ADDR = env_str("VENUS_WORKER_METRICS_ADDR", "127.0.0.1")

# --- Egress (issue 9, helper "egress") ---------------------------------------------------------
# Runs' browsers and outbound callbacks reach public addresses only. Loopback, private,
# link-local and cloud-metadata destinations are refused unless listed here: host names, IP
# addresses or CIDR networks, each optionally with ":port", comma-separated
# (e.g. "127.0.0.1:8001" for the practice site). Empty in production.
VENUS_EGRESS_ALLOW_PRIVATE = env_list("VENUS_EGRESS_ALLOW_PRIVATE", [])

# --- Android devices (issue 11; docs/surfaces.md) ---------------------------------------------
# The device registry (venus_rpa.devices); runs lease a device from it (workers.envs.android).
INSTALLED_APPS += ["venus_rpa.devices"]
# adb servers devices may be registered on ("host:port", comma-separated): workers connect only there.
VENUS_ADB_SERVERS = env_list("VENUS_ADB_SERVERS", ["127.0.0.1:5037"])
VENUS_ANDROID_ACQUIRE_TIMEOUT_SECONDS = env_float("VENUS_ANDROID_ACQUIRE_TIMEOUT_SECONDS", 60.0)
VENUS_ANDROID_LEASE_TTL_SECONDS = env_float("VENUS_ANDROID_LEASE_TTL_SECONDS", 60.0)
VENUS_ANDROID_HEARTBEAT_SECONDS = env_float("VENUS_ANDROID_HEARTBEAT_SECONDS", 10.0)
VENUS_ANDROID_ADB_TIMEOUT_SECONDS = env_float("VENUS_ANDROID_ADB_TIMEOUT_SECONDS", 20.0)
# A pause after each action before the next screenshot, for devices with slow animations.
VENUS_ANDROID_SETTLE_SECONDS = env_float("VENUS_ANDROID_SETTLE_SECONDS", 0.0)
VENUS_ANDROID_HEALTH_SECONDS = env_float("VENUS_ANDROID_HEALTH_SECONDS", 30.0)
CELERY_BEAT_SCHEDULE["devices-health"] = {
    "task": "venus_rpa.devices.tasks.devices_health_task", "schedule": VENUS_ANDROID_HEALTH_SECONDS,
}

# --- The desktop surface (issue 11; docs/surfaces.md) ------------------------------------------
# Desktop runs lease an X display of this machine (pool kind "display", tag host = hostname) and
# start a fresh session on it: a throwaway HOME whose Documents folder is seeded from
# VENUS_DESKTOP_SEED_DIR (the practice files; empty to seed nothing).
VENUS_DESKTOP_SIZE = env_str("VENUS_DESKTOP_SIZE", "1280x800")
VENUS_DESKTOP_SEED_DIR = env_str("VENUS_DESKTOP_SEED_DIR", str(BASE_DIR / "practice" / "desktop" / "seed"))
VENUS_DESKTOP_ACQUIRE_TIMEOUT_SECONDS = env_float("VENUS_DESKTOP_ACQUIRE_TIMEOUT_SECONDS", 60.0)
VENUS_DESKTOP_LEASE_SECONDS = env_float("VENUS_DESKTOP_LEASE_SECONDS", 60.0)
VENUS_DESKTOP_HOST = env_str("VENUS_DESKTOP_HOST", "")  # the display pool's host tag; default: hostname

# --- Step picker (issue 12, helper "step picker") ----------------------------------------------
# The editor's "Pick on page": a short job on the agent queue snapshots the page a step acts on
# (venus_rpa/picker). Snapshots are shown to the workspace's owners and editors until they expire.
INSTALLED_APPS += ["venus_rpa.picker"]
# Trajectory export (docs/datasets.md): no models of its own.
INSTALLED_APPS += ["venus_rpa.datasets"]
VENUS_PICKER_TTL_SECONDS = env_float("VENUS_PICKER_TTL_SECONDS", 900.0)
VENUS_PICKER_TIMEOUT_SECONDS = env_float("VENUS_PICKER_TIMEOUT_SECONDS", 90.0)
CELERY_BEAT_SCHEDULE["picker-sweep"] = {"task": "venus_rpa.picker.tasks.picker_sweep_task", "schedule": 300.0}

# --- Notifications when a review waits (issue 15, helper "live") ------------------------------
# Members choose their channels on the dashboard (e-mail to their account's address, a
# Slack/Teams-compatible incoming webhook); notices are sent by the default queue's workers.
INSTALLED_APPS += ["venus_rpa.notifications"]
VENUS_NOTIFY_TIMEOUT_SECONDS = env_float("VENUS_NOTIFY_TIMEOUT_SECONDS", 5.0)
VENUS_NOTIFY_MAX_ATTEMPTS = env_int("VENUS_NOTIFY_MAX_ATTEMPTS", 3)
VENUS_NOTIFY_BACKOFF_SECONDS = env_float("VENUS_NOTIFY_BACKOFF_SECONDS", 5.0)  # then 10, 20…
# Django's e-mail backend (SMTP by default). Links in notices use VENUS_PUBLIC_URL.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "127.0.0.1")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Venus RPA <venus@localhost>")
