"""The step judges' record on the run page (issue 16, workers/step_judge.py): the votes with model,
latency and reason, and "needs a look" beside the step evaluator's verdict. A judge's words are model
text a hostile page may have shaped: they are shown escaped, and only to members who see the run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.dashboard.conftest import signed_in

HOSTILE_REASON = "<script>alert('judge')</script> only the clock changed"


@pytest.fixture
def judged_run(personas):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.models import Run, Step

    automation = automation_create(
        workspace=personas.workspace, user=personas.owner, slug="board", name="Board",
        definition={"start_url": "http://127.0.0.1:9/lab/ticking", "allowed_domains": ["127.0.0.1"],
                    "steps": [{"kind": "agent", "name": "Review", "goal": "Mark the board as reviewed"}]})
    look = "the step evaluator says effective but the judge says ineffective"
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=automation.current_version,
                             status="succeeded", verdict={"passed": True, "needs_a_look": True,
                                                          "look_reason": f"a step judge disagrees: step #1: {look}"})
    judge = {"asked_because": "weak deterministic verdict (page_changed)", "verdict": "ineffective", "needs_a_look": True,
             "look_reason": look, "prompt_sha256": "",
             "votes": [{"judge": "strict", "model": "qwen-vl", "vote": "ineffective", "reason": HOSTILE_REASON,
                        "latency_ms": 812.4}]}
    effect = {"verdict": "effective", "check": "page_changed", "evidence": {}}
    Step.objects.create(run=run, index=1, kind="agent", name="Review", status="succeeded",
                        started_at=timezone.now() - timedelta(minutes=1),
                        action={"text": "Click(point=(400, 300))", "actions": [{"type": "Click", "point": [400, 300]}]},
                        grounding={"mapped": [{"x": 1, "y": 2, "effect": effect, "judge": judge}], "effect": effect,
                                   "judge": judge})
    return run


def test_the_run_page_shows_the_step_judge_beside_the_evaluator_and_escapes_its_words(personas, judged_run):
    html = signed_in(personas.viewer).get(f"/runs/{judged_run.pk}/").content.decode()
    assert 'data-effect="effective"' in html and 'data-judge="ineffective"' in html
    assert "strict · qwen-vl · 812 ms" in html and "weak deterministic verdict (page_changed)" in html
    assert "the step evaluator says effective but the judge says ineffective" in html and "needs a look" in html
    assert HOSTILE_REASON not in html and "&lt;script&gt;alert(&#x27;judge&#x27;)&lt;/script&gt;" in html


def test_an_outsider_or_anonymous_caller_sees_nothing_of_it(personas, judged_run):
    from django.test import Client

    assert signed_in(personas.outsider).get(f"/runs/{judged_run.pk}/").status_code == 404
    anonymous = Client().get(f"/runs/{judged_run.pk}/")
    assert anonymous.status_code in (302, 401, 403) and "qwen-vl" not in anonymous.content.decode()
