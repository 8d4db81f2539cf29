"""Flask-AppBuilder (github.com/dpgaspar/Flask-AppBuilder), a CRUD framework on Flask, as a
real-app target for the third independent step-evaluator set (tests/helpers/effect_cases_holdout3.py).
No `tasks.py`: nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 3` does.

Pinned: Flask-AppBuilder 5.3.0 (Flask 3.1, WTForms 3.3) and all its dependencies in
`.local/holdout-apps/flaskappbuilder/venv`. The site is a small contacts app written on the
framework's documented API (`SITE`: two models, their `ModelView`s, a `SimpleFormView` feedback
form, FAB's own security views), server-rendered with FAB's Bootstrap 3 templates, select2 and
datepicker widgets. Seeded by `SEED` (an admin and a second user made by FAB's security manager,
4 departments, 24 contacts), served by `flask run` on a free 127.0.0.1 port; `reset()` puts back the
seeded SQLite database.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "flaskappbuilder"
VENV_ROOT = HOLDOUT_ROOT
PINS = [
    'apispec==6.10.1',
    'attrs==26.1.0',
    'babel==2.19.0',
    'blinker==1.9.0',
    'click==8.5.1',
    'colorama==0.4.6',
    'Deprecated==1.3.1',
    'dnspython==2.9.2',
    'email-validator==2.4.0',
    'Flask==3.1.3',
    'flask-appbuilder==5.3.0',
    'flask-babel==4.0.0',
    'Flask-JWT-Extended==4.7.4',
    'Flask-Limiter==4.1.1',
    'Flask-Login==0.6.3',
    'Flask-SQLAlchemy==3.1.1',
    'Flask-WTF==1.3.0',
    'idna==3.20',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'jsonschema==4.26.0',
    'jsonschema-specifications==2025.9.1',
    'limits==5.8.0',
    'MarkupSafe==3.0.4',
    'marshmallow==4.4.0',
    'marshmallow-sqlalchemy==1.6.0',
    'ordered-set==4.1.0',
    'packaging==26.4',
    'prison==0.2.1',
    'PyJWT==2.15.1',
    'python-dateutil==2.9.0.post0',
    'pytz==2026.6',
    'PyYAML==6.0.4',
    'referencing==0.37.0',
    'rpds-py==2026.9.1',
    'six==1.17.0',
    'SQLAlchemy==2.1.9',
    'SQLAlchemy-Utils==0.43.0',
    'typing_extensions==4.16.0',
    'Werkzeug==3.1.9',
    'wrapt==2.5.2',
    'WTForms==3.3.2',
]
USERNAME, PASSWORD = "admin", "Kp4-Rw7n-Ys2d"

SITE = """\
import os

from flask import Flask, flash
from flask_appbuilder import AppBuilder, ModelView, SimpleFormView, Model
from flask_appbuilder.models.sqla.base import SQLA
from flask_appbuilder.models.sqla.interface import SQLAInterface
from flask_appbuilder.fieldwidgets import BS3TextFieldWidget, BS3TextAreaFieldWidget
from flask_appbuilder.forms import DynamicForm
from sqlalchemy import Boolean, Column, Date, ForeignKey, Integer, String, Text
from sqlalchemy.orm import relationship
from wtforms import SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Email, Length

HERE = os.path.dirname(os.path.abspath(__file__))
app = Flask(__name__)
app.config.update(
    SECRET_KEY=open(os.path.join(HERE, "secret_key")).read().strip(),
    SQLALCHEMY_DATABASE_URI="sqlite:///" + os.path.join(HERE, "app.db"),
    SQLALCHEMY_TRACK_MODIFICATIONS=False,
    CSRF_ENABLED=True,
    WTF_CSRF_ENABLED=True,
    APP_NAME="Acme Contacts",
    AUTH_TYPE=1,
    FAB_ADD_SECURITY_VIEWS=True,
    FAB_UPDATE_PERMS=True,
)
db = SQLA(app)


class Department(Model):
    __tablename__ = "department"
    id = Column(Integer, primary_key=True)
    name = Column(String(50), unique=True, nullable=False)
    floor = Column(Integer)

    def __repr__(self):
        return self.name


class Contact(Model):
    __tablename__ = "contact"
    id = Column(Integer, primary_key=True)
    name = Column(String(100), unique=True, nullable=False)
    email = Column(String(120))
    phone = Column(String(30))
    birthday = Column(Date)
    active = Column(Boolean, default=True)
    notes = Column(Text)
    department_id = Column(Integer, ForeignKey("department.id"), nullable=False)
    department = relationship("Department")

    def __repr__(self):
        return self.name


class ContactModelView(ModelView):
    datamodel = SQLAInterface(Contact)
    list_columns = ["name", "email", "phone", "department", "active"]
    search_columns = ["name", "email", "department", "active"]
    validators_columns = {"email": [Email()]}
    show_fieldsets = [
        ("Summary", {"fields": ["name", "email", "phone", "department"]}),
        ("Personal", {"fields": ["birthday", "active", "notes"], "expanded": False}),
    ]
    page_size = 20


