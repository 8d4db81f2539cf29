"""Plotly Dash (dash.plotly.com), a framework whose pages are React components drawn client-side,
each change sent to Python callbacks as a JSON POST to `/_dash-update-component`, as a real-app
target for the sixth independent step-evaluator set (tests/helpers/effect_cases_holdout6.py). No
`tasks.py`: nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 6` does.

Pinned: Dash 4.4.1 with dash-bootstrap-components 2.0.4 and their dependencies in
`.local/holdout-apps/dashapp/venv`; Bootstrap-Flask is there only for the Bootstrap 5 stylesheet it
ships, copied into the site's `assets/` (Dash serves that folder; there is no CDN to reach). The
site (`warehouse.py`, English UI) is a warehouse's order desk written with Dash's ordinary
components; its orders and customers live in each page load, so the seed is the script and
`reset()` restarts the server. Served by the script's own `app.run` on a free 127.0.0.1 port.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "dashapp"
PINS = [
    'annotated-types==0.8.0',
    'blinker==1.9.0',
    'Bootstrap-Flask==2.6.0',
    'certifi==2026.10.19.post1',
    'charset-normalizer==3.5.3',
    'click==8.5.1',
    'comm==0.2.3',
    'dash==4.4.1',
    'dash-bootstrap-components==2.0.4',
    'Flask==3.1.3',
    'idna==3.20',
    'importlib_metadata==10.2.0',
    'itsdangerous==2.2.0',
    'janus==2.0.0',
    'Jinja2==3.1.6',
    'lazy-importer==0.1.0',
    'MarkupSafe==3.0.4',
    'narwhals==2.29.0',
    'nest-asyncio==1.6.0',
    'packaging==26.4',
    'plotly==7.1.0',
    'pydantic==2.14.4',
    'pydantic_core==2.50.5',
    'requests==2.34.2',
    'retrying==1.4.2',
    'typing-inspection==0.4.5',
    'typing_extensions==4.16.0',
    'urllib3==2.8.0',
    'Werkzeug==3.1.9',
    'WTForms==3.3.2',
    'zipp==4.1.2',
]


def ensure_installed() -> Path:
    """Dash's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The warehouse desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("warehouse.py")
    site_dir = "site"
    write_bytecode = True

    def seed(self) -> None:
        super().seed()
        (self.site / "assets").mkdir(exist_ok=True)
        packages = next((self.venv / "lib").glob("python3*/site-packages"))
        css = packages / "flask_bootstrap" / "static" / "bootstrap5" / "css" / "bootstrap.min.css"
        shutil.copyfile(css, self.site / "assets" / "bootstrap.min.css")
