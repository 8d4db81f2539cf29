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

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def step_evaluator_holdout() -> dict:
    from tests.helpers.effect_cases import scores
    from tests.helpers.effect_cases_holdout2 import APPS, judge_all, servers
    from tests.helpers.effect_cases_thirdparty import per_app
    from tests.helpers.runtime import local_secrets
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool

    async def go(app: str, server):
        host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
        try:
            return await judge_all(host, app, server, secrets=local_secrets())
        finally:
            await host.close()

    labelled = []
    for app in APPS:
        with servers()[app]() as server:
            labelled += asyncio.run(go(app, server))
    figures = {"set": "holdout 2 (Wagtail 7.0 admin, MoinMoin 2.0.0b5; independent labels)", **scores(labelled)}
    figures["wrong"] = [f"{c.app}: {c.name}" for c, e in labelled if e is None or e.effective != c.effective]
    figures["no_verdict"] = sum(1 for _, e in labelled if e is None)
    figures["per_app"] = per_app(labelled)
    return figures


if __name__ == "__main__":
    print(json.dumps(step_evaluator_holdout(), indent=2))
