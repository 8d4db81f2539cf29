"""How `VENUS_STEP_JUDGES` reaches the agent runtime (venus_rpa/runs/judging.py `step_judge`): off by
default, judges only among the operator's `VENUS_JUDGES` (an unknown name is kept as an unavailable
judge, so the misconfiguration shows on every judged action), and step-judge looks merged with the
trace judges' on the run's verdict."""

from __future__ import annotations

import asyncio
import json

from venus_rpa.runs.judging import _looked, step_judge


def _close(judge) -> None:
    asyncio.run(judge.aclose())


def test_step_judges_are_off_unless_named(settings):
    settings.VENUS_MODEL_URL, settings.VENUS_MODEL = "http://127.0.0.1:9/v1", "ui-venus-2"
    settings.VENUS_STEP_JUDGES = ""
    assert step_judge() is None
    settings.VENUS_STEP_JUDGES = " , "
    assert step_judge() is None


def test_step_judges_are_the_operators_endpoints_with_one_bounded_try(settings):
    settings.VENUS_MODEL_URL, settings.VENUS_MODEL = "http://127.0.0.1:9/v1", "ui-venus-2"
    settings.VENUS_JUDGES = json.dumps([{"name": "qwen-vl", "url": "http://127.0.0.1:10/v1", "model": "qwen"}])
    settings.VENUS_STEP_JUDGES, settings.VENUS_STEP_JUDGE_TIMEOUT = "ui-venus, qwen-vl, http://10.0.0.1/v1, ui-venus", 7
    judge = step_judge()
    try:
        assert list(judge.judges) == ["ui-venus", "qwen-vl", "http://10.0.0.1/v1"]
        venus, qwen, url = judge.judges.values()
        assert (venus.settings.url, venus.settings.model) == ("http://127.0.0.1:9/v1", "ui-venus-2")
        assert (qwen.settings.url, qwen.settings.tries, qwen.settings.timeout_s) == ("http://127.0.0.1:10/v1", 1, 7)
        assert url is None  # a name that is not offered is never read as an address
        assert judge.timeout_s == 7
    finally:
        _close(judge)


def test_a_step_look_survives_the_trace_judges_and_both_reasons_are_kept():
    stepped = {"passed": True, "needs_a_look": True, "look_reason": "a step judge disagrees: step #1: x"}
    assert _looked(stepped, "") == stepped
    both = _looked(stepped, "the judges disagree: a pass, b fail")
    assert both["needs_a_look"] is True
    assert both["look_reason"] == "the judges disagree: a pass, b fail; a step judge disagrees: step #1: x"
    assert _looked({"passed": True}, "") == {"passed": True, "needs_a_look": False}
