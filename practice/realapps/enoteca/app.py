"""Django's own admin (docs.djangoproject.com/en/5.2/ref/contrib/admin/) in its Italian
translation, over the records of a small wine shop (customers, wines, orders with their lines), as a
real-app target for the seventh independent step-evaluator set
(tests/helpers/effect_cases_holdout7.py). No `tasks.py`: nothing in CI installs it;
`benchmarks/step_evaluator_holdout.py --set 7` does.

Pinned: Django 5.2.19 (asgiref 3.13.0, sqlparse 0.6.1) in `.local/holdout-apps/enoteca/venv`. The
site under `site/` is a plain Django project (settings, the models, their `ModelAdmin`s and a
`semina` command that seeds 23 customers, 24 wines and 18 orders); everything on screen is Django's
admin (list filters, search, sorting, pagination, `list_editable`, bulk actions, the date
hierarchy, inlines, the folded fieldset, the calendar widget). The seeded SQLite database is made
once under .local and copied into each server's workdir, so `reset()` starts again from it. No
sign-in page: the site stands behind a stand-in for a front proxy that sets `REMOTE_USER` to the
staff user `admin` (Django's `PersistentRemoteUserMiddleware` with `RemoteUserBackend`). Served by
`manage.py runserver --noreload` (Django serves the admin's own static files) on a free 127.0.0.1
port.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, ensure_venv, run_tool, seeded

NAME = "enoteca"
VENV_ROOT = HOLDOUT_ROOT
SITE = Path(__file__).with_name("site")
PINS = [
    'asgiref==3.13.0',
    'Django==5.2.19',
    'sqlparse==0.6.1',
]


def ensure_installed() -> Path:
    """Django's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def _manage(venv: Path, db: Path, *args: str) -> str:
    env = {**os.environ, "ENOTECA_DB": str(db), "PYTHONDONTWRITEBYTECODE": "1"}
    return run_tool([str(venv / "bin" / "python"), "manage.py", *args], cwd=SITE, env=env)


class Server(AppServer):
    """The wine shop's admin on the seeded database, served on 127.0.0.1. Use as a context manager."""

    name, pins = NAME, PINS
    username = "admin"
    url_path = "/admin/"
    venv_root = VENV_ROOT

    @property
    def db_path(self) -> Path:
        return self.workdir / "enoteca.sqlite3"

    def seed(self) -> None:
        def make(path: Path) -> None:
            _manage(self.venv, path, "migrate", "-v0")
            _manage(self.venv, path, "semina")

        recipe = (PINS, *(p.read_text() for p in sorted(SITE.rglob("*.py"))))
        shutil.copyfile(seeded(self.venv, recipe, make, suffix=".sqlite3"), self.db_path)

    def serve(self) -> None:
        env = {**os.environ, "ENOTECA_DB": str(self.db_path), "PYTHONDONTWRITEBYTECODE": "1"}
        self.launch([str(self.venv / "bin" / "python"), "manage.py", "runserver", "--noreload",
                     f"127.0.0.1:{self.port}"], ready="", cwd=SITE, env=env)
