"""The step evaluator on the independent third-party labelled set
(tests/helpers/effect_cases_thirdparty.py): Trac, Roundup and django CMS served from their own
virtualenvs on 127.0.0.1, real Chromium through `BrowserPool`. The figures are a measurement
(benchmarks/replay.py `step_evaluator_thirdparty` prints them); this test asserts that every case
ran to a verdict and that the figures are computed from them, never that they meet a target."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers.effect_cases import scores
from tests.helpers.effect_cases_thirdparty import APPS, CASES, judge_all, per_app, servers
from tests.helpers.runtime import local_secrets


def test_the_set_is_well_formed():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    assert {c.app for c in CASES} == set(APPS)
    assert len(CASES) >= 40
    ineffective = sum(not c.effective for c in CASES)
    assert 0.35 <= ineffective / len(CASES) <= 0.65, "about half the cases are ineffective"
    for case in CASES:
        assert case.why and case.path.startswith("/"), case.name
        assert case.action.partition(":")[0] in ("click", "dblclick", "type", "scroll", "enter", "select"), case.name


@pytest.mark.parametrize("app", APPS)
def test_every_case_gets_a_verdict(app):
    from practice.realapps._support import InstallError
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool

    async def go(server):
        host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
        try:
            return await judge_all(host, app, server, secrets=local_secrets())
        finally:
            await host.close()

    try:
        with servers()[app]() as server:
            labelled = asyncio.run(go(server))
    except InstallError as exc:  # a broken install fails loudly, as tests/realapps does
        pytest.fail(f"{app} could not be installed: {exc} (install it with scripts/realapps.sh)", pytrace=False)

    mine = [c for c in CASES if c.app == app]
    assert [c.name for c, _ in labelled] == [c.name for c in mine]
    missing = [c.name for c, e in labelled if e is None]
    assert not missing, f"no verdict for: {missing}"
    for _, effect in labelled:
        assert isinstance(effect.effective, bool)
    figures = scores(labelled)
    assert figures["cases"] == len(mine)
    assert figures["ineffective_cases"] == sum(not c.effective for c in mine)
    for key in ("precision", "recall", "effective_precision", "effective_recall"):
        assert 0.0 <= figures[key] <= 1.0
    row = per_app(labelled)[app]
    assert row["cases"] == len(mine) and 0 <= row["correct"] <= len(mine)
