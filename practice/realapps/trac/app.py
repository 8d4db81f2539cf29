"""Trac (trac.edgewall.org), an issue tracker and wiki, as a real-app target.

Pinned: Trac 1.6 with TracAccountManager 0.6.0 (its sign-in form; Trac alone only knows HTTP
authentication). The environment is made by `trac-admin` (initenv, permissions, milestones,
components, the optional ticket deleter) and a short script on Trac's own model API (the
account's password and two tickets); `tracd` serves it on a free 127.0.0.1 port. `reset()` puts
back the environment as it was seeded. Checks read Trac's own SQLite database.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "trac"
PINS = ["Trac==1.6", "TracAccountManager==0.6.0", "Jinja2==3.1.6", "MarkupSafe==3.0.4"]
USERNAME, PASSWORD = "admin", "K7q-zW4x-pT9m"  # random-looking: a fragment of it is masked in errors
MILESTONES = ["Spring release", "Obsolete sprint"]

CONFIG = [  # (section, option, value) set with `trac-admin config set`
    ("components", "acct_mgr.*", "enabled"),
    ("components", "acct_mgr.register.*", "disabled"),
    ("components", "acct_mgr.guard.*", "disabled"),
    ("components", "trac.web.auth.loginmodule", "disabled"),
    ("components", "tracopt.ticket.deleter.*", "enabled"),
    ("account-manager", "password_store", "HtPasswdStore"),
    ("account-manager", "htpasswd_hash_type", "sha"),
    ("account-manager", "reset_password", "false"),
    ("account-manager", "auth_init", "false"),  # no first-login setup wizard
    ("logging", "log_type", "none"),
]

SEED_SCRIPT = """
import sys
from trac.env import Environment
from trac.ticket.model import Ticket
from acct_mgr.api import AccountManager
env = Environment(sys.argv[1])
AccountManager(env).set_password(sys.argv[2], sys.argv[3])
for summary, kind in (("Printer on floor 2 jams", "defect"), ("Add a dark theme", "enhancement")):
    t = Ticket(env)
    t.populate({"summary": summary, "description": "Reported by the help desk.", "type": kind,
                "status": "new", "reporter": "helpdesk", "priority": "major", "component": "Facilities",
                "milestone": "Spring release"})
    t.insert()
"""


def ensure_installed() -> Path:
    """Trac's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS)


def seeded_template(venv: Path) -> Path:
    """The seeded environment, made once per seed recipe (trac-admin takes about 20 s)."""
    return seeded(venv, (PINS, CONFIG, MILESTONES, SEED_SCRIPT, USERNAME, PASSWORD), lambda env: _seed(venv, env))


def _seed(venv: Path, env_dir: Path) -> None:
    admin = [str(venv / "bin" / "trac-admin"), str(env_dir)]
    run_tool([*admin, "initenv", "Acme Tracker", "sqlite:db/trac.db"])
    (env_dir / "htpasswd").touch()
    for section, option, value in [*CONFIG, ("account-manager", "htpasswd_file", "htpasswd")]:
        run_tool([*admin, "config", "set", section, option, value])
    run_tool([*admin, "permission", "add", USERNAME, "TRAC_ADMIN"])
    for old in ("milestone1", "milestone2", "milestone3", "milestone4"):
        run_tool([*admin, "milestone", "remove", old])
    for milestone in MILESTONES:
        run_tool([*admin, "milestone", "add", milestone])
    for old in ("component1", "component2"):
        run_tool([*admin, "component", "remove", old])
    for component in ("Facilities", "Website"):
        run_tool([*admin, "component", "add", component, USERNAME])
    run_tool([str(venv / "bin" / "python"), "-c", SEED_SCRIPT, str(env_dir), USERNAME, PASSWORD])


class Server(AppServer):
    """Trac served by `tracd` on 127.0.0.1, seeded once, reset on demand. Use as a context manager."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD

    def __init__(self) -> None:
        super().__init__()
        self.env_dir = self.workdir / "env"

    @property
    def db_path(self) -> Path:
        return self.env_dir / "db" / "trac.db"

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.env_dir)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "tracd"), "--hostname", "127.0.0.1", "--port", str(self.port),
                     "-s", str(self.env_dir)], ready="/chrome/common/trac_logo_mini.png")

    # -- the app's own state, for checks -------------------------------------------------------
    def tickets(self) -> dict[int, dict]:
        rows = self.query("SELECT id, summary, status, priority, type, component, milestone, description FROM ticket")
        keys = ("summary", "status", "priority", "type", "component", "milestone", "description")
        return {row[0]: dict(zip(keys, row[1:])) for row in rows}

    def milestones(self) -> list[str]:
        return [row[0] for row in self.query("SELECT name FROM milestone ORDER BY name")]

    def comments(self, ticket: int) -> list[str]:
        return [row[0] for row in self.query(
            "SELECT newvalue FROM ticket_change WHERE ticket=? AND field='comment' AND newvalue != ''", ticket)]
