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



def paging(base_url: str, check: str, *after: dict) -> S.AutomationSpec:
    """Row 1: read the first invoice; rows 2-5: a repeat (Next, then a check for `check`) and its
    `end` row; then `after` from row 6."""
    return spec(base_url, {"kind": "extract", "name": "First invoice", "target": {"css": "li.invoice", "nth": 0},
                           "into": "first"},
                {"kind": "repeat", "until": {"element": NEXT, "negate": True, "wait_s": 0.2}, "max_iterations": 5,
                 "steps": [{"kind": "click", "name": "Next page", "target": NEXT},
                           {"kind": "assert", "name": "Check the page", "text": check, "timeout_s": 0.5}]}, *after)


def test_a_failure_inside_a_repeat_names_the_step_and_the_iteration_it_failed_in(browser):
    result, recorder, _ = run_spec(browser, paging(browser.base_url, "Page 2 of 3"), params={})

    assert result.status == "failed"
    # The second iteration's check is the trace's record #7; the editor shows it as step 4.
    assert result.reason == (f"step 4 (Check the page), iteration 2 of at most 5: text 'Page 2 of 3' not found on "
                             f"{browser.base_url}/lab/records?page=3 after 0.5s")
    assert recorder.records[-1].index == 7 and recorder.records[-1].name == "Check the page"


def test_a_failure_after_a_block_counts_the_blocks_rows_as_the_editor_does(browser):
    back = {"kind": "click", "name": "Back", "target": "Nowhere", "timeout_s": 0.5}
    result, recorder, _ = run_spec(browser, paging(browser.base_url, "Page", back), params={})

    assert result.status == "failed"
    assert result.reason.startswith(
        f"step 6 (Back): target 'Nowhere' not found on {browser.base_url}/lab/records?page=3 after 0.5s (buttons")
    assert recorder.records[-1].index == 9  # after two iterations of three records and the line that ended the block
