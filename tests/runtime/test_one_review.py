"""One review per consequential act (issue 12), through `Runner` in a real Chromium against the
practice site: typing into the checkout form and the lead-ins to a confirmation page are not
reviewed; the control that commits is, once, with the whole form (masked), the page's amounts and
a full-page screenshot; an approval is not asked again on the same page with the same values.
"""

from __future__ import annotations

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
from PIL import Image

from tests.helpers import gate
from tests.helpers.definitions import PLACED
from tests.helpers.gate import ReviewRecorder, checkout_spec, orders, run_gated, step_named
from workers import steps as S

browser = gate.browser  # one Chromium for the module

SIGN_IN = [
    {"kind": "fill", "target": "Username", "value": "{{credentials.acme.username}}"},
    {"kind": "fill", "target": "Password", "value": "{{credentials.acme.password}}"},
    {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
    {"kind": "wait_for", "url_contains": "/expenses/new"},
]


def spec(base_url: str, *steps: dict) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({"start_url": base_url + "/login", "allowed_domains": ["127.0.0.1"],
                                            "steps": [*SIGN_IN, *steps]})


def test_a_checkout_is_one_review_at_place_order_with_the_form_amounts_and_full_page(browser):
    recorder = ReviewRecorder()
    result = run_gated(browser, checkout_spec(browser.base_url, PLACED), recorder)

    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions  # not one per card field
    assert question.description == "Click the button 'Place order'"
    form = {f["label"]: f["value"] for f in question.form}
    assert form["Address"] == "12 Analytical Row" and form["Country"] == "United Kingdom"
    assert form["Card number"] == "•••• 4242" and form["CVC"] == "••••••" and form["Expiry (MM/YY)"] == "••••••"
    assert form["Name on card"].startswith("••••")  # a stored credential's value
    detail = json.dumps(question.detail(), ensure_ascii=False)
    assert "4242 4242" not in detail and "12/39" not in detail
    assert any("Total" in line and "$" in line for line in question.amounts), question.amounts
    assert question.full_page and question.target["rect"][1] > 0
    with Image.open(io.BytesIO(question.screenshot)) as image:
        assert image.height > 800  # the whole checkout page, taller than the 1280x800 viewport
        assert image.getpixel((int(question.target["rect"][0]) - 2, int(question.target["rect"][1]) + 5))[0] > 180  # marked
    gated = [r.name for r in recorder.records if (r.grounding or {}).get("risk", {}).get("decision") != "allow"
             and (r.grounding or {}).get("risk")]
    assert gated == ["Place the order"]
    assert len(orders(browser)) == 1


def test_the_delete_lead_in_is_not_reviewed_the_confirm_button_is(browser):
    recorder = ReviewRecorder()
    result = run_gated(browser, spec(browser.base_url,
                                     {"kind": "goto", "url": "/account"},
                                     {"kind": "click", "name": "Lead-in", "target": {"role": "button", "name": "Delete account"}},
                                     {"kind": "wait_for", "url_contains": "/account/delete"},
                                     {"kind": "click", "name": "Confirm", "target": {"role": "button", "name": "Delete my account"}}),
                       recorder)

    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions
    assert question.description == "Click the button 'Delete my account'"
    assert question.verdict["category"] in ("ACCT", "DEL")
    lead_in = step_named(recorder, "Lead-in").grounding["risk"]
    assert lead_in["decision"] == "allow" and lead_in["evidence"][0]["signal"] == "commit.lead_in"


def test_an_approval_is_not_asked_again_on_the_same_page_but_new_values_are(browser):
    steps = checkout_spec(browser.base_url).model_dump(mode="json", exclude_none=True)["steps"]
    cvc = next(i for i, s in enumerate(steps) if "CVC" in json.dumps(s.get("target")))
    place = steps[-1]
    # A CVC of two digits: the shop refuses the order and shows the checkout again with the card's
    # number, expiry and CVC cleared. Typed again as they were, the form is the one approved: not
    # asked again. (An empty required CVC would not do: the browser refuses to send the form, and
    # that fails the step at once, workers/envs/form_send.py.)
    bad_cvc = {**steps[cvc], "value": "12", "name": "Two-digit CVC"}
    card_again = [s for s in steps[4:cvc] if s.get("target", {}).get("text") in ("Card number", "Expiry (MM/YY)")]
    # Then a new city with a good CVC: new values, asked again. (Card fields are masked alike in the
    # question, so the CVC alone would not make the form look new.)
    city = {"kind": "fill", "name": "New city", "target": {"text": "City"}, "value": "Cambridge"}
    again = [*card_again, bad_cvc, {**place, "name": "Place again"},
             city, *card_again, steps[cvc], {**place, "name": "Place with CVC"}, PLACED]
    recorder = ReviewRecorder()
    result = run_gated(browser, spec(browser.base_url, *steps[4:cvc], bad_cvc, place, *again), recorder)

    assert result.status == "succeeded", result.reason
    first, second = recorder.questions  # the third click changed nothing: not asked again
    assert first.form != second.form  # the city was changed in between
    reused = step_named(recorder, "Place again").grounding["risk"]["review"]
    assert reused["reused"] is True and reused["decision"] == "approve"
    assert len(orders(browser)) == 1


# An admin-style list (Django admin's shape): choose "Delete selected users", "Go", then the
# confirmation page's "Yes, I'm sure". Served here: the practice site has no action chooser.
_LIST = """<!doctype html><title>Users</title><h1>Select user to change</h1>
<form method="post" action="/users"><label for="action">Action:</label>
<select id="action" name="action"><option value="">---------</option><option value="delete_selected">Delete selected users</option></select>
<button type="submit">Go</button><table><tr><td><input type="checkbox" name="pk" value="alice" aria-label="Select alice"></td>
<td>alice</td></tr></table></form>"""
_CONFIRM = """<!doctype html><title>Are you sure?</title><h1>Are you sure?</h1>
<p>Are you sure you want to delete the selected users? All of the following objects will be deleted: alice</p>
<form method="post" action="/users"><input type="hidden" name="action" value="delete_selected">
<input type="hidden" name="post" value="yes"><input type="submit" value="Yes, I'm sure"></form><a href="/users">No, take me back</a>"""


@pytest.fixture
def admin_site():
    deleted: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _send(self, html: str) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(_LIST)

        def do_POST(self) -> None:
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            if form.get("post") == ["yes"]:
                deleted.append("alice")
                self._send("<!doctype html><title>Users</title><p>Deleted 1 user.</p>")
            else:
                self._send(_CONFIRM)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", deleted
    server.shutdown()


def test_an_approved_go_covers_the_confirmation_page_of_the_same_act(browser, admin_site):
    base, deleted = admin_site
    steps = [{"kind": "check", "target": "Select alice", "checked": True},
             {"kind": "select", "name": "Choose", "target": "Action:", "option": "Delete selected users"},
             {"kind": "click", "name": "Go", "target": {"role": "button", "name": "Go"}},
             {"kind": "click", "name": "Confirm", "target": {"role": "button", "name": "Yes, I'm sure"}},
             {"kind": "wait_for", "text": "Deleted 1 user"}]
    recorder = ReviewRecorder()
    result = run_gated(browser, S.AutomationSpec.model_validate(
        {"start_url": base + "/users", "allowed_domains": ["127.0.0.1"], "steps": steps}), recorder)

    assert result.status == "succeeded", result.reason
    (question,) = recorder.questions  # one act, one review: at "Go", with the chosen action shown
    assert question.description == "Click the button 'Go'" and question.verdict["category"] == "DEL"
    assert {"label": "Action:", "type": "select", "value": "Delete selected users"} in question.form
    assert step_named(recorder, "Choose").grounding["risk"]["decision"] == "allow"
    covered = step_named(recorder, "Confirm").grounding["risk"]["review"]
    assert covered["covered"] and covered["decision"] == "approve" and deleted == ["alice"]


def test_the_full_page_review_shot_masks_a_stored_value_below_the_fold(browser):
    async def body(env):
        await env.page.goto(browser.base_url + "/shop/checkout")
        field = env.page.get_by_label("Card number")
        await env.mask.tag(field)
        await field.fill("4242 4242 4242 4242")
        await env.page.evaluate("() => scrollTo(0, 0)")
        box = await field.evaluate("e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + scrollY + r.height / 2]; }")
        shot, _, _, form = await env.review_view(None, None, None)
        return shot, box, await env.page.evaluate("() => [scrollY, innerHeight]"), form

    shot, (x, y), (scroll_y, view_h), form = browser.page(body, cart=True)
    assert y > view_h and scroll_y == 0  # below the first screen; the page is scrolled back
    with Image.open(io.BytesIO(shot)) as image:
        assert image.height > y and max(image.getpixel((int(x), int(y)))) < 40  # painted over, not the digits
    # No target: the focused field's form (the card number keeps focus after typing).
    assert {"label": "Card number", "type": "text", "value": "•••• 4242"} in form.fields
