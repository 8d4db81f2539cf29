"""Print the AT-SPI accessibility tree of the desktop session as JSON (one object per line).

Run with the SYSTEM Python (`/usr/bin/python3`), where Debian's python3-pyatspi lives: its GObject
bindings are built for that interpreter, not for the project's virtualenv. `workers.envs.atspi`
starts it as a subprocess with the session's DISPLAY and D-Bus address, so it sees only that
run's applications. Read-only: it never acts on an element.

Output: {"role", "name", "rect": [x, y, w, h], "app", "focused", "editable", "default", "window"} for every
showing element with a name or an interesting role, in tree order; bounded in depth and count so a
spreadsheet's thousand cells cannot stall it.
"""

import json
import sys

MAX_NODES = 4000
MAX_DEPTH = 40
KEEP_UNNAMED = {"text", "entry", "password text", "terminal", "table cell"}
SKIP_CHILDREN = {"table", "tree table"}  # cells come from OCR and the app, not a walk of 10^6 cells


def main() -> int:
    try:
        import pyatspi
    except ImportError:
        print(json.dumps({"error": "python3-pyatspi is not installed (apt-get install python3-pyatspi)"}))
        return 2
    seen = [0]
    desktop = pyatspi.Registry.getDesktop(0)

    def walk(acc, depth, app, window):
        if acc is None or seen[0] >= MAX_NODES or depth > MAX_DEPTH:
            return
        seen[0] += 1
        try:
            role, name = acc.getRoleName(), acc.name or ""
            states = acc.getState()
            showing = states.contains(pyatspi.STATE_SHOWING)
        except Exception:
            return
        if role == "frame":
            window = name
        if showing and (name or role in KEEP_UNNAMED):
            try:
                ext = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                rect = [ext.x, ext.y, ext.width, ext.height]
            except Exception:
                rect = None
            if rect and rect[2] > 0 and rect[3] > 0:
                print(json.dumps({
                    "role": role, "name": name[:300], "rect": rect, "app": app, "window": window,
                    "focused": states.contains(pyatspi.STATE_FOCUSED),
                    "editable": states.contains(pyatspi.STATE_EDITABLE),
                    "default": states.contains(pyatspi.STATE_IS_DEFAULT),
                }, ensure_ascii=False))
        if role in SKIP_CHILDREN or (depth > 2 and not showing):
            return
        try:
            count = acc.childCount
        except Exception:
            return
        for i in range(min(count, 500)):
            try:
                child = acc.getChildAtIndex(i)
            except Exception:  # an element that went away while walking: skip it
                child = None
            walk(child, depth + 1, app, window)

    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None:
            walk(app, 0, app.name or "", "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
