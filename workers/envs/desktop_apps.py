"""The desktop applications a run may start, by name.

An automation's start (its `start_url` on the desktop surface) names one: `app:gnumeric`,
`gnumeric`, or a display name such as `Spreadsheet`. Only these programs can be started: a start
is never a shell command. Each runs in the run's session (`workers.envs.xdisplay.DesktopSession`)
with its working folder `~/Documents`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workers.errors import StepError


@dataclass(frozen=True)
class DesktopApp:
    """A program and the names it answers to. `{documents}` in argv is the session's Documents."""

    key: str
    argv: tuple[str, ...]
    names: tuple[str, ...]
    window: str  # text in the title of its main window (to know it is up)
    goto_cell: tuple[str, ...] | None = None  # keys that jump to a cell; "{cell}" is typed
    config: tuple[tuple[str, str], ...] = ()  # (path under HOME, content) written before it starts


APPS: dict[str, DesktopApp] = {
    app.key: app for app in (
        # No trash: a session's HOME is thrown away at the end of the run, so a trash would not
        # keep anything; the file manager then says what it does ("Delete", asked first).
        DesktopApp("pcmanfm", ("pcmanfm", "--no-desktop", "{documents}"), ("file manager", "files", "pcmanfm"),
                   "Documents", config=((".config/libfm/libfm.conf", "[config]\nuse_trash=0\nconfirm_del=1\n"),)),
        DesktopApp("gnumeric", ("gnumeric", "--no-splash"), ("spreadsheet", "gnumeric", "calc"), "Gnumeric",
                   goto_cell=("ctrl+g", "{cell}", "Return", "Escape")),
        DesktopApp("mousepad", ("mousepad",), ("text editor", "editor", "mousepad"), "Mousepad"),
    )
}


def app_named(start: str) -> DesktopApp:
    """The application a start names (`app:KEY`, `KEY` or a display name; case ignored)."""
    name = start.strip()
    if name.lower().startswith("app:"):
        name = name[4:]
    name = name.strip("/ ").lower()
    for app in APPS.values():
        if name == app.key or name in app.names:
            return app
    known = ", ".join(f"app:{key}" for key in APPS)
    raise StepError(f"unknown desktop application {start!r}; this worker can start {known}")


def document_path(documents: Path, name: str) -> Path:
    """A file of the run's Documents folder that an application opens at start (never outside it)."""
    path = (documents / name).resolve()
    if not name or documents.resolve() not in path.parents:
        raise StepError(f"{name!r} is not a file of the run's Documents folder")
    if not path.is_file():
        raise StepError(f"the run's Documents folder has no file {name!r}")
    return path
