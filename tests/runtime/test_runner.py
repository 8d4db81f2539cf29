"""The run loop (`workers.runner.Runner`) around the explicit-step executor, in a real Chromium
against the practice site: records, outputs and schemas, failures, heartbeats, budgets."""

from __future__ import annotations

import asyncio
import time
from typing import Any


from tests.helpers import runtime
from tests.helpers.runtime import PASSWORD, ListRecorder, local_secrets, run_spec
from workers import steps as S
from workers.journal import Superseded
from workers.runner import Runner
from workers.sign_in import SavedSession

browser = runtime.browser  # one Chromium for the module


def login_spec(base_url: str, *extra_steps: dict, **spec: Any) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate(
        {
            "start_url": base_url + "/login",
            "allowed_domains": ["127.0.0.1"],
            "steps": [
                {"kind": "fill", "name": "Type the user", "target": "Username", "value": "{{user}}"},
                {"kind": "fill", "name": "Type the password", "target": "Password",
                 "value": "{{credentials.acme.password}}"},
                {"kind": "click", "name": "Sign in", "target": "Sign in"},
                {"kind": "wait_for", "name": "Wait for the form", "url_contains": "/expenses/new"},
                *extra_steps,
            ],
            **spec,
        }
    )


def test_runner_runs_a_spec_and_records_every_step_in_order(browser):
    spec = login_spec(browser.base_url, success_criteria={"url_contains": "/expenses/new", "text_visible": "Step 1 of 2"})
    result, recorder, _ = run_spec(browser, spec)

    assert result.status == "succeeded", result.reason
    assert result.reason == "all steps done and success criteria met"
    assert result.verdict["passed"] is True
    assert result.verdict["evidence"]["text_visible"] == {"expected": "Step 1 of 2", "ok": True}
    records = recorder.records
    assert [r.index for r in records] == [0, 1, 2, 3, 4]
    assert [r.kind for r in records] == ["goto", "fill", "fill", "click", "wait_for"]
    assert records[0].name == "Open the start URL"
    for record in records:
        assert record.status == "succeeded" and record.error == ""
        assert record.screenshot is not None and record.screenshot[:2] == b"\xff\xd8"
        assert record.started_at > 0 and record.act_ms > 0 and record.observe_ms > 0
        assert record.url.startswith(browser.base_url)
    assert records[-1].url == browser.base_url + "/expenses/new"
    assert records[1].action["value"] == "demo"  # parameters are filled in the record
    assert records[2].action["value"] == "{{credentials.acme.password}}"  # secrets are not
    assert PASSWORD not in repr([(r.action, r.grounding, r.output, r.error) for r in records])
    assert [r.started_at for r in records] == sorted(r.started_at for r in records)


def test_runner_collects_extracted_output_and_checks_it_against_the_schema(browser):
    spec = S.AutomationSpec.model_validate(
        {
            "start_url": browser.base_url + "/lab/extract",
            "allowed_domains": ["127.0.0.1"],
            "steps": [
                {"kind": "extract", "target": "Price", "into": "price", "pattern": r"\$([0-9.]+)"},
                {"kind": "extract", "target": {"css": "ul li"}, "into": "features", "all": True},
            ],
            "output_schema": {"type": "object", "required": ["price", "features"],
                              "properties": {"features": {"type": "array", "minItems": 3}}},
        }
    )
    result, _, _ = run_spec(browser, spec)
    assert result.status == "succeeded", result.reason
    assert result.output == {"price": "12.50", "features": ["Holds 350 ml", "Dishwasher safe", "Made of stoneware"]}

    spec.output_schema["properties"]["price"] = {"type": "number"}
    result, _, _ = run_spec(browser, spec)
    assert result.status == "failed"
    assert "output does not match the output schema" in result.reason
    assert result.verdict["evidence"]["output_valid"]["ok"] is False


