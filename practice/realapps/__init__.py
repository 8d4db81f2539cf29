"""Real third-party applications as targets: Trac, Roundup (and more), nobody here wrote them.

Each application is a package `practice/realapps/<app>/` with the same shape:
- `app.py`: `NAME`; `ensure_installed() -> Path` creates the app's own virtualenv under
  `.local/realapps/<app>/venv` with pinned versions (idempotent; a clear error when it cannot);
  `class Server(_support.AppServer)` — a context manager that seeds the app with its own admin
  tool, serves it on a free 127.0.0.1 port (`start()`, `base_url`, `stop()`, `reset()`,
  `credential_fields()`), plus helpers that read the app's own state (`query` on its SQLite
  database) for checks; the app supplies `seed()`, `serve()` and `db_path`.
- `tasks.py`: `TASKS`, dicts with `name`, `kind` (`sign_in`, `create_edit`, `consequential`),
  `definition` (explicit steps written from the labels visible on screen), `params`,
  `consequential` (how many consequential acts), `commit_steps` (the names of the steps that
  commit them: a review of any other step is a false positive), `check(server)` and, for
  consequential tasks, `check_unchanged(server)` (after a reject nothing changed). Sign-in steps
  name the credential `realapp-<NAME>` (the fields of `Server.credential_fields()`: `username`,
  `password`, and `totp` where the app asks for a one-time code; see `credential_name`).

The apps' dependencies never mix with ours: they run as subprocesses of their own venvs.
`scripts/realapps.sh` installs them all; `benchmarks/realapps.py` and `tests/realapps/` use them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def apps() -> list[ModuleType]:
    """The `app` modules of every application package here (sorted by name); each module's
    `tasks` sibling is importable as `practice.realapps.<app>.tasks`."""
    found = []
    for pkg in sorted(p for p in HERE.iterdir() if (p / "app.py").is_file() and (p / "tasks.py").is_file()):
        found.append(importlib.import_module(f"practice.realapps.{pkg.name}.app"))
    return found


def tasks_of(app: ModuleType) -> list[dict]:
    """The TASKS of an application module returned by `apps()`."""
    return importlib.import_module(app.__name__.rsplit(".", 1)[0] + ".tasks").TASKS


def credential_name(app: ModuleType) -> str:
    """The credential a task's sign-in steps name: `{{credentials.<this>.username}}` / `.password`."""
    return f"realapp-{app.NAME}"


def definition_for(task: dict, base_url: str) -> dict:
    """The task's definition for a server at base_url: `definition` may be a callable taking the
    base URL, or a dict whose relative `start_url` is joined to it. Without a `param_schema`, the
    task's `params` are declared as strings (their values the defaults)."""
    definition = task["definition"]
    if callable(definition):
        definition = definition(base_url)
    start = definition.get("start_url", "/")
    if start.startswith("/"):
        start = base_url.rstrip("/") + start
    schema = {"type": "object",
              "properties": {k: {"type": "string", "default": v} for k, v in task.get("params", {}).items()}}
    return {"allowed_domains": ["127.0.0.1"], "param_schema": schema, **definition, "start_url": start}
