"""The safety gate at run time, in a real Chromium against the practice site: the context read
from the live page (buttons, links, inputs, dialogs, points, hidden text), allow / review / block,
and the review flow (approve, reject, edit, expiry, page changed, hold window) through `Runner`
with an in-memory recorder. No Django.
"""

from __future__ import annotations

import io
import json
import time

import httpx
import pytest
from PIL import Image

from tests.helpers import gate
from tests.helpers.definitions import PLACED
from tests.helpers.gate import (CARD, PASSWORD, Browser, ReviewRecorder, checkout_spec, judge, orders, run_gated,
                                secrets, step_named)
from tests.helpers.fake_model import FakeModel, venus
from workers import steps as S
from workers.agent import AgentConfig, AgentLoop
from workers.durable import Continuation
from workers.gates.context import probe_element, probe_focus, probe_point
from workers.gates.guard import SafetyGate
from workers.gates.review import ReviewDecision, ReviewQuestion
from workers.gates.safety import SafetyPolicy
from workers.policies.client import ModelClient, ModelSettings
from workers.runner import Runner
from workers.secrets import Credential, SecretBox

browser = gate.browser  # one Chromium for the module, pages signed in on request


# --- the context read from the page ------------------------------------------------------------


def test_a_buttons_context_has_its_role_name_form_and_heading(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/shop/checkout")
        button = env.page.get_by_role("button", name="Place order")
        return await probe_element(button), await button.bounding_box()

    probe, box = browser.page(body, cart=True)
    target = probe.target
    assert (target["role"], target["name"], target["tag"], target["input_type"]) == ("button", "Place order", "button", "submit")
    assert target["hidden"] is False
    assert abs(probe.box["x"] - box["x"]) < 1 and abs(probe.box["width"] - box["width"]) < 1
    assert probe.form_submit == "Place order"
    assert "Order summary" in probe.nearby  # the closest heading before it
    assert probe.url.endswith("/shop/checkout") and probe.title.startswith("Checkout")
    assert "Order summary" in probe.page_text and probe.dialog == ""
    verdict = judge(probe)
    assert (verdict.category, verdict.level, verdict.decision) == ("PAY", "R3", "review")


def test_a_links_context_has_its_href_and_a_navigation_link_is_allowed(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/account")
        return (await probe_element(env.page.get_by_role("link", name="Payment methods")),
                await probe_element(env.page.get_by_role("link", name="Help: deleting your account")))

    payment, help_link = browser.page(body)
    assert payment.target["role"] == "link" and payment.target["href"] == "/account/payment-methods"
    assert judge(payment).decision == "allow"
    assert judge(help_link).decision == "allow"  # risky words in a help link's text are not a command


def test_an_inputs_context_has_label_autocomplete_and_the_forms_submit_but_never_its_value(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/shop/checkout")
        field = env.page.get_by_label("Card number")
        await field.fill(CARD["number"])
        await field.focus()
        return await probe_element(field), await probe_focus(env.page)

    probe, focused = browser.page(body, cart=True)
    assert probe.target == focused.target
    target = probe.target
    assert (target["role"], target["name"], target["autocomplete"]) == ("textbox", "Card number", "cc-number")
    assert probe.form_submit == "Place order"
    assert "Payment" in probe.nearby  # the fieldset's legend
    assert "4242 4242 4242 4242" not in repr(target)  # a typed value is never read back
    assert "4242" not in repr(probe.form_fields) and target["form_method"] == "post"
    assert {"label": "Card number", "input_type": "text", "autocomplete": "cc-number", "name": "card_number", "filled": True,
            "chosen": ""} in probe.form_fields
    # Typing into the checkout form is not the commit: "Place order" is, and it is reviewed with the form.
    typed_number = judge(probe, {"action_type": "type", "typed_text": CARD["number"]})
    assert typed_number.decision == "allow" and typed_number.evidence[0].signal == "commit.lead_in"
    vaulted = judge(probe, {"action_type": "type", "typed_text": "{{credentials.card.number}}"})
    assert vaulted.decision == "allow"


def test_a_confirm_button_in_a_dialog_is_judged_by_the_dialog(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/account/delete")
        return (await probe_element(env.page.get_by_role("button", name="Delete my account")),
                await probe_element(env.page.get_by_role("button", name="Cancel")))

    delete, cancel = browser.page(body)
    assert delete.dialog.startswith("Delete account") and "This cannot be undone" in delete.dialog
    assert (judge(delete).category, judge(delete).decision) == ("ACCT", "review")
    assert judge(cancel).decision == "allow"


def test_the_expense_forms_next_moves_on_and_its_final_submit_is_reviewed(browser):
    async def body(env):
        page = env.page  # signed in, on page 1 of 2 of the expense form
        for label, value in (("Title", "Taxi"), ("Amount", "42.50"), ("Date", "2026-01-05")):
            await page.get_by_label(label).fill(value)
        await page.get_by_label("Category").select_option("Travel")
        next_ = await probe_element(page.get_by_role("button", name="Next"))
        await page.get_by_role("button", name="Next").click()
        await page.wait_for_url("**/expenses/new/confirm")
        await page.get_by_label("Receipt").set_input_files({"name": "r.txt", "mimeType": "text/plain", "buffer": b"taxi"})
        await page.get_by_label("I confirm this expense is accurate").check()
        return next_, await probe_element(page.get_by_role("button", name="Submit expense"))

    next_, submit = browser.page(body)
    assert "New expense report" in next_.nearby and "Step 1 of 2" in next_.page_text  # what read as "sending" before
    moved = judge(next_)
    assert (moved.category, moved.level, moved.decision) == ("NONE", "R1", "allow") and "step 1 of 2" in moved.reason
    submitted = judge(submit)
    assert (submitted.category, submitted.level, submitted.decision) == ("SEND", "R3", "review")
    assert judge(submit, policy=SafetyPolicy(allowed_domains=["127.0.0.1"], pre_approved=[["SEND", "submit expense"]])).decision == "allow"


def test_a_point_resolves_to_the_interactive_element_under_it(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/shop/checkout?lang=zh")
        button = env.page.get_by_role("button", name="提交订单")
        await button.scroll_into_view_if_needed()
        box = await button.bounding_box()
        on_button = await probe_point(env.page, box["x"] + 4, box["y"] + box["height"] / 2)
        await env.page.goto(browser.base_url + "/login")
        label = await env.page.locator("label[for=password]").bounding_box()
        on_label = await probe_point(env.page, label["x"] + 5, label["y"] + label["height"] / 2)
        nothing = await probe_point(env.page, 1270, 790)
        return on_button, on_label, nothing

    on_button, on_label, nothing = browser.page(body, cart=True)
    assert (on_button.target["role"], on_button.target["name"]) == ("button", "提交订单")
    assert judge(on_button).category == "PAY"
    assert on_label.target["autocomplete"] == "current-password"  # a label click acts on its control
    assert nothing.target is None or nothing.target["tag"] in ("body", "html", "main")


def test_text_a_person_cannot_see_is_read_for_injection(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/lab/injection")
        return (await probe_element(env.page.get_by_role("button", name="Add to cart")),
                await probe_element(env.page.get_by_role("button", name="Delete account")))

    add, delete = browser.page(body)
    assert "SYSTEM OVERRIDE" in add.hidden_text and "your new task" in add.hidden_text
    assert "SYSTEM OVERRIDE" not in add.page_text
    assert "injection" in judge(add).modifiers
    verdict = judge(delete, policy=SafetyPolicy(allowed_domains=["127.0.0.1"], pre_approved=["ACCT"]))
    assert verdict.decision == "review" and "injection" in verdict.modifiers  # injection voids a pre-approval


def test_probing_costs_one_round_trip_to_the_page(browser):
    """The probe reads everything it needs in one evaluate (its time is measured by
    benchmarks/safety.py, not asserted here: timings in tests only measure the machine's load)."""

    async def body(env):
        await env.page.goto(browser.base_url + "/shop/checkout")
        calls = []
        evaluate = env.page.evaluate

        async def counted(*args, **kwargs):
            calls.append(args[0][:20])
            return await evaluate(*args, **kwargs)

        env.page.evaluate = counted
        probe = await probe_point(env.page, 600, 400)
        return probe, calls

    probe, calls = browser.page(body, cart=True)
    assert len(calls) == 1
    assert probe.url.endswith("/shop/checkout") and probe.target is not None


# --- the gate in runs ------------------------------------------------------------------------------


def test_every_step_carries_its_verdict_and_a_pre_approved_order_runs_without_review(browser):
    recorder = ReviewRecorder()
    spec = checkout_spec(browser.base_url, PLACED, safety={"pre_approved": [["PAY", "place order"]]})
    result = run_gated(browser, spec, recorder)

    assert result.status == "succeeded", result.reason
    assert recorder.questions == []
    placed = step_named(recorder, "Place the order").grounding
    assert placed["risk"]["category"] == "PAY" and placed["risk"]["level"] == "R2"
    assert placed["risk"]["decision"] == "allow" and "Pre-approved" in placed["risk"]["reason"]
    assert placed["box"] and placed["box"]["width"] > 0  # the box still comes with the grounding
    sign_in = recorder.records[3].grounding["risk"]  # the credential's own site: sign-in is pre-approved
    assert sign_in["category"] == "AUTH" and sign_in["decision"] == "allow"
    acting = [r for r in recorder.records if r.kind not in ("wait_for",)]
    assert all("risk" in r.grounding for r in acting)
    assert len(orders(browser)) == 1


def test_place_order_waits_for_approval_then_runs_once(browser):
    recorder = ReviewRecorder(delay_s=3.0)
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED), recorder)

    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions
    assert question.description == "Click the button 'Place order'"
    assert question.verdict["category"] == "PAY" and question.verdict["level"] == "R3"
    assert question.action["kind"] == "click" and question.editable == ["target"]
    assert question.url.endswith("/shop/checkout") and len(question.fingerprint) == 32
    assert question.step["name"] == "Place the order"
    marked = Image.open(io.BytesIO(question.screenshot)).convert("RGB")
    x, y, w, h = question.target["rect"]
    red = marked.getpixel((round(x - 2), round(y + h / 2)))  # the frame drawn just outside the button
    assert red[0] > 150 and red[0] - max(red[1], red[2]) > 80
    record = step_named(recorder, "Place the order")
    review = record.grounding["risk"]["review"]
    assert review["decision"] == "approve" and review["decided_by"] == "rita" and review["session"] == "kept"
    assert review["waited_ms"] >= 3000 and record.act_ms < review["waited_ms"]  # waiting is not acting
    assert len(orders(browser)) == 1


def test_a_rejected_order_is_not_placed_and_the_run_fails_with_the_comment(browser):
    recorder = ReviewRecorder(decide=lambda q: ReviewDecision("reject", comment="over budget", decided_by="rita"))
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED), recorder)

    assert result.status == "failed"
    assert "Place the order" in result.reason and "rejected by reviewer rita" in result.reason
    assert "over budget" in result.reason
    record = recorder.records[-1]
    assert record.status == "failed" and record.grounding["risk"]["review"]["comment"] == "over budget"
    assert orders(browser) == []


def test_on_reject_skip_skips_the_step_and_the_run_goes_on(browser):
    recorder = ReviewRecorder(decide=lambda q: ReviewDecision("reject", comment="not today"))
    spec = checkout_spec(browser.base_url, {"kind": "assert", "text": "Checkout"}, safety={"on_reject": "skip"})
    result = run_gated(browser, spec, recorder)

    assert result.status == "succeeded", result.reason
    skipped = step_named(recorder, "Place the order")
    assert skipped.status == "succeeded" and skipped.grounding["skipped"] is True
    assert orders(browser) == []


def test_a_typed_card_is_not_reviewed_the_order_is_with_the_card_masked(browser):
    recorder = ReviewRecorder()
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED, card_number="4000 0566 5566 5556"), recorder)

    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions
    assert question.description == "Click the button 'Place order'" and question.verdict["category"] == "PAY"
    form = {f["label"]: f["value"] for f in question.form}
    assert form["Card number"] == "•••• 5556" and "4000 0566" not in json.dumps(question.detail())
    assert step_named(recorder, "Card number").grounding["risk"]["decision"] == "allow"
    (order,) = orders(browser)
    assert order["card_last4"] == "5556"