def test_runner_stops_at_a_failing_step_and_names_it(browser):
    spec = login_spec(
        browser.base_url,
        {"kind": "click", "name": "Open reports", "target": "Reports", "timeout_s": 0.5},
        {"kind": "assert", "name": "Never reached", "text": "x"},
    )
    result, recorder, took = run_spec(browser, spec)

    assert result.status == "failed"
    assert result.reason.startswith("step 5 (Open reports): target 'Reports' not found")
    assert [r.status for r in recorder.records] == ["succeeded"] * 5 + ["failed"]
    failed = recorder.records[-1]
    assert "not found" in failed.error
    assert failed.screenshot[:2] == b"\xff\xd8"  # evidence of the failure
    assert took < 15


def test_a_failure_names_the_step_by_its_editor_number_not_its_trace_record(browser):
    """Without a start URL the trace's records are numbered from 0: the 3rd step is record #2."""
    spec = S.AutomationSpec.model_validate({"allowed_domains": ["127.0.0.1"], "steps": [
        {"kind": "goto", "name": "Open the login page", "url": browser.base_url + "/login"},
        {"kind": "fill", "name": "Type the user", "target": "Username", "value": "{{user}}"},
        {"kind": "click", "name": "Open reports", "target": "No such button", "timeout_s": 0.5}]})
    result, recorder, _ = run_spec(browser, spec)

    assert result.status == "failed"
    assert result.reason.startswith(f"step 3 (Open reports): target 'No such button' not found on "
                                    f"{browser.base_url}/login after 0.5s (buttons and links on the page: 'Sign in'")
    assert recorder.records[-1].index == 2 and recorder.records[-1].status == "failed"


class Sessions:
    """An in-memory `workers.sign_in.LoginSessions`."""

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], SavedSession] = {}

    async def load(self, *, credential: str, domain: str) -> SavedSession | None:
        return self.saved.get((credential, domain))

    async def save(self, *, credential: str, domain: str, state: dict, expires_at: float) -> None:
        self.saved[(credential, domain)] = SavedSession(state, time.time(), expires_at)

    async def discard(self, *, credential: str, domain: str) -> None:
        self.saved.pop((credential, domain), None)


def test_a_failure_after_a_sign_in_block_names_the_step_whether_the_block_ran_or_was_skipped(browser):
    """The block's records differ (its steps and "saved", or one "signed in with the saved
    session"); the step after it is the same editor step both times."""
    def signing_in(check: dict) -> S.AutomationSpec:
        data = login_spec(browser.base_url, {"kind": "click", "name": "Open reports", "target": "No such button",
                                             "timeout_s": 0.5}).model_dump(mode="json", exclude_none=True)
        for step in data["steps"][:3]:
            step["sign_in"] = True
        return S.AutomationSpec.model_validate({**data, "start_url": browser.base_url + "/expenses/new",
                                                "sign_in": {"check": check}})

    spec = signing_in({"text_visible": "Sign out", "url_excludes": "/login"})
    sessions, reasons, records = Sessions(), [], []
    for _ in range(2):
        recorder = ListRecorder()
        result = browser.run(Runner({"web": browser.host}).run(spec, params={"user": "demo"}, secrets=local_secrets(),
                                                                recorder=recorder, sessions=sessions))
        reasons.append(result.reason)
        records.append([r.name for r in recorder.records])

    expected = f"step 5 (Open reports): target 'No such button' not found on {browser.base_url}/expenses/new after 0.5s"
    assert reasons[0] == reasons[1] and reasons[0].startswith(expected + " (buttons and links on the page:")
    assert records[0][4] == "Saved the signed-in session for 127.0.0.1" and len(records[0]) == 7
    assert records[1][1] == "Signed in with the saved session" and len(records[1]) == 4

    result, _, _ = run_spec(browser, signing_in({"text_visible": "Never shown", "timeout_s": 0.5}))
    assert result.reason == ("the sign-in check after step 3 (Sign in): not signed in after the sign-in steps: "
                             "the text 'Never shown' is not visible")


def test_runner_reports_a_missing_parameter(browser):
    result, recorder, _ = run_spec(browser, login_spec(browser.base_url), params={})
    assert result.status == "failed"
    assert result.reason == "step 1 (Type the user): parameter 'user' is not set"
    assert recorder.records[-1].status == "failed"


