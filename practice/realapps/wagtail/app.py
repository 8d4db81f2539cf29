"""Wagtail (wagtail.org), a Django content-management system, as a real-app target for the
second independent step-evaluator set (tests/helpers/effect_cases_holdout2.py). No `tasks.py`:
nothing in CI installs it; `benchmarks/step_evaluator_holdout.py` does.

Pinned: Wagtail 7.0.3 on Django 5.2 in `.local/holdout-apps/wagtail/venv`. The site is the
project Wagtail's own generator makes (`wagtail start acme`), migrated and given a superuser by
Django's `manage.py` tools, then seeded with a short script on Wagtail's model API (two child
pages of the home page, a collection, a second user). Served by `manage.py runserver` (the
generated dev settings: DEBUG on, static files served) on a free 127.0.0.1 port; `reset()` puts
back the seeded state. Checks read its SQLite database.
"""

from __future__ import annotations

import os
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "wagtail"
VENV_ROOT = HOLDOUT_ROOT
PINS = ["wagtail==7.0.3", "Django==5.2.19", "django-modelcluster==6.5", "django-treebeard==4.8.0",
        "django-taggit==6.1.0", "Willow==1.12.0", "pillow==11.3.0", "draftjs_exporter==5.2.0"]
USERNAME, PASSWORD = "admin", "Vq8-Lm3r-Zt6k"

SEED_SCRIPT = """
from django.contrib.auth import get_user_model
from wagtail.models import Collection, Page
from home.models import HomePage
home = Page.objects.get(depth=2).specific
for title, slug in (("About us", "about-us"), ("Contact", "contact")):
    home.add_child(instance=HomePage(title=title, slug=slug))
Collection.get_first_root_node().add_child(name="Marketing")
get_user_model().objects.create_user("editor", "editor@example.com", "Ed-41-rq-Pw", first_name="Erin", last_name="Editor")
"""


def ensure_installed() -> Path:
    """Wagtail's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def _env(site: Path) -> dict[str, str]:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "acme.settings.dev", "PYTHONPATH": str(site),
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD}


def seeded_template(venv: Path) -> Path:
    """The generated, migrated and seeded site, made once per recipe (migrating takes a minute)."""
    return seeded(venv, (PINS, SEED_SCRIPT, USERNAME, PASSWORD), lambda site: _seed(venv, site))


def _seed(venv: Path, site: Path) -> None:
    site.mkdir(parents=True)
    run_tool([str(venv / "bin" / "wagtail"), "start", "acme", str(site)])
    manage = [str(venv / "bin" / "python"), str(site / "manage.py")]
    run_tool([*manage, "migrate", "-v0"], cwd=site, env=_env(site))
    run_tool([*manage, "createsuperuser", "--noinput", "--username", USERNAME, "--email", "admin@example.com"],
             cwd=site, env=_env(site))
    run_tool([*manage, "shell", "-c", SEED_SCRIPT], cwd=site, env=_env(site))


class Server(AppServer):
    """Wagtail's generated site served by `runserver` on 127.0.0.1. Use as a context manager."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD
    venv_root = VENV_ROOT

    def __init__(self) -> None:
        super().__init__()
        self.site = self.workdir / "site"

    @property
    def db_path(self) -> Path:
        return self.site / "db.sqlite3"

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.site)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), str(self.site / "manage.py"), "runserver", "--noreload",
                     f"127.0.0.1:{self.port}"], ready="/admin/login/", cwd=self.site, env=_env(self.site))

    def pages(self) -> list[str]:
        return [row[0] for row in self.query("SELECT title FROM wagtailcore_page ORDER BY path")]
