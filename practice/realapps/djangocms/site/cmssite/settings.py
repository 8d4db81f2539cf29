"""A minimal django CMS 3.11 site with two-factor sign-in, used as a third-party test target.

It runs in its own virtualenv (Django 4.2) on 127.0.0.1 only; DJANGOCMS_DB names its SQLite file.
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = "test-target-only-not-a-secret"
DEBUG = True  # runserver serves the static files; the site never leaves loopback
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
SITE_ID = 1

INSTALLED_APPS = [
    "djangocms_admin_style",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.admin",
    "django.contrib.sites",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "cms",
    "menus",
    "treebeard",
    "sekizai",
    "django_otp",
    "django_otp.plugins.otp_static",
    "django_otp.plugins.otp_totp",
    "two_factor",
    "cmssite",
]

MIDDLEWARE = [
    "cms.middleware.utils.ApphookReloadMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "cms.middleware.user.CurrentUserMiddleware",
    "cms.middleware.page.CurrentPageMiddleware",
    "cms.middleware.toolbar.ToolbarMiddleware",
    "cms.middleware.language.LanguageCookieMiddleware",
]

ROOT_URLCONF = "cmssite.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [BASE_DIR / "templates"],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.template.context_processors.i18n",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
        "sekizai.context_processors.sekizai",
        "cms.context_processors.cms_settings",
    ]},
}]

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3",
                         "NAME": os.environ.get("DJANGOCMS_DB", str(BASE_DIR.parent / "db.sqlite3"))}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
MEDIA_URL = "/media/"
MEDIA_ROOT = os.environ.get("DJANGOCMS_MEDIA", str(BASE_DIR.parent / "media"))
X_FRAME_OPTIONS = "SAMEORIGIN"  # django CMS opens its forms in frames of its own pages

CMS_TEMPLATES = [("page.html", "Page")]
CMS_PERMISSION = False
CMS_TOOLBAR_ANONYMOUS_ON = False  # no toolbar sign-in form: every sign-in goes through two-factor

# Every sign-in asks for the one-time code (django-two-factor-auth); the admin requires it.
LOGIN_URL = "two_factor:login"
LOGIN_REDIRECT_URL = "/admin/"