def test_runner_fails_when_success_criteria_do_not_hold(browser):
    spec = login_spec(browser.base_url, success_criteria={"text_visible": "Expense submitted", "url_contains": "/done"})
    result, recorder, _ = run_spec(browser, spec)

    assert result.status == "failed"
    assert result.reason.startswith("success criteria not met")
    assert "'Expense submitted' is not visible" in result.reason and "does not contain '/done'" in result.reason
    assert result.verdict["passed"] is False
    assert result.verdict["evidence"]["url_contains"]["ok"] is False
    assert all(r.status == "succeeded" for r in recorder.records)


def test_success_criteria_are_filled_from_the_parameters_like_steps(browser):
    spec = login_spec(browser.base_url, success_criteria={"text_visible": "{{expected}}", "url_contains": "/expenses/{{page}}"})
    result, _, _ = run_spec(browser, spec, params={"user": "demo", "expected": "Step 1 of 2", "page": "new"})
    assert result.status == "succeeded", result.reason
    assert result.verdict["evidence"]["text_visible"] == {"expected": "Step 1 of 2", "ok": True}
    missing, _, _ = run_spec(browser, spec, params={"user": "demo", "page": "new"})
    assert missing.status == "failed" and missing.reason.startswith("success criteria could not be filled in")


def test_runner_cancels_when_the_heartbeat_says_so(browser):
    spec = login_spec(browser.base_url, {"kind": "wait_for", "name": "Wait forever", "text": "Never shown", "timeout_s": 10})
    recorder = ListRecorder()

    async def cancel_after_login():
        runner = Runner({"web": browser.host}, heartbeat_s=0.05)
        task = asyncio.ensure_future(
            runner.run(spec, params={"user": "demo"}, secrets=local_secrets(), recorder=recorder)
        )
        while len(recorder.records) < 5 and not task.done():
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # the never-ending wait_for is under way
        beats_before = recorder.heartbeats
        recorder.alive = False
        t0 = time.monotonic()
        result = await task
        return result, beats_before, time.monotonic() - t0

    result, beats_before, took = browser.run(cancel_after_login())

    assert beats_before >= 1  # the heartbeat ran all along and said "go on"
    assert result.status == "cancelled"
    assert result.reason == "cancelled by user"
    assert result.at == "step 5 (Wait forever)"  # where it stopped, as the editor numbers it
    assert len(recorder.records) == 5  # the interrupted step is not recorded
    assert took < 3  # promptly, not after the 10 s wait_for gives up


def test_a_click_that_changes_page_keeps_the_screen_it_acted_on_with_its_target_box(browser):
    """The box of a click that leads to another page marks the button on the page it was clicked on."""
    import io

    from PIL import Image, ImageChops, ImageStat

    result, recorder, _ = run_spec(browser, login_spec(browser.base_url))
    assert result.status == "succeeded", result.reason
    named = {r.name: r for r in recorder.records}
    typed, signed_in = named["Type the password"], named["Sign in"]
    assert signed_in.name == "Sign in" and signed_in.screenshot_before and signed_in.screenshot
    assert typed.screenshot_before is None  # typing: its own screenshot is the screen it acted on

    def image(jpeg: bytes):
        return Image.open(io.BytesIO(jpeg)).convert("L")

    def differs(a: bytes, b: bytes) -> float:
        return ImageStat.Stat(ImageChops.difference(image(a), image(b))).mean[0]

    # Before the click: the login page as the password was typed; after it: another page.
    assert differs(signed_in.screenshot_before, typed.screenshot) < 3
    assert differs(signed_in.screenshot_before, signed_in.screenshot) > 10
    box = signed_in.grounding["box"]
    assert 0 <= box["x"] and box["x"] + box["width"] <= 1280 and 0 <= box["y"] and box["y"] + box["height"] <= 800
    region = (int(box["x"]), int(box["y"]), int(box["x"] + box["width"]), int(box["y"] + box["height"]))
    inside_before = image(signed_in.screenshot_before).crop(region)
    inside_after = image(signed_in.screenshot).crop(region)
    assert ImageStat.Stat(ImageChops.difference(inside_before, inside_after)).mean[0] > 10  # the button is not there after


