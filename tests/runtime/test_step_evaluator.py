"""The step evaluator (workers.evaluator): the labelled set of effective and ineffective actions
on the practice site, judged in a real Chromium exactly as the agent loop judges them, and the
evidence it records (never a typed value)."""

from __future__ import annotations

import pytest

from tests.helpers import runtime
from tests.helpers.effect_cases import CASES, judge_case, scores
from tests.helpers.runtime import local_secrets
from workers import actions as A
from workers.evaluator import PageState, judge

browser = runtime.browser  # one Chromium for the module


def test_the_labelled_set_is_judged_with_precision_and_recall_of_at_least_095(browser):
    async def body(env, ex):
        return [(case, await judge_case(env, browser.base_url, case)) for case in CASES]

    labelled = browser.session(body)
    wrong = [(c.name, e and e.to_json()) for c, e in labelled if e is None or e.effective != c.effective]
    figures = scores(labelled)
    assert figures["precision"] >= 0.95 and figures["recall"] >= 0.95, (figures, wrong)
    assert figures["effective_precision"] >= 0.95 and figures["effective_recall"] >= 0.95, (figures, wrong)
    checks = {c.name: e.check for c, e in labelled if e}
    assert checks["click a disabled button"] == "target_disabled"
    assert checks["click a link"] == "navigation"
    assert checks["type 6 digits into a maxlength-4 field"] == "field_value"
    assert checks["check a bad code: an error appears"] == "error_message"


def test_a_typed_vault_value_is_checked_without_its_value_or_length_in_the_evidence(browser):
    async def body(env, ex):
        from tests.helpers.effect_cases import Case

        return await judge_case(env, browser.base_url,
                                Case("secret", "type:{{credentials.acme.password}}", True, setup=("click:#notes",)))

    effect = browser.session(body, secrets=local_secrets())
    assert effect.verdict == "effective" and effect.evidence == {"matches": True, "secret": True}
    assert runtime.PASSWORD not in str(effect.to_json())


@pytest.mark.parametrize("after,verdict,check", [
    (PageState(url="http://h/b"), "effective", "navigation"),
    (PageState(url="http://h/a", errors=("Wrong code",)), "error", "error_message"),
    (PageState(url="http://h/a", digest="2"), "effective", "page_changed"),
    (PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True}),
     "ineffective", "target_disabled"),
    (PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True},
               invalid=("email",)), "ineffective", "target_disabled"),
])
def test_judge_decides_a_click_from_the_page_before_and_after(after, verdict, check):
    before = PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True})
    effect = judge(A.Click(point=(10, 10)), before, after)
    assert (effect.verdict, effect.check) == (verdict, check)


def test_judge_flags_a_submit_blocked_by_an_invalid_field():
    page = PageState(url="http://h/a", digest="1", target={"key": 3, "tag": "button"}, invalid=("email",))
    effect = judge(A.Click(point=(1, 1)), page, page)
    assert (effect.verdict, effect.check, effect.evidence) == ("error", "form_invalid", {"invalid_fields": ["email"]})
