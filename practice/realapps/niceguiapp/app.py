"""NiceGUI (nicegui.io), a framework whose pages are Vue/Quasar components drawn client-side and
driven over a socket.io websocket by Python handlers on the server, as a real-app target for the
fifth independent step-evaluator set (tests/helpers/effect_cases_holdout5.py). No `tasks.py`:
nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 5` does.

Pinned: NiceGUI 3.18.0 and its dependencies in `.local/holdout-apps/niceguiapp/venv`. The site
(`workshop.py`, English UI) is a bike repair workshop's front desk written with NiceGUI's ordinary
widgets; its tickets and stock live in each page load, so the seed is the script and `reset()`
restarts the server. Served by the script's own `ui.run` on a free 127.0.0.1 port.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "niceguiapp"
PINS = [
    'aiofiles==25.1.0',
    'aiohappyeyeballs==2.7.1',
    'aiohttp==3.14.5',
    'aiosignal==1.4.0',
    'annotated-doc==0.0.7',
    'annotated-types==0.8.0',
    'anyio==4.16.0',
    'attrs==26.1.0',
    'bidict==0.24.1',
    'certifi==2026.10.19.post1',
    'click==8.5.1',
    'docutils==0.23.1',
    'fastapi==0.165.0',
    'frozenlist==1.8.0',
    'h11==0.16.0',
    'httpcore==1.0.9',
    'httptools==0.9.0',
    'httpx==0.29.0',
    'idna==3.20',
    'ifaddr==0.2.0',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'markdown2==2.5.6',
    'MarkupSafe==3.0.4',
    'multidict==7.2.1',
    'nicegui==3.18.0',
    'opentelemetry-api==1.45.3',
    'orjson==3.13.0',
    'propcache==0.5.4',
    'pydantic==2.14.4',
    'pydantic_core==2.50.5',
    'Pygments==2.21.0',
    'python-dotenv==1.2.4',
    'python-engineio==4.15.1',
    'python-multipart==0.0.34',
    'python-socketio==5.18.1',
    'PyYAML==6.0.4',
    'simple-websocket==1.1.0',
    'starlette==1.10.0',
    'tinycss2==1.5.1',
    'typing-inspection==0.4.5',
    'typing_extensions==4.16.0',
    'uvicorn==0.55.0',
    'uvloop==0.23.0',
    'watchfiles==1.3.0',
    'webencodings==0.6.1',
    'websockets==17.4',
    'wsproto==1.3.2',
    'yarl==1.25.1',
]


def ensure_installed() -> Path:
    """NiceGUI's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The workshop desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("workshop.py")
    site_dir = "site"
    write_bytecode = True
