"""What the real-app packages share: their own pinned virtualenvs, their server processes,
`AppServer`, the lifecycle every app's `Server` has (each app says how to seed, serve and where
its SQLite database is), and `ScriptServer`, the whole of it for a holdout app that is one file of
ours served from its own venv."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
LOCAL = Path(os.environ.get("VENUS_REALAPPS_DIR", ROOT / ".local" / "realapps"))
HOLDOUT_ROOT = ROOT / ".local" / "holdout-apps"  # the holdout sets' apps (their benchmark installs them, never CI)


class InstallError(RuntimeError):
    """An application's virtualenv could not be made (no network to PyPI, a pin that is gone…)."""


def ensure_venv(name: str, pins: list[str], *, root: Path | None = None) -> Path:
    """`.local/realapps/<name>/venv` (or `<root>/<name>/venv`) holding exactly `pins` (pip
    requirement strings); returns the venv's directory. Idempotent: a stamp of the pins skips pip
    when nothing changed."""
    venv = (root or LOCAL) / name / "venv"
    stamp = venv / f".pins-{hashlib.sha256(' '.join(pins).encode()).hexdigest()[:16]}"
    if stamp.is_file() and (venv / "bin" / "python").is_file():
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = ([sys.executable, "-m", "venv", str(venv)],
             [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", *pins])
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise InstallError(f"{name}: `{' '.join(cmd[:4])} …` failed ({done.returncode}): " + " | ".join(tail))
    stamp.touch()
    return venv


def run_tool(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None) -> str:
    """Run an application's own command-line tool; its output, or a clear error with its stderr.
    `env` replaces our environment when given."""
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=os.environ if env is None else env)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(cmd[0]).name} {' '.join(cmd[1:3])} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout


def spawn(cmd: list[str], *, log: Path, cwd: Path | None = None, env: dict | None = None) -> subprocess.Popen:
    """Start a server process in its own session (so stopping it reaches all its children); `env`
    replaces our environment when given."""
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"})


class AppServer:
    """An application served from its own venv on a free 127.0.0.1 port, seeded, reset on demand;
    a context manager. A subclass sets `name`, `pins`, `username`, `password` (and `url_path`,
    what `base_url` ends with) and supplies `seed()` (put the seeded state under `workdir`),
    `serve()` (`launch` the server) and `db_path` (the SQLite file `query` reads)."""

    name = ""
    pins: list[str] = []
    username = password = ""
    url_path = ""
    venv_root: Path | None = None  # where `<name>/venv` lives; `.local/realapps` when None

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix=f"venus-{self.name}-"))
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.venv: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.url_path}"

    @property
    def db_path(self) -> Path:
        raise NotImplementedError

    def credential_fields(self) -> dict[str, str]:
        """The fields of the sign-in credential the tasks name (`credential_name`)."""
        return {"username": self.username, "password": self.password}

    def seed(self) -> None:
        raise NotImplementedError

    def serve(self) -> None:
        raise NotImplementedError

    def launch(self, cmd: list[str], *, ready: str, cwd: Path | None = None, env: dict | None = None) -> None:
        """Spawn the server (its log in `workdir`) and wait until `base_url + ready` answers."""
        from tests.helpers.servers import wait_http

        self.proc = spawn(cmd, log=self.workdir / "server.log", cwd=cwd, env=env)
        wait_http(self.base_url.rstrip("/") + ready, timeout=30, proc=self.proc)

    def start(self) -> "AppServer":
        from tests.helpers.servers import free_port

        self.venv = ensure_venv(self.name, self.pins, root=self.venv_root)
        self.port = self.port or free_port()
        self.seed()
        self.serve()
        return self

    def stop(self) -> None:
        from tests.helpers.servers import stop_process

        stop_process(self.proc)
        self.proc = None

    def reset(self) -> None:
        """Back to the seeded state (the same port)."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "AppServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def query(self, sql: str, *args, path: Path | None = None) -> list[tuple]:
        """Rows from the app's SQLite database (or another SQLite file of it), read-only; none
        when the file does not exist yet."""
        path = path or self.db_path
        if not path.exists():
            return []
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()


class ScriptServer(AppServer):
    """A holdout app that is one file of ours on a server from its own venv (under HOLDOUT_ROOT),
    with no sign-in and no database (`query` answers no rows): its records live in the server
    process, so `reset()` (a restart) is the seed again.

    A subclass sets `name`, `pins` and `script` (the file `seed()` copies into `site`: the app's
    script, or what a ready-made server reads), and where they differ from the defaults
    `site_dir` (`site` is `workdir/<site_dir>`, the workdir itself when empty), `ready` (the path
    that answers once the server is up), `write_bytecode` and `command()` / `server_env()`. By
    default `serve()` runs `python <script>` in `site` with HOME in the workdir and the port in
    PORT."""

    venv_root = HOLDOUT_ROOT
    script: Path
    site_dir = ""
    ready = "/"
    write_bytecode = False  # False: PYTHONDONTWRITEBYTECODE=1, the server leaves no .pyc files behind

    def __init__(self) -> None:
        super().__init__()
        self.site = self.workdir / self.site_dir

    @property
    def db_path(self) -> Path:
        return self.site / "no-database.sqlite"  # no database: `query` answers no rows

    def seed(self) -> None:
        self.site.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.script, self.site / self.script.name)

    def command(self) -> list[str]:
        """The server's command line, run in `site`: the script on the venv's Python."""
        return [str(self.venv / "bin" / "python"), self.script.name]

    def server_env(self) -> dict[str, str]:
        """What the server's environment sets over ours."""
        env = {"HOME": str(self.workdir), "PORT": str(self.port)}
        return env if self.write_bytecode else {**env, "PYTHONDONTWRITEBYTECODE": "1"}

    def serve(self) -> None:
        self.launch(self.command(), ready=self.ready, cwd=self.site, env={**os.environ, **self.server_env()})


def seeded(venv: Path, recipe: object, make: Callable[[Path], None], *, suffix: str = "") -> Path:
    """The app's seeded state (a directory, or a file when `suffix` is given), made once per
    `recipe` (anything whose repr says what the seed holds) by `make(path)` and kept next to the
    venv under .local; servers copy it (`copy_seed`)."""
    template = venv.parent / f"seeded-{hashlib.sha256(repr(recipe).encode()).hexdigest()[:12]}{suffix}"
    if not template.exists():
        scratch = Path(tempfile.mkdtemp(prefix="seeding-", dir=venv.parent))
        make(scratch / template.name)
        (scratch / template.name).rename(template)
        shutil.rmtree(scratch)
    return template


def copy_seed(template: Path, dest: Path) -> None:
    """Put a seeded template (a directory or a file) at `dest`, replacing what is there."""
    if template.is_dir():
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(template, dest)
    else:
        shutil.copyfile(template, dest)
