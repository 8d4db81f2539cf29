"""Items in the run loop (`workers.runner.Runner` + `workers.flow` + `workers.items`) in a real
Chromium against the practice site, without a worker: one run works through its items, a
condition skips one, a failed one does not stop the others (unless the block says so), items
already done are never run again, each item's records carry its number, a review raised in an
item names it, and a run parked inside an item resumes in that item."""

from __future__ import annotations

import json

import httpx

from tests.helpers import runtime
from tests.helpers.gate import ReviewRecorder, secrets as gate_secrets
from tests.helpers.runtime import run_spec
from venus_rpa.core.demo import demo_expense_items_definition
from workers import flow as F, steps as S
from workers.gates.guard import SafetyGate
from workers.items import Item
from workers.journal import Resume
from workers.durable import Continuation
from workers.runner import Runner

browser = runtime.browser  # one Chromium for the module


def spec(base_url: str, **each) -> S.AutomationSpec:
    body = [
        {"kind": "goto", "url": "/api/lookups"},
        {"kind": "if", "name": "Already looked up", "condition": {"text_visible": "{{item.account}}", "wait_s": 0.2},
         "steps": [{"kind": "skip_item", "reason": "already looked up"}]},
        {"kind": "goto", "url": "/lab/lookup"},
        {"kind": "fill", "name": "Account number", "target": "Account number", "value": "{{item.account}}"},
        {"kind": "click", "target": {"role": "button", "name": "Look up"}},
        {"kind": "assert", "name": "Check the page", "text": "{{item.expect}}", "timeout_s": 0.5},
        {"kind": "extract", "target": {"css": "h1"}, "into": "heading"},
    ]
    return S.AutomationSpec.model_validate({
        "start_url": base_url + "/lab/lookup", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "for_each", "name": "Every account", "steps": body, **each}]})


def items(*rows: tuple[str, str]) -> list[Item]:
    return [Item(n, {"account": account, "expect": expect}, of=len(rows)) for n, (account, expect) in
            enumerate(rows, start=1)]


def lookups(browser) -> list[str]:
    return httpx.get(browser.base_url + "/api/lookups").json()


def reset(browser) -> None:
    httpx.post(browser.base_url + "/api/reset")


def final(recorder) -> dict[int, tuple[str, str]]:
    out: dict[int, tuple[str, str]] = {}
    for record in recorder.items:
        out[record.number] = (record.status, record.error)
    return out


def test_each_item_runs_once_a_condition_skips_one_and_a_failed_one_does_not_stop_the_others(browser):
    reset(browser)
    httpx.get(browser.base_url + "/lab/lookup", params={"account": "ACC-2-FILED"})
    result, recorder, _ = run_spec(browser, spec(browser.base_url), params={}, items=items(
        ("ACC-1", "Looked up"), ("ACC-2-FILED", "Looked up"), ("ACC-3", "No such text"), ("ACC-4", "Looked up")))
    assert result.status == "failed"
    assert result.reason.startswith("1 of 4 item(s) failed (item 3 of 4: ")
    statuses = final(recorder)
    assert {n: s for n, (s, _) in statuses.items()} == {1: "succeeded", 2: "skipped", 3: "failed", 4: "succeeded"}
    assert statuses[2][1] == "already looked up"
    # Its step as the editor numbers it (the block's and the if's rows counted), not its trace record.
    assert statuses[3][1] == f"step 9 (Check the page): text 'No such text' not found on {browser.base_url}/lab/lookup?account=ACC-3 after 0.5s"
    assert lookups(browser) == ["ACC-2-FILED", "ACC-1", "ACC-3", "ACC-4"]  # each once; the filed one not again
    ends = [r for r in recorder.items if r.status == "succeeded"]
    assert all(r.output.get("heading") for r in ends)
    checks = [r.grounding["flow"] for r in recorder.records if r.kind == "if"]
    assert [c["text"] for c in checks] == ["ACC-1", "ACC-2-FILED", "ACC-3", "ACC-4"]  # the filled-in text
    by_item = {r.item for r in recorder.records if r.kind == "fill"}
    assert by_item == {1, 3, 4}
    assert [r.index for r in recorder.records] == list(range(len(recorder.records)))


def test_items_already_done_are_never_run_again(browser):
    reset(browser)
    done = items(("ACC-A", "Looked up"), ("ACC-B", "Looked up"), ("ACC-C", "Looked up"))
    done[0].status, done[2].status = "succeeded", "failed"
    result, recorder, _ = run_spec(browser, spec(browser.base_url), params={}, items=done)
    assert lookups(browser) == ["ACC-B"]
    assert result.status == "failed"  # item 3 stays failed from before
    assert [(r.number, r.status) for r in recorder.items] == [(2, "running"), (2, "succeeded")]


def test_stop_on_failure_fails_the_run_at_the_first_failed_item(browser):
    reset(browser)
    result, recorder, _ = run_spec(browser, spec(browser.base_url, stop_on_failure=True), params={}, items=items(
        ("ACC-X", "No such text"), ("ACC-Y", "Looked up")))
    assert result.status == "failed"
    assert result.reason.startswith("step 1 (Every account): item 1 of 2 failed and the block stops on the first "
                                    "failure: step 9 (Check the page): text 'No such text' not found")
    assert lookups(browser) == ["ACC-X"]
    assert [(r.number, r.status) for r in recorder.items] == [(1, "running"), (1, "failed")]


