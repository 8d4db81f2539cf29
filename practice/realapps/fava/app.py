"""Fava (beancount.github.io/fava), the web interface of the Beancount plain-text ledger: a Svelte
front end with its own client-side router over a Flask JSON API, here in its Spanish translation,
as a real-app target for the sixth independent step-evaluator set
(tests/helpers/effect_cases_holdout6.py). No `tasks.py`: nothing in CI installs it;
`benchmarks/step_evaluator_holdout.py --set 6` does.

Pinned: Fava 1.30.16 with Beancount 3.2.3 and their dependencies in `.local/holdout-apps/fava/venv`.
The seed is `ledger.beancount`, half a year of a bakery's books with Spanish account names and
Fava's `language` option set to `es`; each server copies it into its workdir (Fava writes to it from
its editor and its add-transaction dialog), so `reset()` starts again from the seeded ledger. No
sign-in: Fava has no accounts. Served by `fava` itself on a free 127.0.0.1 port.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "fava"
PINS = [
    'anyio==4.16.0',
    'babel==2.19.0',
    'beancount==3.2.3',
    'beangulp==0.2.0',
    'beanquery==0.2.0',
    'beautifulsoup4==4.15.0',
    'blinker==1.9.0',
    'chardet==7.7.0',
    'cheroot==11.1.2',
    'click==8.5.1',
    'fava==1.30.16',
    'Flask==3.1.3',
    'flask-babel==4.0.0',
    'idna==3.20',
    'itsdangerous==2.2.0',
    'jaraco.functools==4.6.0',
    'Jinja2==3.1.6',
    'lxml==6.2.0',
    'markdown-it-py==4.3.0',
    'MarkupSafe==3.0.4',
    'mdurl==0.1.2',
    'more-itertools==11.2.1',
    'ply==3.11',
    'python-dateutil==4.0.0',
    'python-magic==0.4.27',
    'pytz==2026.6',
    'regex==2026.12.2',
    'simplejson==3.20.2',
    'soupsieve==4.1.4',
    'TatSu-LTS==5.16.0',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'watchfiles==1.3.0',
    'Werkzeug==3.1.9',
]


def ensure_installed() -> Path:
    """Fava's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """Fava on the seeded bakery ledger, served on 127.0.0.1. Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("ledger.beancount")  # the books are a text file: no database
    write_bytecode = True

    @property
    def ledger(self) -> Path:
        return self.site / self.script.name

    def command(self) -> list[str]:
        return [str(self.venv / "bin" / "fava"), "--host", "127.0.0.1", "--port", str(self.port), str(self.ledger)]