class DepartmentModelView(ModelView):
    datamodel = SQLAInterface(Department)
    related_views = [ContactModelView]
    list_columns = ["name", "floor"]


class FeedbackForm(DynamicForm):
    subject = StringField("Subject", validators=[DataRequired()], widget=BS3TextFieldWidget())
    topic = SelectField("Topic", choices=[("general", "General"), ("bug", "Bug report"), ("idea", "Idea")])
    message = TextAreaField("Message", validators=[DataRequired(), Length(min=10)], widget=BS3TextAreaFieldWidget())


class FeedbackView(SimpleFormView):
    form = FeedbackForm
    form_title = "Send feedback"

    def form_post(self, form):
        flash(f'Thanks, your feedback "{form.subject.data}" was received', "info")


with app.app_context():
    appbuilder = AppBuilder(app, db.session)
    appbuilder.add_view(ContactModelView, "List Contacts", icon="fa-envelope", category="Contacts")
    appbuilder.add_view(DepartmentModelView, "Departments", icon="fa-folder", category="Contacts")
    appbuilder.add_view(FeedbackView, "Feedback", icon="fa-comment", label="Send feedback", category="Help")
    db.create_all()
"""

SEED = """\
import datetime
from site_app import app, db, appbuilder, Department, Contact

with app.app_context():
    sm = appbuilder.sm
    admin = sm.find_role(sm.auth_role_admin)
    sm.add_user("admin", "Ada", "Admin", "admin@example.com", admin, "__PASSWORD__")
    sm.add_user("mike", "Mike", "Mason", "mike@example.com", sm.find_role("Public") or admin, "Mm-88-Qz-Lp")
    deps = {n: Department(name=n, floor=f) for n, f in (("Sales", 1), ("Engineering", 2), ("Finance", 3), ("Support", 1))}
    db.session.add_all(deps.values())
    people = [
        ("Alice Archer", "alice@acme.example", "555-0101", "Sales"), ("Bruno Baker", "bruno@acme.example", "555-0102", "Engineering"),
        ("Chloe Chen", "chloe@acme.example", "555-0103", "Engineering"), ("Dev Dutta", "dev@acme.example", "555-0104", "Finance"),
        ("Elena Eriksen", "elena@acme.example", "555-0105", "Support"), ("Farid Farah", "farid@acme.example", "555-0106", "Sales"),
        ("Greta Gomez", "greta@acme.example", "555-0107", "Engineering"), ("Hiro Hayashi", "hiro@acme.example", "555-0108", "Support"),
        ("Ines Ibarra", "ines@acme.example", "555-0109", "Finance"), ("Jonas Jensen", "jonas@acme.example", "555-0110", "Engineering"),
        ("Kira Kowalski", "kira@acme.example", "555-0111", "Sales"), ("Liam Lee", "liam@acme.example", "555-0112", "Support"),
        ("Mona Meyer", "mona@acme.example", "555-0113", "Finance"), ("Nils Nakamura", "nils@acme.example", "555-0114", "Engineering"),
        ("Olga Olsen", "olga@acme.example", "555-0115", "Sales"), ("Pavel Petrov", "pavel@acme.example", "555-0116", "Support"),
        ("Quinn Quade", "quinn@acme.example", "555-0117", "Engineering"), ("Rosa Rossi", "rosa@acme.example", "555-0118", "Finance"),
        ("Sven Svensson", "sven@acme.example", "555-0119", "Sales"), ("Tara Tanaka", "tara@acme.example", "555-0120", "Engineering"),
        ("Umar Uddin", "umar@acme.example", "555-0121", "Support"), ("Vera Volkova", "vera@acme.example", "555-0122", "Finance"),
        ("Wim Willems", "wim@acme.example", "555-0123", "Engineering"), ("Xena Xu", "xena@acme.example", "555-0124", "Sales"),
    ]
    for i, (name, email, phone, dep) in enumerate(people):
        db.session.add(Contact(name=name, email=email, phone=phone, department=deps[dep], active=i % 4 != 3,
                               birthday=datetime.date(1970 + i, 1 + i % 12, 1 + i), notes=f"Met at the {2010 + i} fair."))
    db.session.commit()
""".replace("__PASSWORD__", PASSWORD)


def ensure_installed() -> Path:
    """Flask-AppBuilder's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def seeded_template(venv: Path) -> Path:
    """The site's module and its seeded database, made once per recipe (a few seconds)."""
    return seeded(venv, (PINS, SITE, SEED, USERNAME, PASSWORD), lambda site: _seed(venv, site))


def _seed(venv: Path, site: Path) -> None:
    site.mkdir(parents=True)
    (site / "site_app.py").write_text(SITE)
    (site / "seed.py").write_text(SEED)
    (site / "secret_key").write_text(secrets.token_hex(24))
    run_tool([str(venv / "bin" / "python"), "seed.py"], cwd=site)


class Server(AppServer):
    """The contacts site served by `flask run` on 127.0.0.1. Use as a context manager."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD
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
                    ready="/login/", cwd=self.site)