def test_a_run_without_items_for_a_for_each_block_fails_with_a_reason(browser):
    result, _, _ = run_spec(browser, spec(browser.base_url), params={}, items=[])
    assert result.status == "failed" and "given none" in result.reason



def reviewed_sheet(base_url: str) -> S.AutomationSpec:
    """The practice expense sheet with the form's sending ("Submit expense") not pre-approved: each item
    waits for a reviewer. One lane: items one after another (tests/runtime/test_lanes.py has them at once)."""
    definition = demo_expense_items_definition(base_url, lanes=1)
    steps = json.loads(json.dumps(definition["steps"]).replace("practice-login", "acme"))
    return S.AutomationSpec.model_validate({
        "start_url": definition["start_url"], "allowed_domains": ["127.0.0.1"], "steps": steps,
        "safety": {"pre_approved": [["AUTH", "sign in"], ["SHARE", "receipt"]]}})


def sheet_items(tag: str) -> list[Item]:
    rows = [{"title": f"INV-{tag}{n} Review me", "amount": "3.50", "date": "2026-11-20", "category": "Meals"}
            for n in (1, 2)]
    return [Item(n, row, of=2) for n, row in enumerate(rows, start=1)]


def expenses(browser) -> list[str]:
    return [e["title"] for e in httpx.get(browser.base_url + "/api/expenses").json()]


def test_a_review_raised_inside_an_item_names_the_item(browser):
    reset(browser)
    recorder = ReviewRecorder()
    runner = Runner({"web": browser.host}, safety=SafetyGate(hold_s=600))
    result = browser.run(runner.run(reviewed_sheet(browser.base_url), params={}, secrets=gate_secrets(),
                                    recorder=recorder, items=sheet_items("77")))
    assert result.status == "succeeded", result.reason
    # One review per item, at the form's final submit (its Next only moves to page 2), each naming its item.
    assert [q.description for q in recorder.questions] == ["item 1 of 2: Click the button 'Submit expense'",
                                                          "item 2 of 2: Click the button 'Submit expense'"]
    assert [(q.step["item"], q.step["item_number"]) for q in recorder.questions] == [("item 1 of 2", 1),
                                                                                   ("item 2 of 2", 2)]



def test_a_run_parked_inside_an_item_resumes_in_that_item_and_files_each_row_once(browser):
    reset(browser)
    spec = reviewed_sheet(browser.base_url)
    waiting = ReviewRecorder(delay_s=3600)
    runner = Runner({"web": browser.host}, safety=SafetyGate(hold_s=0.3))
    parked = browser.run(runner.run(spec, params={}, secrets=gate_secrets(), recorder=waiting,
                                    items=sheet_items("88")))
    assert parked.status == "parked", parked.reason
    assert [(r.number, r.status) for r in waiting.items] == [(1, "running")]
    continuation = Continuation.from_json(json.loads(json.dumps(parked.continuation.to_json())))  # as stored
    assert continuation.loops == {"steps.4": 1}  # the cursor: item 1 taken
    stored = sheet_items("88")
    stored[0].status = "running"  # as the database holds it
    (question,) = waiting.questions
    decided = ReviewRecorder(pending="1", questions=[question], opened={"1": 0.0})
    result = browser.run(Runner({"web": browser.host}, safety=SafetyGate(hold_s=0.3)).run(
        spec, params={}, secrets=gate_secrets(), recorder=decided, resume=continuation, items=stored))
    assert result.status == "succeeded", result.reason
    assert [(r.number, r.status) for r in decided.items] == [(1, "succeeded"), (2, "running"), (2, "succeeded")]
    assert decided.items[0].output["reference"].startswith("EXP-")
    assert expenses(browser) == ["INV-881 Review me", "INV-882 Review me"]  # each row once
    # The resumed item's own steps (its reviewed "Submit expense") and the next item's are recorded as theirs.
    assert {r.item for r in decided.records if r.kind == "click"} == {1, 2}


def test_a_run_retried_after_a_lost_worker_fails_the_item_in_doubt_and_goes_on(browser):
    reset(browser)
    spec_ = spec(browser.base_url)
    program = F.compile_program(spec_.steps, before=[S.GotoStep(url=spec_.start_url)])
    click = next(i for i, s in enumerate(program) if getattr(s, "kind", "") == "click")  # inside the body
    stored = items(("ACC-D1", "Looked up"), ("ACC-D2", "Looked up"))
    stored[0].status = "running"  # the lost worker was in item 1, after its click
    resume = Resume(position=click + 1, url=browser.base_url + "/lab/lookup", storage_state=None, output={},
                    next_index=7)
    result, recorder, _ = run_spec(browser, spec_, params={}, items=stored, resume=resume)
    assert lookups(browser) == ["ACC-D2"]  # item 1 is not run again blindly
    assert result.status == "failed" and "item 1 of 2" in result.reason
    assert [(r.number, r.status) for r in recorder.items] == [(1, "failed"), (2, "running"), (2, "succeeded")]
    assert "may be partly done" in recorder.items[0].error
