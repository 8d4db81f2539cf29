"""I Hate Money (ihatemoney.org), a shared-budget web application on Flask (server-rendered Jinja
pages, WTForms checks on the server, Bootstrap and a little jQuery), served in its own French
translation, as a real-app target for the fifth independent step-evaluator set
(tests/helpers/effect_cases_holdout5.py). No `tasks.py`: nothing in CI installs it;
`benchmarks/step_evaluator_holdout.py --set 5` does.

Pinned: ihatemoney 7.2.1 and its dependencies in `.local/holdout-apps/ihatemoney/venv`. The seed
is one project, "coloc-lyon" (a flat share in Lyon: four members, 104 bills, so its bill list has
two pages of 100), made once through the application's own REST API (`/api/projects`, members,
bills) in a Flask test client and kept next to the venv; each server copies the SQLite file.
Served by `flask run` on a free 127.0.0.1 port; the browser signs in to the project with its
private code and picks French with the app's own `/lang/fr`.
"""

from __future__ import annotations

import os
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "ihatemoney"
VENV_ROOT = HOLDOUT_ROOT
PROJECT, CODE = "coloc-lyon", "Rhone-2026-clef"
MEMBERS = ("Camille", "Mathieu", "Inès", "Rachid")
SHOPS = ("Carrefour", "Boulangerie Paul", "Marché Croix-Rousse", "Picard", "Biocoop", "Monoprix", "Pharmacie")
PINS = [
    'alembic==1.20.1',
    'aniso8601==10.0.1',
    'babel==2.19.0',
    'blinker==1.9.0',
    'cachetools==6.2.6',
    'certifi==2026.10.19.post1',
    'charset-normalizer==3.5.3',
    'click==8.5.1',
    'debts==0.5',
    'Deprecated==1.3.1',
    'dnspython==2.9.2',
    'email-validator==2.3.0',
    'Flask==3.1.3',
    'flask-babel==4.0.0',
    'flask-cors==6.0.5',
    'Flask-Limiter==4.1.1',
    'Flask-Mail==0.10.0',
    'Flask-Migrate==4.1.0',
    'Flask-RESTful==0.3.10',
    'Flask-SQLAlchemy==3.1.1',
    'flask-talisman==1.1.0',
    'Flask-WTF==1.2.2',
    'greenlet==3.5.6',
    'idna==3.20',
    'ihatemoney==7.2.1',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'limits==5.8.0',
    'Mako==1.4.3',
    'MarkupSafe==3.0.4',
    'ordered-set==4.1.0',
    'packaging==26.4',
    'python-dateutil==4.0.0',
    'pytz==2026.6',
    'qrcode==8.2',
    'requests==2.32.5',
    'six==1.17.0',
    'SQLAlchemy==2.0.58',
    'SQLAlchemy-Continuum==1.5.2',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'urllib3==2.8.0',
    'Werkzeug==3.1.9',
    'wrapt==2.5.2',
    'WTForms==3.2.2',
]

SETTINGS = """\
SQLALCHEMY_DATABASE_URI = "sqlite:///{db}"
SQLALCHEMY_TRACK_MODIFICATIONS = False
SECRET_KEY = "holdout-five-not-secret"
SESSION_COOKIE_SECURE = False
ACTIVATE_DEMO_PROJECT = False
ACTIVATE_ADMIN_DASHBOARD = False
ALLOW_PUBLIC_PROJECT_CREATION = True
MAIL_SUPPRESS_SEND = True
RATELIMIT_ENABLED = False
"""

SEED = """\
import sys

from ihatemoney.run import create_app

project, code, members, shops = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")
app = create_app()
client = app.test_client()
auth = {"Authorization": "Basic " + __import__("base64").b64encode(f"{project}:{code}".encode()).decode()}
done = client.post("/api/projects", data={"name": "Coloc Lyon", "id": project, "password": code,
                                          "contact_email": "camille@example.org", "default_currency": "XXX"})
assert done.status_code == 201, done.get_data(as_text=True)
for name in members:
    assert client.post(f"/api/projects/{project}/members", data={"name": name}, headers=auth).status_code == 201
for n in range(104):
    day = 1 + n % 28
    month = 11 if n < 56 else 10
    bill = {"date": f"2026-{month:02d}-{day:02d}", "what": f"{shops[n % len(shops)]} n°{n + 1}",
            "payer": 1 + n % 4, "payed_for": [1, 2, 3, 4], "amount": f"{12 + (n * 7) % 60}.50",
            "bill_type": "Expense"}
    done = client.post(f"/api/projects/{project}/bills", data=bill, headers=auth)
    assert done.status_code == 201, done.get_data(as_text=True)
"""


def ensure_installed() -> Path:
    """ihatemoney's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


class Server(AppServer):
    """The seeded project served by `flask run` on 127.0.0.1; `username` is the project id and
    `password` its private code. Use as a context manager."""

    name, pins = NAME, PINS
    username, password = PROJECT, CODE
    venv_root = VENV_ROOT

    @property
    def db_path(self) -> Path:
        return self.workdir / "ihatemoney.sqlite"

    def _env(self, db: Path) -> dict[str, str]:
        settings = db.with_suffix(".cfg")
        settings.write_text(SETTINGS.format(db=db))
        return {**os.environ, "IHATEMONEY_SETTINGS_FILE_PATH": str(settings), "HOME": str(self.workdir)}

    def seed(self) -> None:
        def make(path: Path) -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            script = path.with_name("seed.py")
            script.write_text(SEED)
            run_tool([str(self.venv / "bin" / "python"), str(script), PROJECT, CODE, ",".join(MEMBERS), ",".join(SHOPS)],
                     env=self._env(path))

        template = seeded(self.venv, (PROJECT, MEMBERS, SHOPS, SEED), make, suffix=".sqlite")
        copy_seed(template, self.db_path)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), "-m", "flask", "--app", "ihatemoney.wsgi:application", "run",
                     "--host", "127.0.0.1", "--port", str(self.port)],
                    ready="/healthcheck", cwd=self.workdir, env=self._env(self.db_path))
