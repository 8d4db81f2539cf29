"""MoinMoin 2 (moinmo.in), a wiki, as a real-app target for the second independent
step-evaluator set (tests/helpers/effect_cases_holdout2.py). No `tasks.py`: nothing in CI installs
it; `benchmarks/step_evaluator_holdout.py` does.

Pinned: moin 2.0.0b5 (Flask 3.1) in `.local/holdout-apps/moin/venv`. The instance is made by
moin's own `moin create-instance --full` (config, storage, indexes, the help pages and the welcome
page), its generated wikiconfig.py given the site name, a secret key and `admin` as superuser and
super-editor (the places the file itself says to edit), and the account made with
`moin account-create`. `moin run` serves it on a free 127.0.0.1 port; `reset()` puts back the
seeded instance. Moin keeps items in files, not SQLite: `db_path` is unused.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "moin"
VENV_ROOT = HOLDOUT_ROOT
PINS = ["moin==2.0.0b5", "Flask==3.1.3", "Werkzeug==3.1.9", "Whoosh==2.7.4", "flatland==1.0.0",
        "emeraldtree==0.12.0", "Jinja2==3.1.6", "MarkupSafe==3.0.4", "SQLAlchemy==2.1.9"]
USERNAME, PASSWORD = "admin", "Wq5-Hs2n-Xc8j"
EDITS = (  # (what the generated wikiconfig.py says, what it says here)
    ('acl_functions = "YOUR-SUPER-USER-NAME:superuser"', f'acl_functions = "{USERNAME}:superuser"'),
    ("YOUR-SUPER-EDITOR:", f"{USERNAME}:"),
    ("YOUR-TRUSTED-EDITORS-GROUP:", "Known:"),
    ('sitename = "My MoinMoin"', 'sitename = "Acme Wiki"'),
)


def ensure_installed() -> Path:
    """moin's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def seeded_template(venv: Path) -> Path:
    """The created and configured instance, made once per recipe (`--full` takes about 2 min)."""
    return seeded(venv, (PINS, EDITS, USERNAME, PASSWORD), lambda inst: _seed(venv, inst))


def _seed(venv: Path, inst: Path) -> None:
    moin = str(venv / "bin" / "moin")
    inst.mkdir(parents=True)
    run_tool([moin, "create-instance", "--full"], cwd=inst)
    config = inst / "wikiconfig.py"
    text = config.read_text()
    for old, new in EDITS:
        if old not in text:
            raise RuntimeError(f"moin's wikiconfig.py no longer says {old!r}")
        text = text.replace(old, new)
    text = text.replace('SECRET_KEY = "WARNING: set this to a unique string to create secure cookies"',
                        f'SECRET_KEY = "{secrets.token_hex(24)}"')
    config.write_text(text)
    run_tool([moin, "account-create", "--name", USERNAME, "--email", "admin@example.com",
              "--password", PASSWORD], cwd=inst)


class Server(AppServer):
    """The wiki served by `moin run` on 127.0.0.1. Use as a context manager."""

    name, pins, username, password = NAME, PINS, USERNAME, PASSWORD
    venv_root = VENV_ROOT

    def __init__(self) -> None:
        super().__init__()
        self.instance = self.workdir / "wiki"

    @property
    def db_path(self) -> Path:
        return self.instance / "wiki" / "data" / "none.sqlite"  # moin stores items as files

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.instance)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "moin"), "run", "--host", "127.0.0.1", "--port", str(self.port),
                     "--no-reload", "--no-debugger", "--with-threads"], ready="/Home", cwd=self.instance)
