"""Shiny for Python (shiny.posit.co/py), a reactive framework whose pages talk to the Python
session over a websocket and are redrawn by its own JavaScript, as a real-app target for the
seventh independent step-evaluator set (tests/helpers/effect_cases_holdout7.py). No `tasks.py`:
nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 7` does.

Pinned: Shiny 1.8.0 with pandas 3.1.1 (for its data grid) and their dependencies in
`.local/holdout-apps/ambulatorio/venv`; Shiny ships Bootstrap, jQuery, the date picker and the
slider itself, so nothing comes from a CDN. The site (`clinica.py`, UI in European Portuguese) is
a dental clinic's front desk written with Shiny's ordinary components (navbar tabs, a data grid
with sorting, filters and row selection, its own pager buttons, selects, radio buttons,
checkboxes, text, number, date and read-only fields, a dialog, notifications, a slider, a slow
report, an accordion on a long page). Its records live in each session, so the seed is the script
and `reset()` restarts the server. No sign-in. Served by `shiny run` on a free 127.0.0.1 port.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "ambulatorio"
PINS = [
    'annotated-types==0.8.0',
    'anyio==4.16.0',
    'asgiref==3.13.0',
    'click==8.5.1',
    'h11==0.16.0',
    'htmltools==0.7.0',
    'idna==3.21',
    'libsass==0.23.0',
    'linkify-it-py==2.2.0',
    'markdown-it-py==4.3.0',
    'mdit-py-plugins==0.7.0',
    'mdurl==0.1.2',
    'narwhals==2.29.0',
    'numpy==2.4.6',
    'opentelemetry-api==1.45.3',
    'orjson==3.13.0',
    'packaging==26.4',
    'pandas==3.1.1',
    'platformdirs==4.14.9',
    'prompt_toolkit==3.0.53',
    'pydantic==2.14.4',
    'pydantic_core==2.50.5',
    'python-dateutil==4.0.0',
    'python-multipart==0.0.34',
    'questionary==2.1.1',
    'shiny==1.8.0',
    'shinychat==0.7.2',
    'starlette==1.10.0',
    'typing-inspection==0.4.5',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'uvicorn==0.55.0',
    'watchfiles==1.3.0',
    'wcwidth==0.9.4',
    'websockets==17.4',
]


def ensure_installed() -> Path:
    """Shiny's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The clinic's front desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("clinica.py")

    def command(self) -> list[str]:
        return [str(self.venv / "bin" / "shiny"), "run", "--host", "127.0.0.1", "--port", str(self.port),
                self.script.name]
