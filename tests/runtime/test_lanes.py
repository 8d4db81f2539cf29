"""Lanes (`ForEachBlock.lanes`, `workers.lanes`) in the run loop, in a real Chromium against the
practice site: items worked on at once in signed-in contexts of their own, each item once with
its own records, one person at a time, a run parked in one lane resumed in that item with the
items it had not reached (or that stopped before acting) run after it."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import httpx

from tests.helpers import runtime
from tests.helpers.gate import ReviewRecorder, secrets as gate_secrets
from tests.helpers.runtime import run_spec
from tests.runtime.test_items_runner import expenses, final, items, lookups, reset, reviewed_sheet, spec
from workers import flow as F, steps as S
from workers.durable import Continuation
from workers.gates.guard import SafetyGate
from workers.items import Item
from workers.runner import Runner

browser = runtime.browser  # one Chromium for the module


def laned(spec_: S.AutomationSpec, lanes: int, **each) -> S.AutomationSpec:
    data = spec_.model_dump(mode="json", exclude_none=True)
    block = next(step for step in data["steps"] if step["kind"] == "for_each")
    block.update(lanes=lanes, **each)
    return S.AutomationSpec.model_validate(data)


def overlapped(records) -> bool:
    """Whether some item started before an earlier-started one ended (items ran at once)."""
    open_items: set[int] = set()
    for record in records:
        if record.status == "running":
            if open_items:
                return True
            open_items.add(record.number)
        else:
            open_items.discard(record.number)
    return False


def test_lanes_run_items_at_once_each_once_with_their_own_records(browser):
    reset(browser)
    httpx.get(browser.base_url + "/lab/lookup", params={"account": "ACC-L3-FILED"})
    rows = [("ACC-L1", "Looked up"), ("ACC-L2", "Looked up"), ("ACC-L3-FILED", "Looked up"),
            ("ACC-L4", "No such text"), ("ACC-L5", "Looked up"), ("ACC-L6", "Looked up"), ("ACC-L7", "Looked up")]
    result, recorder, _ = run_spec(browser, laned(spec(browser.base_url), 3), params={}, items=items(*rows))
    assert result.status == "failed" and result.reason.startswith("1 of 7 item(s) failed (item 4 of 7: ")
    statuses = {n: s for n, (s, _) in final(recorder).items()}
    assert statuses == {1: "succeeded", 2: "succeeded", 3: "skipped", 4: "failed", 5: "succeeded", 6: "succeeded",
                        7: "succeeded"}
    done = lookups(browser)
    assert sorted(done) == sorted(account for account, _ in rows) and len(done) == len(set(done))  # each once
    assert overlapped(recorder.items), [(r.number, r.status) for r in recorder.items]
    # Records interleave but never mix items: each fill typed its own item's account.
    accounts = {n: account for n, (account, _) in enumerate(rows, start=1)}
    fills = [r for r in recorder.records if r.kind == "fill"]
    assert fills and all(r.action["value"] == accounts[r.item] for r in fills)
    assert [r.index for r in recorder.records] == list(range(len(recorder.records)))
    ends = {r.number: r.output for r in recorder.items if r.status == "succeeded"}
    assert all(output.get("heading") for output in ends.values())
    done_line = [r for r in recorder.records if r.kind == "for_each" and "done" in r.name]
    assert done_line and done_line[-1].grounding["flow"]["items"]["succeeded"] == 5


def test_stop_on_failure_with_lanes_starts_no_item_after_the_failure(browser):
    reset(browser)
    rows = [("ACC-S1", "No such text"), *[(f"ACC-S{n}", "Looked up") for n in range(2, 9)]]
    result, recorder, _ = run_spec(browser, laned(spec(browser.base_url), 2, stop_on_failure=True), params={},
                                   items=items(*rows))
    assert result.status == "failed" and "item 1 of 8 failed and the block stops on the first failure" in result.reason
    started = [r.number for r in recorder.items if r.status == "running"]
    assert len(started) == len(set(started)) and 8 not in started
    assert all(final(recorder)[n][0] in ("succeeded", "failed") for n in started)  # those under way ended
    done = lookups(browser)
    assert len(done) == len(set(done)) == len(started)


def test_lanes_wait_for_one_person_at_a_time(browser):
    reset(browser)
    recorder = ReviewRecorder(delay_s=0.4)
    runner = Runner({"web": browser.host}, safety=SafetyGate(hold_s=600))
    result = browser.run(runner.run(laned(reviewed_sheet(browser.base_url), 2), params={}, secrets=gate_secrets(),
                                    recorder=recorder, items=sheet(3, "L")))
    assert result.status == "succeeded", result.reason
    assert sorted(q.step["item_number"] for q in recorder.questions) == [1, 2, 3]
    opened = sorted(recorder.opened.values())
    assert all(opened[i + 1] >= recorder.decided_at[i] for i in range(len(opened) - 1))  # never two at once
    assert sorted(expenses(browser)) == [f"INV-L{n} Review me" for n in (1, 2, 3)]


def sheet(count: int, tag: str) -> list[Item]:
    return [Item(n, {"title": f"INV-{tag}{n} Review me", "amount": "3.50", "date": "2026-11-20",
                     "category": "Meals"}, of=count) for n in range(1, count + 1)]


def test_a_run_parked_in_one_lane_resumes_that_item_and_runs_the_rest_once(browser):
    reset(browser)
    sheet_spec = laned(reviewed_sheet(browser.base_url), 2)
    waiting = ReviewRecorder(delay_s=3600)
    parked = browser.run(Runner({"web": browser.host}, safety=SafetyGate(hold_s=0.3)).run(
        sheet_spec, params={}, secrets=gate_secrets(), recorder=waiting, items=sheet(3, "P")))
    assert parked.status == "parked", parked.reason
    (question,) = waiting.questions  # the other lane never filed a review while one was waiting
    waiting_on = question.step["item_number"]
    states = final(waiting)
    other = ({1, 2} - {waiting_on}).pop()
    assert states[waiting_on][0] == "running" and states[other][0] == "pending"  # put back: it had done nothing
    assert 3 not in states and expenses(browser) == []
    put_back = [r for r in waiting.records if r.grounding.get("flow", {}).get("put_back")]
    assert [r.item for r in put_back] == [other]
    continuation = Continuation.from_json(json.loads(json.dumps(parked.continuation.to_json())))  # as stored
    assert continuation.loops["steps.4"] == waiting_on
    stored = sheet(3, "P")
    stored[waiting_on - 1].status = "running"  # as the database holds it
    decided = ReviewRecorder(pending="1", questions=[question], opened={"1": 0.0})
    result = browser.run(Runner({"web": browser.host}, safety=SafetyGate(hold_s=5)).run(
        sheet_spec, params={}, secrets=gate_secrets(), recorder=decided, resume=continuation, items=stored))
    assert result.status == "succeeded", result.reason
    assert {n: s for n, (s, _) in final(decided).items()} == {1: "succeeded", 2: "succeeded", 3: "succeeded"}
    assert decided.items[0].number == waiting_on and decided.items[0].status == "succeeded"  # finished first
    assert sorted(expenses(browser)) == [f"INV-P{n} Review me" for n in (1, 2, 3)]  # each row once



def test_a_lane_holds_the_runs_session_and_never_takes_a_slot_kept_for_runs(browser):
    """`BrowserPool.new_lane`: a context signed in as the run (cookies, this page's sessionStorage)
    at its page; None when the free slots are those the worker's runs may still need."""
    pool, settings = browser.host, browser.host.settings

    async def body(env, ex):
        await ex.run(S.GotoStep(url="/login"))
        await ex.run(S.FillStep(target="Username", value="demo"))
        await ex.run(S.FillStep(target="Password", value="{{credentials.acme.password}}"))
        await ex.run(S.ClickStep(target="Sign in"))
        await ex.run(S.WaitForStep(url_contains="/expenses/new"))
        await env.page.evaluate("() => sessionStorage.setItem('draft', 'INV-42')")
        capacity = settings.max_browsers * settings.contexts_per_browser
        pool.settings = dataclasses.replace(settings, run_slots=capacity)  # every free slot is a run's
        try:
            refused = await pool.new_lane(env)
        finally:
            pool.settings = settings
        lane = await pool.new_lane(env)
        try:
            return refused, lane.page.url, await lane.text_visible("Sign out"), await lane.page.evaluate(
                "() => sessionStorage.getItem('draft')"), lane.context is not env.context
        finally:
            await lane.close()

    refused, url, signed_in, draft, own_context = browser.session(body)
    assert refused is None
    assert url.endswith("/expenses/new") and signed_in and draft == "INV-42" and own_context


def test_two_lanes_asking_for_the_last_spare_slot_at_once_get_one(browser):
    """The spare-slot check is made again where the slot is taken, without waiting: two lanes
    asked for at once with one slot spare give one lane and one None, never a wait."""
    pool, settings = browser.host, browser.host.settings

    async def body(env, ex):
        await ex.run(S.GotoStep(url="/login"))
        capacity = settings.max_browsers * settings.contexts_per_browser
        pool.settings = dataclasses.replace(settings, run_slots=capacity - 1)  # this run's context + one spare
        try:
            got = await asyncio.gather(pool.new_lane(env), pool.new_lane(env))
        finally:
            pool.settings = settings
        opened = [lane for lane in got if lane is not None]
        for lane in opened:
            await lane.close()
        return len(opened), got.count(None)

    assert browser.session(body) == (1, 1)


def test_a_block_holding_an_agent_step_runs_one_item_at_a_time():
    """An agent step that reached the block after the save check (a called automation changed):
    the block has one lane at run time."""
    spec_ = S.AutomationSpec.model_validate({"start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"],
                                             "steps": [{"kind": "for_each", "lanes": 3, "steps": [
                                                 {"kind": "agent", "goal": "File {{item.title}}"}]}]})
    assert F.Flow(None, None, F.compile_program(spec_.steps)).lanes == 1
    spec_.steps[0].steps[0] = S.GotoStep(url="/expenses")
    assert F.Flow(None, None, F.compile_program(spec_.steps)).lanes == 3


def test_a_run_taken_over_elsewhere_stops_every_lane_before_its_next_click(browser):
    """A late heartbeat let the platform retry the run while two lanes were at work: the lane
    whose click is refused stops the other one too, and nothing more is clicked or finished."""
    from tests.runtime.test_runner import TakenOver

    reset(browser)
    rows = [(f"ACC-T{n}", "Looked up") for n in range(1, 9)]
    recorder = TakenOver(after=3)
    result, recorder, _ = run_spec(browser, laned(spec(browser.base_url), 2), recorder, params={}, items=items(*rows))
    assert result.status == "superseded" and "retried as attempt 2" in result.reason, result.reason
    assert recorder.finished is None
    assert len(recorder.intents) == 3
    done = lookups(browser)
    assert len(done) == len(set(done)) and 2 <= len(done) <= 3  # journaled clicks ran once; none after the refusal
    started = {r.number for r in recorder.items if r.status == "running"}
    assert len(started) <= 5  # no lane went on taking items after the run was taken
