"""The step evaluator on the second independent labelled set (holdout 2): actions on Wagtail's
admin and a MoinMoin 2 wiki, real third-party applications served from their own virtualenvs
under .local/holdout-apps (practice/realapps/wagtail, practice/realapps/moin; installed on first
use from PyPI, not in CI). Prints JSON.

    .venv/bin/python benchmarks/step_evaluator_holdout.py

Each application is started, the browser signs in once (unjudged), and every case of
tests/helpers/effect_cases_holdout2.py is judged by `workers.evaluator.watch_effect` in real
Chromium through `BrowserPool`, as runs are and as benchmarks/replay.py's
`step_evaluator_thirdparty` does. The positive class is "ineffective"; `scores` gives precision
and recall of flagging it and of calling effective actions effective; `wrong` lists the cases
whose verdict differs from the label (or that got none), `per_app` the counts per application.
A measurement of generalisation, with no target of its own; docs/datasets.md records the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def step_evaluator_holdout() -> dict:
    from tests.helpers.effect_cases_holdout2 import APPS, CASES, servers, sign_in
    from tests.helpers.effect_cases_thirdparty import measure

    return measure("holdout 2 (Wagtail 7.0 admin, MoinMoin 2.0.0b5; independent labels)", APPS, servers(),
                   cases=CASES, signs_in=sign_in)


if __name__ == "__main__":
    print(json.dumps(step_evaluator_holdout(), indent=2))
