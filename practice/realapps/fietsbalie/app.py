"""Pyramid (trypyramid.com) with Deform (docs.pylonsproject.org/projects/deform) and its Colander
schemas, a classic server-rendered stack with its own form library (every action is a full page
load: links, a GET filter form, POST forms that Deform re-renders with Colander's messages and its
own error banner, redirects with the session's flash messages), as a real-app target for the ninth
independent step-evaluator set (tests/helpers/effect_cases_holdout9.py). No `tasks.py`: nothing in
CI installs it; `benchmarks/step_evaluator_holdout.py --set 9` would.

Pinned: Pyramid 2.1, Deform 3.0.1, Colander 2.0 and Waitress 3.0.2 with their dependencies (full
freeze) in `.local/holdout-apps/fietsbalie/venv`; the pages load only Deform's own static files
(Bootstrap 5, jQuery, deform.js) from the app itself, nothing from outside 127.0.0.1. The site
(`fietsbalie.py`, UI in Dutch, with Colander's and Deform's own Dutch translations) is a bike-rental
counter: a list with a status select and a customer search (a GET form), sortable columns, a
Bootstrap pager with disabled ends and page links, a new-rental form checked by Colander validators
(required, format, range, a duplicate rental number) with a disabled field, a `maxlength` text
area, a select, a checkbox and radio buttons, an edit form whose unchanged save says "Geen
wijzigingen om op te slaan.", read-only fields, a disabled delete button (or, for returned rentals,
a Bootstrap confirmation dialog), Bootstrap tabs, an accordion, a slow availability check (2 s) and
a long help page. Its records live in the server process, so the seed is the script and `reset()`
restarts it. No sign-in. Served by Waitress on a free 127.0.0.1 port.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ScriptServer, ensure_venv

NAME = "fietsbalie"
PINS = [
    'Chameleon==4.6.0',
    'colander==2.0',
    'deform==3.0.1',
    'hupper==1.12.1',
    'iso8601==2.1.0',
    'PasteDeploy==3.1.0',
    'peppercorn==0.6',
    'plaster==1.1.2',
    'plaster-pastedeploy==1.0.1',
    'pyramid==2.1',
    'translationstring==1.4',
    'venusian==3.1.1',
    'waitress==3.0.2',
    'WebOb==1.8.11',
    'zope.deprecation==6.0',
    'zope.interface==8.7',
]


def ensure_installed() -> Path:
    """Pyramid's and Deform's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=HOLDOUT_ROOT)


class Server(ScriptServer):
    """The bike-rental counter served on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    script = Path(__file__).with_name("fietsbalie.py")
    ready = "/verhuur"