def test_an_approval_is_not_applied_to_a_changed_page_the_step_is_reviewed_again(browser):
    async def change_then_approve(question: ReviewQuestion) -> ReviewDecision:
        if len(recorder.questions) == 1:  # the page changes while the first review is pending
            page = browser.host.open_contexts()[-1].pages[-1]
            await page.evaluate("document.querySelector('#order-total').textContent = '$999.00'")
        return ReviewDecision("approve")

    recorder = ReviewRecorder(decide=change_then_approve)
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED), recorder)

    assert result.status == "succeeded", result.reason
    first, second = recorder.questions
    assert first.fingerprint != second.fingerprint
    assert step_named(recorder, "Place the order").grounding["risk"]["review"]["rechecks"] == 1
    assert len(orders(browser)) == 1


def test_an_expired_review_counts_as_rejected(browser):
    recorder = ReviewRecorder(decide=lambda q: ReviewDecision("expired"))
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED), recorder)

    assert result.status == "failed" and "expired without a decision" in result.reason
    assert orders(browser) == []


def test_past_the_hold_window_the_run_parks_and_its_continuation_resumes_it_in_a_restored_session(browser):
    spec = checkout_spec(browser.base_url, PLACED)
    waiting = ReviewRecorder(delay_s=3600)
    started = time.monotonic()
    parked = run_gated(browser, spec, waiting, hold_s=0.3)

    assert parked.status == "parked", parked.reason
    assert time.monotonic() - started < 30  # the run did not wait for the decision
    assert browser.host.open_contexts() == []  # the run's context is closed
    assert orders(browser) == []
    (question,) = waiting.questions
    continuation = Continuation.from_json(json.loads(json.dumps(parked.continuation.to_json())))  # as stored
    assert continuation.wait == {"kind": "review", "ref": "1", "fingerprint": question.fingerprint}
    assert continuation.url.endswith("/shop/checkout") and continuation.session["cookies"]
    assert continuation.next_index == len(waiting.records)
    assert continuation.output == {} and continuation.remaining_s and continuation.remaining_s > 1

    decided = ReviewRecorder(pending="1", questions=[question], opened={"1": 0.0})
    runner = Runner({"web": browser.host}, safety=SafetyGate(hold_s=0.3))
    result = browser.run(runner.run(spec, params={}, secrets=secrets(), recorder=decided, resume=continuation))

    assert result.status == "succeeded", result.reason
    (order,) = orders(browser)  # signed in again from the saved cookies, the form's fields typed again
    assert order["shipping"]["city"] == "London" and order["card_last4"] == "4242"
    place = step_named(decided, "Place the order")
    assert place.index == continuation.next_index  # the trace goes on where it stopped
    assert place.grounding["risk"]["review"]["session"] == "restored"
    assert place.grounding["risk"]["review"]["decision"] == "approve"


