"""Flask-Admin (github.com/pallets-eco/flask-admin), the admin-interface framework for Flask, as a
real-app target for the fourth independent step-evaluator set (tests/helpers/effect_cases_holdout4.py).
No `tasks.py`: nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 4` does.

Pinned: Flask-Admin 2.2.1 (Flask 3.1, WTForms 3.3, Flask-SQLAlchemy 3.1, Flask-Babel 4.0) and all its
dependencies in `.local/holdout-apps/flaskadmin/venv`. The site is a small German town-library admin
("Stadtbibliothek") written on Flask-Admin's documented API (`SITE`: three SQLAlchemy models and their
`ModelView`s, Bootstrap 4 templates), its UI in German through Flask-Admin's own translations
(Flask-Babel, locale "de"): list views with search, filters, sorting, pagination, a details modal,
inline x-editable cells, select2 and daterangepicker widgets, server-side validators (unique, regexp,
equal-to) next to the browser's own checks (`required`, `min`/`max`). No sign-in. Seeded by `SEED`
(6 authors, 34 books, 3 readers), served by `flask run` on a free 127.0.0.1 port; `reset()` puts back
the seeded SQLite database.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "flaskadmin"
VENV_ROOT = HOLDOUT_ROOT
PINS = [
    'babel==2.19.0',
    'blinker==1.9.0',
    'click==8.5.1',
    'Flask==3.1.3',
    'Flask-Admin==2.2.1',
    'flask-babel==4.0.0',
    'Flask-SQLAlchemy==3.1.1',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'MarkupSafe==3.0.4',
    'pytz==2026.6',
    'SQLAlchemy==2.1.9',
    'typing_extensions==4.16.0',
    'Werkzeug==3.1.9',
    'WTForms==3.3.2',
]

SITE = """\
import os

from flask import Flask, redirect
from flask_admin import Admin, AdminIndexView, expose
from flask_admin.contrib.sqla import ModelView
from flask_babel import Babel
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import Boolean, Column, Date, ForeignKey, Integer, String, Text
from sqlalchemy.orm import relationship
from wtforms import PasswordField
from wtforms.validators import EqualTo, NumberRange, Optional, Regexp

HERE = os.path.dirname(os.path.abspath(__file__))
app = Flask(__name__)
app.config.update(
    SECRET_KEY=open(os.path.join(HERE, "secret_key")).read().strip(),
    SQLALCHEMY_DATABASE_URI="sqlite:///" + os.path.join(HERE, "app.db"),
    BABEL_DEFAULT_LOCALE="de",
)
db = SQLAlchemy(app)
Babel(app, locale_selector=lambda: "de")


class Autor(db.Model):
    __tablename__ = "autor"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), unique=True, nullable=False)
    land = Column(String(40))

    def __str__(self):
        return self.name


class Buch(db.Model):
    __tablename__ = "buch"
    id = Column(Integer, primary_key=True)
    titel = Column(String(120), unique=True, nullable=False)
    isbn = Column(String(13))
    jahr = Column(Integer)
    seiten = Column(Integer)
    genre = Column(String(20), nullable=False, default="Roman")
    verfuegbar = Column(Boolean, default=True)
    erschienen = Column(Date)
    notiz = Column(Text)
    autor_id = Column(Integer, ForeignKey("autor.id"), nullable=False)
    autor = relationship("Autor", backref="buecher")


class Leser(db.Model):
    __tablename__ = "leser"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), nullable=False)
    ausweis = Column(String(8), unique=True, nullable=False)
    pin = Column(String(8))


class Start(AdminIndexView):
    @expose("/")
    def index(self):
        return self.render("admin/index.html")


class BuchView(ModelView):
    page_size = 15
    can_view_details = True
    details_modal = True
    column_list = ["titel", "autor", "jahr", "seiten", "genre", "verfuegbar"]
    column_labels = {"titel": "Titel", "autor": "Autor", "jahr": "Jahr", "seiten": "Seiten", "genre": "Gattung",
                     "verfuegbar": "Verfügbar", "isbn": "ISBN", "erschienen": "Erschienen am", "notiz": "Notiz"}
    column_searchable_list = ["titel", "isbn"]
    column_filters = ["genre", "jahr", "verfuegbar"]
    column_editable_list = ["seiten"]
    column_default_sort = "titel"
    form_choices = {"genre": [("Roman", "Roman"), ("Krimi", "Krimi"), ("Sachbuch", "Sachbuch"), ("Lyrik", "Lyrik")]}
    form_args = {
        "isbn": {"validators": [Optional(), Regexp(r"^\\d{13}$", message="Die ISBN muss aus genau 13 Ziffern bestehen.")]},
        "jahr": {"validators": [Optional(), NumberRange(1450, 2026, message="Das Jahr muss zwischen 1450 und 2026 liegen.")]},
    }


