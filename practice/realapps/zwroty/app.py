"""Flask (flask.palletsprojects.com) with WTForms (wtforms.readthedocs.io), a classic server-rendered
stack (every action is a full page load: links, GET filter forms, POST forms re-rendered with their
validators' messages, redirects with flashed messages), as a second real-app target for the eighth
independent step-evaluator set (tests/helpers/effect_cases_holdout8.py). No `tasks.py`: nothing in
CI installs it; `benchmarks/step_evaluator_holdout.py --set 8` would.

Pinned: Flask 3.1.3 and WTForms 3.3.2 with their dependencies (full freeze) in
`.local/holdout-apps/zwroty/venv`; the pages use no outside asset. The site (`zwroty.py`, UI in
Polish) is a warehouse's returns desk: a list with a status select and client search (a GET form),
sortable columns, a pager with disabled ends and page links, a new-return form checked by WTForms
validators and a duplicate check, a status form whose unchanged save says "Brak zmian do
zapisania.", a read-only field, a disabled delete button, a `maxlength` text area and a long help
page. Its records live in the server process, so the seed is the script and `reset()` restarts
it. No sign-in. Served by Werkzeug's development server on a free 127.0.0.1 port.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "zwroty"
PINS = [
    'blinker==1.9.0',
    'click==8.5.1',
    'Flask==3.1.3',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'MarkupSafe==3.0.4',
    'Werkzeug==3.1.9',
    'WTForms==3.3.2',
]


def ensure_installed() -> Path:
    """Flask's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The warehouse's returns desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("zwroty.py")
    ready = "/zwroty"
