"""AT-SPI accessibility names of a desktop session, read through a system-Python subprocess.

python3-pyatspi is a Debian package whose GObject bindings are built for the system interpreter,
so the virtualenv cannot import it; `read_tree` runs `atspi_dump.py` with `/usr/bin/python3` in the
session's environment (its D-Bus bus: only this run's applications) and parses its JSON lines.
Applications that expose nothing (or a missing pyatspi) give an empty list: grounding then falls
back to OCR. Blocking; call it from a thread.
"""

from __future__ import annotations

import json
import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path

from workers.ocr import Box, normalise

log = logging.getLogger(__name__)
SYSTEM_PYTHON = "/usr/bin/python3"
DUMP = Path(__file__).with_name("atspi_dump.py")


@dataclass(frozen=True)
class Accessible:
    """One showing element: AT-SPI role and name, its box in screen pixels."""

    role: str
    name: str
    box: Box
    app: str = ""
    window: str = ""
    focused: bool = False
    editable: bool = False
    default: bool = False  # the button Enter activates in its window


def read_tree(env: dict[str, str], *, timeout_s: float = 8.0) -> list[Accessible]:
    """The showing, named elements of the session's applications (empty when none answer)."""
    try:
        out = subprocess.run([SYSTEM_PYTHON, str(DUMP)], env=env, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("reading the accessibility tree failed: %s", exc)
        return []
    found: list[Accessible] = []
    for line in out.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if "error" in item:
            log.warning("accessibility tree: %s", item["error"])
            return []
        x, y, w, h = item["rect"]
        found.append(Accessible(item["role"], item["name"], Box(x, y, w, h), item.get("app", ""),
                                item.get("window", ""), bool(item.get("focused")), bool(item.get("editable")),
                                bool(item.get("default"))))
    return found


def find(tree: list[Accessible], name: str, *, role: str | None = None,
         screen: tuple[int, int] | None = None) -> list[Accessible]:
    """Elements whose name is `name` (case and spaces ignored), exact names first, then names
    that start with it; with `role`, that AT-SPI role only (ARIA names are mapped: button ->
    push button, textbox -> text). Off-screen elements are left out."""
    wanted = normalise(name)
    roles = _ROLES.get(role, {role}) if role else None
    exact, prefix = [], []
    for item in tree:
        if roles and item.role not in roles:
            continue
        if screen and not (0 <= item.box.x < screen[0] and 0 <= item.box.y < screen[1]):
            continue
        have = normalise(item.name)
        if have == wanted:
            exact.append(item)
        elif wanted and have.startswith(wanted):
            prefix.append(item)
    return exact + prefix


def focused(tree: list[Accessible]) -> Accessible | None:
    return next((item for item in tree if item.focused), None)


def default_button(tree: list[Accessible], window: str) -> Accessible | None:
    """The button Enter activates in `window` (a dialog's Save / OK), if it says so."""
    return next((item for item in tree if item.default and item.window == window and item.name), None)


def at_point(tree: list[Accessible], x: float, y: float) -> Accessible | None:
    """The smallest named (or editable) element whose box holds the point."""
    hits = [item for item in tree if item.box.x <= x < item.box.x + item.box.width
            and item.box.y <= y < item.box.y + item.box.height and (item.name or item.editable)]
    return min(hits, key=lambda item: item.box.width * item.box.height, default=None)


# ARIA role names of step targets -> AT-SPI role names.
_ROLES: dict[str | None, set[str]] = {
    "button": {"push button", "toggle button", "button"},
    "textbox": {"text", "entry", "password text", "paragraph"},
    "searchbox": {"text", "entry"},
    "menuitem": {"menu item", "menu", "check menu item", "radio menu item"},
    "checkbox": {"check box", "check menu item"},
    "radio": {"radio button", "radio menu item"},
    "tab": {"page tab"},
    "link": {"link"},
    "heading": {"heading", "label"},
    "cell": {"table cell"},
    "combobox": {"combo box"},
    "listbox": {"list", "list box"},
    "option": {"list item", "menu item"},
    "img": {"image", "icon"},
    "row": {"table row"},
    "spinbutton": {"spin button"},
    "slider": {"slider"},
    "switch": {"toggle button"},
}
