"""Blocks in the run loop (`workers.runner.Runner` + `workers.flow`) in a real Chromium against the
practice site, without a worker: URL and element conditions, nested blocks, and a condition that
cannot be checked at run time failing the run with a record that says why."""

from __future__ import annotations

from tests.helpers import runtime
from tests.helpers.runtime import run_spec
from workers import steps as S

browser = runtime.browser  # one Chromium for the module
NEXT = {"role": "link", "name": "Next"}


def spec(base_url: str, *steps: dict) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({"start_url": base_url + "/lab/records", "allowed_domains": ["127.0.0.1"],
                                            "steps": list(steps)})


def test_url_and_element_conditions_choose_branches_in_nested_blocks(browser):
    inner = {"kind": "if", "condition": {"url_matches": r"page=3$"},
             "steps": [{"kind": "extract", "target": {"css": "li.invoice"}, "all": True, "into": "last"}]}
    result, recorder, _ = run_spec(browser, spec(
        browser.base_url,
        {"kind": "repeat", "until": {"element": NEXT, "negate": True, "wait_s": 0.2}, "max_iterations": 4,
         "steps": [{"kind": "click", "target": NEXT}, {"kind": "wait_for", "text": "Page"}, inner]},
    ), params={})
    assert result.status == "succeeded", result.reason
    assert result.output == {"last": ["INV-011", "INV-012"]}
    flows = [(r.kind, r.grounding["flow"].get("branch", r.grounding["flow"].get("iteration"))) for r in recorder.records
             if "flow" in r.grounding]
    assert flows == [("repeat", 1), ("if", "none"), ("repeat", 2), ("if", "then"), ("repeat", 2)]
    skipped = [r for r in recorder.records if r.status == "skipped"]
    assert [r.kind for r in skipped] == ["extract"]  # page 2: the inner block's one step
    assert [r.index for r in recorder.records] == list(range(len(recorder.records)))


def test_a_condition_on_a_value_not_set_fails_the_run_with_a_record_saying_why(browser):
    result, recorder, _ = run_spec(browser, spec(
        browser.base_url, {"kind": "if", "condition": {"value": "total", "op": "equals", "to": "1"},
                           "steps": [{"kind": "click", "target": NEXT}]}), params={})
    assert result.status == "failed"
    assert "value 'total' is not set" in result.reason
    last = recorder.records[-1]
    assert last.kind == "if" and last.status == "failed" and "could not be checked" in last.error
    assert not any(r.kind == "click" for r in recorder.records)  # never half-run past the block


def test_a_page_check_on_a_page_that_cannot_change_answers_at_once_and_one_with_scripts_is_waited_for(browser):
    # /lab/records has no script: "INV-999" is not there and cannot come, so the 5 s wait is not spent.
    result, recorder, _ = run_spec(browser, spec(
        browser.base_url, {"kind": "if", "condition": {"text_visible": "INV-999", "wait_s": 5},
                           "steps": [{"kind": "click", "target": NEXT}],
                           "else": [{"kind": "extract", "target": {"css": "li.invoice", "nth": 0}, "into": "first"}]}), params={})
    assert result.status == "succeeded", result.reason
    opened, checked = recorder.records[0], next(r for r in recorder.records if r.kind == "if")
    # The check alone (from the page opened and observed to its record), not the run's start-up.
    assert checked.started_at - (opened.started_at + (opened.act_ms + opened.observe_ms) / 1000) < 1.0
    assert result.output == {"first": "INV-001"}
    # /lab/delayed draws its data 500 ms after the click, from a script: the check waits for it.
    delayed = S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/lab/delayed", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "click", "target": {"role": "button", "name": "Load data"}},
                  {"kind": "if", "condition": {"text_visible": "Data loaded", "wait_s": 3},
                   "steps": [{"kind": "extract", "target": {"css": "#result td", "nth": 0}, "into": "city"}]}]})
    result, recorder, _ = run_spec(browser, delayed, params={})
    assert result.status == "succeeded", result.reason
    assert result.output == {"city": "Lisbon"}
