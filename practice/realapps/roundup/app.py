"""Roundup (roundup-tracker.org), an issue tracker, as a real-app target.

Pinned: roundup 2.6.0 with its "classic" template and the SQLite backend. `roundup-admin` makes
the tracker (install, initialise with the admin password) and its data (users, issues);
Roundup's own WSGI handler serves it on a free 127.0.0.1 port (`roundup-server` refuses to run
as root, which CI containers are). `reset()` puts back the
tracker as seeded. Checks ask `roundup-admin` (the app's own view of its data).
"""

from __future__ import annotations

import re
from pathlib import Path

from practice.realapps._support import AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "roundup"
PINS = ["roundup==2.6.0"]
USERNAME, PASSWORD = "admin", "Vb8-nQ2r-Hs5y"  # random-looking: a fragment of it is masked in errors
SERVE_SCRIPT = """
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from roundup.cgi.wsgi_handler import RequestDispatcher

class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True

class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass

make_server("127.0.0.1", int(sys.argv[2]), RequestDispatcher(sys.argv[1]), Server, Quiet).serve_forever()
"""
# mail_debug: the nosy list's e-mails go to a file in the tracker, never to an SMTP server (with
# none on the machine, a change note to a nosy user would end in "A server error occurred").
INSTALL_OPTIONS = "tracker_web=http://127.0.0.1:8080/,mail_domain=localhost,mail_debug=sent-mail.txt,logging_level=ERROR"
USERS = [("alice", "Alice Archer"), ("bob", "Bob Baker")]
ISSUES = [("Printer on floor 2 jams", "alice"), ("VPN drops every hour", "bob")]


def ensure_installed() -> Path:
    """Roundup's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS)


def seeded_template(venv: Path) -> Path:
    """The seeded tracker, made once per seed recipe."""
    return seeded(venv, (PINS, INSTALL_OPTIONS, USERS, ISSUES, USERNAME, PASSWORD), lambda home: _seed(venv, home))


def _seed(venv: Path, home: Path) -> None:
    admin = [str(venv / "bin" / "roundup-admin"), "-i", str(home)]
    run_tool([*admin, "install", "classic", "sqlite", INSTALL_OPTIONS])
    run_tool([*admin, "initialise", PASSWORD])
    for username, realname in USERS:
        run_tool([*admin, "create", "user", f"username={username}", f"realname={realname}",
                  f"address={username}@example.com", "roles=User", f"password={username}-pw"])
    for title, assignee in ISSUES:
        run_tool([*admin, "create", "issue", f"title={title}", f"assignedto={assignee}", "priority=bug",
                  "status=unread", f"nosy={assignee}"])


class Server(AppServer):
    """Roundup served by its WSGI handler on 127.0.0.1, seeded once, reset on demand."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD
    url_path = "/"

    def __init__(self) -> None:
        super().__init__()
        self.home = self.workdir / "tracker"

    @property
    def db_path(self) -> Path:
        """The tracker's data ("db-session" next to it holds the signed-in sessions)."""
        return self.home / "db" / "db"

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.home)
        config = self.home / "config.ini"  # the tracker's own URL (its CSRF checks compare against it)
        config.write_text(re.sub(r"(?m)^web = .*$", f"web = {self.base_url}", config.read_text()))

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), "-c", SERVE_SCRIPT, str(self.home), str(self.port)], ready="/")

    # -- the app's own state, for checks -------------------------------------------------------
    def signed_in(self) -> list[str]:
        """Users with a web session (Roundup keeps `{'user': name}` per session key)."""
        rows = self.query("SELECT session_value FROM sessions", path=self.db_path.with_name("db-session"))
        return [value.split("'user': '", 1)[1].split("'", 1)[0] for (value,) in rows if "'user': '" in value]

    def issues(self) -> dict[str, dict]:
        """Issues that are not retired, by title: status and priority names, the number of messages."""
        rows = self.query("SELECT i.id, i._title, s._name, p._name FROM _issue i LEFT JOIN _status s ON s.id = i._status "
                          "LEFT JOIN _priority p ON p.id = i._priority WHERE i.__retired__ = 0")
        return {title: {"id": id_, "status": status, "priority": priority,
                        "messages": len(self.query("SELECT linkid FROM issue_messages WHERE nodeid = ?", id_))}
                for id_, title, status, priority in rows}

    def users(self) -> list[str]:
        """Usernames that are not retired."""
        return sorted(row[0] for row in self.query("SELECT _username FROM _user WHERE __retired__ = 0"))