def test_a_prohibited_action_fails_the_step_as_blocked(browser):
    recorder = ReviewRecorder()
    typed_elsewhere = SecretBox({"acme": Credential("acme", {"username": "demo", "password": PASSWORD},
                                                    domains=["acme.example"])})
    spec = checkout_spec(browser.base_url)
    httpx.post(browser.base_url + "/api/reset")
    result = browser.run(Runner({"web": browser.host}, safety=SafetyGate()).run(spec, params={}, secrets=typed_elsewhere,
                                                                       recorder=recorder))
    assert result.status == "failed"
    assert result.reason.startswith("step 1 (fill): blocked:") and "acme.example" in result.reason
    assert recorder.records[-1].grounding["risk"]["level"] == "R4"
    assert recorder.questions == []


def test_navigation_outside_the_allowed_domains_is_blocked_by_the_gate(browser):
    recorder = ReviewRecorder()
    spec = S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "goto", "url": "https://payments.example.net/checkout"}],
    })
    result = run_gated(browser, spec, recorder)
    assert result.status == "failed"
    assert "blocked:" in result.reason and "payments.example.net" in result.reason
    assert recorder.records[-1].grounding["risk"]["category"] == "NAV-OUT"


def test_a_blocked_category_is_refused_without_review(browser):
    recorder = ReviewRecorder()
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED, safety={"blocked": ["PAY"]}), recorder)
    assert result.status == "failed" and "blocked: " in result.reason and "PAY is blocked" in result.reason
    assert recorder.questions == [] and orders(browser) == []