class AutorView(ModelView):
    column_list = ["name", "land"]
    column_labels = {"name": "Name", "land": "Land", "buecher": "Bücher"}
    form_columns = ["name", "land"]
    column_searchable_list = ["name"]


class LeserView(ModelView):
    column_list = ["name", "ausweis"]
    column_labels = {"name": "Name", "ausweis": "Ausweisnummer", "pin": "PIN"}
    form_columns = ["name", "ausweis", "pin", "pin_wiederholen"]
    form_extra_fields = {"pin_wiederholen": PasswordField("PIN wiederholen")}
    form_args = {"pin": {"validators": [EqualTo("pin_wiederholen", message="Die beiden PINs stimmen nicht überein.")]},
                 "ausweis": {"validators": [Regexp(r"^L\\d{4}$", message="Ausweisnummern haben die Form L1234.")]}}
    form_overrides = {"pin": PasswordField}


admin = Admin(app, name="Stadtbibliothek", index_view=Start(name="Start"))
admin.add_view(BuchView(Buch, db.session, name="Bücher", category="Bestand"))
admin.add_view(AutorView(Autor, db.session, name="Autoren", category="Bestand"))
admin.add_view(LeserView(Leser, db.session, name="Leser"))


@app.route("/")
def root():
    return redirect("/admin/")


with app.app_context():
    db.create_all()
"""

SEED = """\
import datetime
from site_app import app, db, Autor, Buch, Leser

with app.app_context():
    autoren = [Autor(name=n, land=l) for n, l in (
        ("Theodor Fontane", "Deutschland"), ("Thomas Mann", "Deutschland"), ("Franz Kafka", "Österreich-Ungarn"),
        ("Ingeborg Bachmann", "Österreich"), ("Friedrich Dürrenmatt", "Schweiz"), ("Christa Wolf", "DDR"))]
    db.session.add_all(autoren)
    genres = ["Roman", "Krimi", "Sachbuch", "Lyrik"]
    for i in range(34):
        db.session.add(Buch(titel=f"Band {i + 1:02d}: " + ["Der Fluss", "Die Stadt", "Das Haus", "Der Wald", "Die Reise", "Das Meer"][i % 6],
                            isbn=f"978300{i:07d}", jahr=1900 + 3 * i, seiten=120 + 7 * i, genre=genres[i % 4],
                            verfuegbar=i % 5 != 2, erschienen=datetime.date(1900 + 3 * i, 1 + i % 12, 1 + i % 28),
                            notiz=f"Regal {1 + i % 9}", autor=autoren[i % 6]))
    for i, n in enumerate(("Anna Berg", "Ben Kraus", "Clara Vogt")):
        db.session.add(Leser(name=n, ausweis=f"L{1001 + i}", pin="1234"))
    db.session.commit()
"""


def ensure_installed() -> Path:
    """Flask-Admin's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def seeded_template(venv: Path) -> Path:
    """The site's module and its seeded database, made once per recipe (a few seconds)."""
    return seeded(venv, (PINS, SITE, SEED), lambda site: _seed(venv, site))


def _seed(venv: Path, site: Path) -> None:
    site.mkdir(parents=True)
    (site / "site_app.py").write_text(SITE)
    (site / "seed.py").write_text(SEED)
    (site / "secret_key").write_text(secrets.token_hex(24))
    run_tool([str(venv / "bin" / "python"), "seed.py"], cwd=site)


class Server(AppServer):
    """The library admin served by `flask run` on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    venv_root = VENV_ROOT

    def __init__(self) -> None:
        super().__init__()
        self.site = self.workdir / "site"

    @property
    def db_path(self) -> Path:
        return self.site / "app.db"

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.site)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), "-m", "flask", "--app", "site_app", "run", "--host",
                     "127.0.0.1", "--port", str(self.port), "--no-reload", "--no-debugger", "--with-threads"],
                    ready="/admin/", cwd=self.site)
