"""Roundup (roundup-tracker.org), an issue tracker, as a real-app target.

Pinned: roundup 2.6.0 with its "classic" template and the SQLite backend. `roundup-admin` makes
the tracker (install, initialise with the admin password) and its data (users, issues);
Roundup's own WSGI handler serves it on a free 127.0.0.1 port (`roundup-server` refuses to run
as root, which CI containers are). `reset()` puts back the
tracker as seeded. Checks ask `roundup-admin` (the app's own view of its data).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from practice.realapps._support import ensure_venv, run_tool, spawn, terminate

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
    """The seeded tracker, made once per seed recipe and kept under .local; servers copy it."""
    recipe = hashlib.sha256(repr((PINS, INSTALL_OPTIONS, USERS, ISSUES, USERNAME, PASSWORD)).encode()).hexdigest()
    template = venv.parent / f"seeded-{recipe[:12]}"
    if not template.is_dir():
        scratch = Path(tempfile.mkdtemp(prefix="seeding-", dir=venv.parent))
        _seed(venv, scratch / "tracker")
        (scratch / "tracker").rename(template)
        shutil.rmtree(scratch)
    return template


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


class Server:
    """Roundup served by `roundup-server` on 127.0.0.1, seeded once, reset on demand."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="venus-roundup-"))
        self.home = self.workdir / "tracker"
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.username, self.password = USERNAME, PASSWORD
        self.venv: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> "Server":
        from tests.helpers.servers import free_port, wait_http

        self.venv = ensure_installed()
        self.port = self.port or free_port()
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.copytree(seeded_template(self.venv), self.home)
        config = self.home / "config.ini"  # the tracker's own URL (its CSRF checks compare against it)
        config.write_text(re.sub(r"(?m)^web = .*$", f"web = {self.base_url}", config.read_text()))
        self.proc = spawn([str(self.venv / "bin" / "python"), "-c", SERVE_SCRIPT, str(self.home), str(self.port)],
                          log=self.workdir / "server.log")
        wait_http(self.base_url, timeout=30, proc=self.proc)
        return self

    def stop(self) -> None:
        terminate(self.proc)
        self.proc = None

    def reset(self) -> None:
        """Back to the seeded state (the same port)."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the app's own state, for checks -------------------------------------------------------
    def query(self, sql: str, *args, db: str = "db") -> list[tuple]:
        """Rows from the tracker's SQLite files: "db" (its data), "db-session" (signed-in sessions)."""
        if not (self.home / "db" / db).exists():
            return []
        with sqlite3.connect(self.home / "db" / db) as conn:
            return conn.execute(sql, args).fetchall()

    def signed_in(self) -> list[str]:
        """Users with a web session (Roundup keeps `{'user': name}` per session key)."""
        rows = self.query("SELECT session_value FROM sessions", db="db-session")
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
