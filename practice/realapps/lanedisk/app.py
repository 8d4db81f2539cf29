"""Gradio (gradio.app), a framework whose pages are a Svelte application that talks to the Python
session over server-sent events and redraws itself, as a real-app target for the eighth independent
step-evaluator set (tests/helpers/effect_cases_holdout8.py). No `tasks.py`: nothing in CI installs
it; `benchmarks/step_evaluator_holdout.py --set 8` would.

Pinned: Gradio 6.31.0 and its dependencies (full freeze) in `.local/holdout-apps/lanedisk/venv`;
Gradio ships its own JavaScript and CSS, and the site sets system fonts instead of the theme's
Google font and hides the footer (which links to gradio.app), so the page loads nothing from
outside 127.0.0.1. The site (`lanedisk.py`, UI in Swedish) is a city library's loans desk written
with Gradio's ordinary components (tabs, a read-only data grid with its own pager buttons of which
one is disabled on the first page and the other does nothing on the last, drop-downs, a checkbox,
radio buttons, text, number, read-only and `maxlength` fields, forms checked on the server that
refuse unknown cards, a title already lent out or a card number already in use, toasts,
accordions, a slider, a slow report, a long help page). Its records live in each browser session
(gr.State), so the seed is the script and `reset()` restarts the server. No sign-in. Analytics are
off (GRADIO_ANALYTICS_ENABLED=False) and the Hugging Face hub offline.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "lanedisk"
PINS = [
    'annotated-doc==0.0.7',
    'annotated-types==0.8.0',
    'anyio==4.16.0',
    'brotli==1.2.1',
    'certifi==2026.10.19.post1',
    'click==8.5.1',
    'fastapi==0.165.0',
    'filelock==4.3.2',
    'fsspec==2026.9.0',
    'gradio==6.31.0',
    'gradio_client==2.7.2',
    'groovy==0.1.2',
    'h11==0.16.0',
    'hf-gradio==0.4.1',
    'hf-xet==1.8.0',
    'httpcore==1.0.9',
    'httpcore2==2.17.0',
    'httpx==0.29.0',
    'httpx2==2.17.0',
    'huggingface_hub==2.4.0',
    'idna==3.21',
    'Jinja2==3.1.6',
    'markdown-it-py==4.3.0',
    'MarkupSafe==3.0.4',
    'mdurl==0.1.2',
    'numpy==2.4.6',
    'opentelemetry-api==1.45.3',
    'orjson==3.13.0',
    'packaging==26.4',
    'pandas==3.1.1',
    'pillow==12.3.0',
    'pydantic==2.14.4',
    'pydantic_core==2.50.5',
    'pydub==0.25.1',
    'Pygments==2.21.0',
    'python-dateutil==4.0.0',
    'python-multipart==0.0.34',
    'pytz==2026.6',
    'PyYAML==6.0.4',
    'rich==15.0.0',
    'safehttpx==0.1.7',
    'semantic-version==2.10.0',
    'shellingham==1.5.4',
    'starlette==1.10.0',
    'tomlkit==0.14.0',
    'tqdm==4.70.1',
    'truststore==0.10.5',
    'typer==0.29.2',
    'typing-inspection==0.4.5',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'uvicorn==0.55.0',
]


def ensure_installed() -> Path:
    """Gradio's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The library's loans desk served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("lanedisk.py")

    def server_env(self) -> dict[str, str]:
        return {**super().server_env(), "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
                "GRADIO_TEMP_DIR": str(self.workdir)}
