"""The step evaluator on an independent labelled set of real third-party applications, served from
their own virtualenvs under .local/holdout-apps (installed on first use from PyPI, not in CI).
Prints JSON.

    .venv/bin/python benchmarks/step_evaluator_holdout.py            # holdout 2 (the default)
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 3    # holdout 3
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 4    # holdout 4
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 5    # holdout 5
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 6    # holdout 6
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 7    # holdout 7
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 8    # holdout 8
    .venv/bin/python benchmarks/step_evaluator_holdout.py --set 9    # holdout 9

Holdout 2: actions on Wagtail's admin and a MoinMoin 2 wiki (practice/realapps/wagtail,
practice/realapps/moin; tests/helpers/effect_cases_holdout2.py). Holdout 3: actions on a small
Flask-AppBuilder contacts site and on Datasette (practice/realapps/flaskappbuilder,
practice/realapps/datasette; tests/helpers/effect_cases_holdout3.py). Holdout 4: actions on a small
German library admin built on Flask-Admin and on a Streamlit order-desk app
(practice/realapps/flaskadmin, practice/realapps/streamlitapp; tests/helpers/effect_cases_holdout4.py).
Holdout 5: actions on I Hate Money in French and on a NiceGUI bike-workshop desk
(practice/realapps/ihatemoney, practice/realapps/niceguiapp; tests/helpers/effect_cases_holdout5.py).
Holdout 6: actions on a Plotly Dash warehouse order desk and on Fava, Beancount's web interface, in
Spanish (practice/realapps/dashapp, practice/realapps/fava; tests/helpers/effect_cases_holdout6.py).
Holdout 7: actions on a dental clinic's front desk built on Shiny for Python in Portuguese and on
Django's own admin in Italian over a small wine shop (practice/realapps/ambulatorio,
practice/realapps/enoteca; tests/helpers/effect_cases_holdout7.py). Holdout 8: actions on a Swedish
library loans desk built on Gradio and on a Polish warehouse returns desk built on Flask and WTForms
(practice/realapps/lanedisk, practice/realapps/zwroty; tests/helpers/effect_cases_holdout8.py). Holdout 9:
actions on a Dutch bike-rental counter built on Pyramid with Deform and on a Czech permit desk built
on Solara (practice/realapps/fietsbalie, practice/realapps/zabory; tests/helpers/effect_cases_holdout9.py).

Each application is started, the browser signs in once (unjudged), and every case of the set is
judged by `workers.evaluator.watch_effect` in real Chromium through `BrowserPool`, as runs are and
as benchmarks/replay.py's `step_evaluator_thirdparty` does. The positive class is "ineffective";
`scores` gives precision and recall of flagging it and of calling effective actions effective;
`wrong` lists the cases whose verdict differs from the label (or that got none), `per_app` the
counts per application. A measurement of generalisation, with no target of its own;
docs/datasets.md records the result.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def step_evaluator_holdout(which: int = 2) -> dict:
    from tests.helpers.effect_cases_thirdparty import measure

    if which == 9:
        from tests.helpers.effect_cases_holdout9 import APPS, CASES, servers, sign_in

        label = "holdout 9 (Pyramid 2.1 + Deform 3.0.1 bike-rental counter in Dutch, Solara 1.58.2 permit desk in Czech; independent labels)"
    elif which == 8:
        from tests.helpers.effect_cases_holdout8 import APPS, CASES, servers, sign_in

        label = "holdout 8 (Gradio 6.31.0 loans desk in Swedish, Flask 3.1.3 + WTForms 3.3.2 returns desk in Polish; independent labels)"
    elif which == 7:
        from tests.helpers.effect_cases_holdout7 import APPS, CASES, servers, sign_in

        label = "holdout 7 (Shiny for Python 1.8.0 clinic desk in Portuguese, Django 5.2.19 admin in Italian; independent labels)"
    elif which == 6:
        from tests.helpers.effect_cases_holdout6 import APPS, CASES, servers, sign_in

        label = "holdout 6 (Dash 4.4.1 warehouse desk, Fava 1.30.16 in Spanish; independent labels)"
    elif which == 5:
        from tests.helpers.effect_cases_holdout5 import APPS, CASES, servers, sign_in

        label = "holdout 5 (I Hate Money 7.2.1 in French, NiceGUI 3.18.0 workshop desk; independent labels)"
    elif which == 4:
        from tests.helpers.effect_cases_holdout4 import APPS, CASES, servers, sign_in

        label = "holdout 4 (Flask-Admin 2.2.1 German library admin, Streamlit 1.67.0 order desk; independent labels)"
    elif which == 3:
        from tests.helpers.effect_cases_holdout3 import APPS, CASES, servers, sign_in

        label = "holdout 3 (Flask-AppBuilder 5.3 contacts site, Datasette 0.65.5; independent labels)"
    else:
        from tests.helpers.effect_cases_holdout2 import APPS, CASES, servers, sign_in

        label = "holdout 2 (Wagtail 7.0 admin, MoinMoin 2.0.0b5; independent labels)"
    return measure(label, APPS, servers(), cases=CASES, signs_in=sign_in)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="The step evaluator on an independent labelled set of real apps.")
    parser.add_argument("--set", type=int, choices=(2, 3, 4, 5, 6, 7, 8, 9), default=2, dest="which",
                        help="which independent labelled set to measure (default: 2)")
    return step_evaluator_holdout(parser.parse_args(argv).which)


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