class TakenOver(ListRecorder):
    """Journals actions; from `after` intents on (or heartbeats, with `beats`), the platform says the run
    was retried elsewhere, as `venus_rpa.runs.journal` does after a late heartbeat."""

    def __init__(self, *, after: int = 10**6, beats: int = 10**6) -> None:
        super().__init__()
        self.after, self.beats, self.intents, self.finished = after, beats, [], None

    async def action_intent(self, entry) -> None:
        if len(self.intents) >= self.after:
            raise Superseded("run 7 was retried as attempt 2 while this worker still ran attempt 1")
        self.intents.append(entry.name)

    async def action_done(self, entry) -> None:
        pass

    async def heartbeat(self) -> bool:
        self.heartbeats += 1
        if self.heartbeats > self.beats:
            raise Superseded("run 7 ended (failed) while this worker still ran attempt 1")
        return True

    async def finish(self, records, result) -> None:
        self.finished = result


def test_a_run_taken_over_elsewhere_stops_before_its_next_action_and_records_nothing_more(browser):
    """A late heartbeat let the platform retry the run: this execution must not click again."""
    spec = login_spec(browser.base_url, {"kind": "fill", "name": "Amount", "target": "Amount", "value": "12.50"},
                      {"kind": "click", "name": "Next", "target": "Next"})
    recorder = TakenOver(after=1)  # "Sign in" is journaled; "Next" is refused
    result, recorder, _ = run_spec(browser, spec, recorder)

    assert result.status == "superseded"
    assert "retried as attempt 2" in result.reason
    assert recorder.intents == ["Sign in"]
    assert recorder.finished is None  # the run's end belongs to the new attempt
    assert [r.name for r in recorder.records][-1] == "Amount"  # "Next" never ran, so it has no record


def test_a_retry_from_the_start_records_after_the_lost_attempts_steps(browser):
    """A lost worker had recorded steps 0-4 but clicked nothing (runs.recovery.run_resume_point):
    the retry runs every step again, from a fresh page, its records numbered from 5."""
    from workers.journal import Resume

    result, recorder, _ = run_spec(browser, login_spec(browser.base_url),
                                   resume=Resume(position=0, url="", storage_state=None, output={}, next_index=5))
    assert result.status == "succeeded", result.reason
    assert [r.index for r in recorder.records] == list(range(5, 5 + len(recorder.records)))
    assert recorder.records[0].name == "Open the start URL" and recorder.records[0].kind == "goto"


def test_a_heartbeat_refused_as_taken_over_stops_the_run_within_a_beat(browser):
    spec = login_spec(browser.base_url, {"kind": "wait_for", "name": "Wait forever", "text": "Never shown", "timeout_s": 10})
    recorder = TakenOver(beats=3)
    result, recorder, took = run_spec(browser, spec, recorder, heartbeat_s=0.1)

    assert result.status == "superseded"
    assert "ended (failed)" in result.reason
    assert recorder.finished is None
    assert "Wait forever" not in [r.name for r in recorder.records]
    assert took < 5  # not after the 10 s wait gives up


def test_runner_times_out_past_max_seconds(browser):
    spec = S.AutomationSpec.model_validate(
        {
            "start_url": browser.base_url + "/lab/delayed",
            "allowed_domains": ["127.0.0.1"],
            "steps": [{"kind": "wait_for", "text": "Never shown", "timeout_s": 20}],
            "limits": {"max_seconds": 3},
        }
    )
    result, recorder, took = run_spec(browser, spec)
    assert result.status == "timed_out"
    assert result.reason == "run exceeded its time limit of 3s"
    assert 3 <= took < 10  # the limit, not the 20 s wait_for, ended it
    assert [r.kind for r in recorder.records] == ["goto"]


def test_runner_refuses_agent_steps_without_a_model(browser):
    spec = login_spec(browser.base_url, {"kind": "agent", "goal": "Submit an expense"})
    result, recorder, took = run_spec(browser, spec)
    assert result.status == "failed"
    assert "VENUS_MODEL_URL" in result.reason
    assert recorder.records == []
    assert took < 1


def test_runner_refuses_more_steps_than_the_limit(browser):
    spec = login_spec(browser.base_url, limits={"max_steps": 2})
    result, recorder, _ = run_spec(browser, spec)
    assert result.status == "failed"
    assert result.reason == "4 steps exceed the limit of 2"
    assert recorder.records == []
