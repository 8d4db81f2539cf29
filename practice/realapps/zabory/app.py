"""Solara (solara.dev), a reactive framework whose pages are Vuetify 2 components that the browser
draws from the Python session over a websocket (every click goes to the server, which re-renders
and sends back what changed; navigation between its pages is client-side, by the history API), as a
real-app target for the ninth independent step-evaluator set
(tests/helpers/effect_cases_holdout9.py). No `tasks.py`: nothing in CI installs it;
`benchmarks/step_evaluator_holdout.py --set 9` would.

Pinned: Solara 1.58.2 with solara-assets 1.58.2 (its JavaScript, CSS and fonts, so nothing is
fetched from a CDN), ipyvuetify 1.12.0 / ipyvue 1.13.0 (Vuetify 2) and the rest of their
dependencies (full freeze) in `.local/holdout-apps/zabory/venv`. Run with `--no-check-version`,
telemetry off (SOLARA_TELEMETRY_MIXPANEL_ENABLE=False), the "runs on Solara" banner hidden and the
CDN address pointed at a closed loopback port, so neither the server nor the page reaches outside
127.0.0.1. The site (`zabory.py`, UI in Czech) is a district office's desk for permits to occupy
public space: nav buttons, a list with a search field (Enter or a button), status filter buttons,
sortable column buttons, a pager whose ends are disabled buttons, an edit dialog (a read-only and
a disabled field, radio buttons, a `maxlength` note) whose unchanged save says "Žádné změny k
uložení.", delete buttons that are disabled except for refused permits and a confirmation dialog,
a new-permit form checked on the server (required fields, formats, ranges, a permit number
already registered) with Vuetify's own field messages and an error alert, a Vuetify drop-down, a
checkbox, tabs, expansion panels, a slow fee calculation (2 s, a Solara task) and a long help
page. Its records live in each browser page's Solara session, so every fresh page load shows the
seeded records; `reset()` restarts the server. No sign-in.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "zabory"
PINS = [
    'anyio==4.16.0',
    'asttokens==3.0.2',
    'attrs==26.1.0',
    'cachetools==8.0.2',
    'certifi==2026.10.19.post1',
    'charset-normalizer==3.5.3',
    'click==8.5.1',
    'comm==0.2.3',
    'debugpy==1.8.22',
    'executing==2.3.0',
    'fastjsonschema==2.22.3',
    'filelock==4.3.2',
    'h11==0.16.0',
    'humanize==4.17.0',
    'idna==3.21',
    'ipykernel==7.4.0',
    'ipython==9.18.1',
    'ipython_pygments_lexers==1.1.1',
    'ipyvue==1.13.0',
    'ipyvuetify==1.12.0',
    'ipywidgets==8.1.9',
    'jedi==0.20.1',
    'Jinja2==3.1.6',
    'jsonschema==4.26.0',
    'jsonschema-specifications==2025.9.1',
    'jupyter_client==8.10.0',
    'jupyter_core==5.9.1',
    'jupyterlab_widgets==3.0.17',
    'Markdown==3.11.3',
    'markdown-it-py==4.3.0',
    'MarkupSafe==3.0.4',
    'matplotlib-inline==0.2.2',
    'mdurl==0.1.2',
    'nbformat==5.11.1',
    'nest-asyncio2==1.7.4',
    'numpy==2.4.6',
    'packaging==26.4',
    'parso==0.8.7',
    'pexpect==4.9.0',
    'pillow==13.0.0',
    'platformdirs==4.14.9',
    'prompt_toolkit==3.0.53',
    'psutil==7.2.2',
    'ptyprocess==0.7.0',
    'pure_eval==0.2.4',
    'Pygments==2.21.0',
    'pymdown-extensions==13.1.2',
    'python-dateutil==4.0.0',
    'PyYAML==6.0.4',
    'pyzmq==27.3.0',
    'reacton==1.11.1',
    'referencing==0.37.0',
    'requests==2.34.2',
    'rich==15.0.0',
    'rich-click==1.9.9',
    'rpds-py==2026.9.1',
    'solara==1.58.2',
    'solara-assets==1.58.2',
    'solara-server==1.58.2',
    'solara-ui==1.58.2',
    'stack-data==0.6.3',
    'starlette==1.10.0',
    'tornado==6.6.1',
    'traitlets==5.16.1',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'urllib3==2.8.0',
    'uvicorn==0.55.0',
    'watchdog==7.1.1',
    'watchfiles==1.3.0',
    'wcwidth==0.9.4',
    'websockets==17.4',
    'widgetsnbextension==4.0.16',
]


def ensure_installed() -> Path:
    """Solara's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The permit desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("zabory.py")

    def command(self) -> list[str]:
        return [str(self.venv / "bin" / "solara"), "run", self.script.name, "--host", "127.0.0.1",
                "--port", str(self.port), "--production", "--no-open", "--no-check-version"]

    def server_env(self) -> dict[str, str]:
        return {**super().server_env(), "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False", "SOLARA_THEME_SHOW_BANNER": "False",
                "SOLARA_ASSETS_CDN": "http://127.0.0.1:9/"}  # a miss in solara-assets fails here, not on a CDN