# --- agent actions -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_server():
    with FakeModel() as model:
        yield model


def agent_spec(browser: Browser) -> S.AutomationSpec:
    sign_in = checkout_spec(browser.base_url).steps[:4]
    return S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [*[s.model_dump(exclude_none=True) for s in sign_in], {"kind": "goto", "url": "/security"},
                  {"kind": "agent", "name": "Security", "goal": "Turn off two-factor authentication", "max_actions": 5}],
    })


def turn_off_point(browser: Browser) -> tuple[int, int]:
    async def body(env):
        await env.page.goto(browser.base_url + "/security")
        box = await env.page.get_by_role("button", name="Turn off two-factor authentication").bounding_box()
        return round((box["x"] + box["width"] / 2) / 1280 * 1000), round((box["y"] + box["height"] / 2) / 800 * 1000)

    httpx.post(browser.base_url + "/api/reset")
    return browser.page(body)


def two_factor_on(browser: Browser) -> bool:
    return httpx.get(browser.base_url + "/api/security").json()["accounts"]["demo"]["two_factor_enabled"]


def agent_loop(model: FakeModel) -> AgentLoop:
    return AgentLoop(ModelClient(ModelSettings(url=model.url, model=model.model, tries=1, timeout_s=10)), AgentConfig())


def test_a_rejected_agent_action_is_not_done_and_the_comment_goes_back_to_the_model(browser, model_server):
    model_server.clear()
    x, y = turn_off_point(browser)
    model_server.script(
        venus("Turn it off.", f"Click(point=({x}, {y}))"),
        venus("The reviewer said no.", "Finished(content='left on')"),
    )
    recorder = ReviewRecorder(decide=lambda q: ReviewDecision("reject", comment="keep 2FA on", decided_by="rita"))
    result = run_gated(browser, agent_spec(browser), recorder, agent=agent_loop(model_server))

    assert result.status == "succeeded", result.reason
    assert result.output == {"result": "left on"}
    (question,) = recorder.questions
    assert question.description == "Click the button 'Turn off two-factor authentication'"
    assert question.action["type"] == "Click" and question.verdict["category"] == "SEC"
    assert question.step["kind"] == "agent" and question.step["thought"] == "Turn it off."
    turn = [r for r in recorder.records if r.kind == "agent"][0]
    assert turn.grounding["risk"]["category"] == "SEC" and turn.grounding["mapped"][0]["skipped"] is True
    fed_back = str(model_server.requests[1]["messages"][-1])
    assert "rejected by reviewer rita" in fed_back and "keep 2FA on" in fed_back
    assert two_factor_on(browser)


def test_an_approved_agent_action_is_done_once(browser, model_server):
    model_server.clear()
    x, y = turn_off_point(browser)
    model_server.script(
        venus("Turn it off.", f"Click(point=({x}, {y}))"),
        venus("It is off.", "Finished(content='off')"),
    )
    recorder = ReviewRecorder()
    result = run_gated(browser, agent_spec(browser), recorder, agent=agent_loop(model_server))

    assert result.status == "succeeded", result.reason
    assert len(recorder.questions) == 1 and not two_factor_on(browser)
    turn = [r for r in recorder.records if r.kind == "agent"][0]
    assert turn.grounding["mapped"][0]["risk"]["review"]["decision"] == "approve"
    events = httpx.get(browser.base_url + "/api/security").json()["events"]
    assert [e["action"] for e in events] == ["two_factor_disabled"]
