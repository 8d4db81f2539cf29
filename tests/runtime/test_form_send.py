"""A click or Enter that was to send a form the browser refused as invalid fails the step at once,
quoting the browser's message per field (`workers.envs.form_send`); forms the browser does send
(valid, `novalidate`, `formnovalidate`) and buttons whose page handles the click itself go on as
before. Real Chromium; the practice site's expense form and small pages served on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from tests.helpers import runtime
from tests.helpers.local_pages import local_pages
from tests.helpers.runtime import expect_error, run_spec, step
from workers import steps as S
from workers.envs.form_send import refused_message

browser = runtime.browser  # one Chromium for the module

RECEIPT_FORM = """<!doctype html><title>Expense</title><h1>New expense</h1>
<form method="post" action="/sent"{attrs}>
  <label for="receipt">Receipt</label><input type="file" id="receipt" name="receipt" required>
  <label for="note">Note</label><input id="note" name="note">
  <button type="submit">Submit expense</button>
  <button type="submit" formnovalidate name="draft">Save draft</button>
</form>"""

# An app's own wizard: "Next" is a <button> in the form (so a submit button) whose handler cancels
# the click and shows the next part, where a required field is still empty.
WIZARD = """<!doctype html><title>Wizard</title>
<form method="post" action="/sent">
  <div id="one"><label>Name <input name="name"></label><button id="next">Next</button></div>
  <div id="two" hidden><label>Email <input type="email" name="email" required></label><button>Send</button></div>
</form>
<script>
document.getElementById('next').addEventListener('click', e => {
  e.preventDefault();
  document.getElementById('one').hidden = true;
  document.getElementById('two').hidden = false;
});
</script>"""

# The page checks the form itself in the click's handler (firing `invalid` events) and shows its
# own message: the browser did not refuse anything.
OWN_CHECK = """<!doctype html><title>Own check</title>
<form method="post" action="/sent">
  <label>Title <input name="title" required></label><button id="go">Save</button><p id="msg"></p>
</form>
<script>
document.getElementById('go').addEventListener('click', e => {
  if (!e.target.form.checkValidity()) { e.preventDefault(); document.getElementById('msg').textContent = 'Add a title'; }
});
</script>"""

ACCOUNT = """<!doctype html><title>Account</title>
<form method="post" action="/sent">
  <label for="email">Contact email</label><input type="email" id="email" name="email">
  <label for="pw">New password</label><input type="password" id="pw" name="pw" minlength="40" required>
  <button>Save account</button>
</form>"""


@pytest.fixture(scope="module")
def site():
    with local_pages() as pages:
        pages.pages.update({
            "receipt": RECEIPT_FORM.format(attrs=""), "receipt-novalidate": RECEIPT_FORM.format(attrs=" novalidate"),
            "wizard": WIZARD, "own-check": OWN_CHECK, "account": ACCOUNT,
        })
        yield pages


def sent(page) -> bool:
    return page.url.endswith("/sent")


def test_a_required_file_left_empty_fails_the_click_at_once_quoting_the_browser(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("receipt")))
        t0 = time.monotonic()
        message = await expect_error(ex.run(step(kind="click", target="Submit expense")))
        return message, time.monotonic() - t0, env.page.url

    message, took, url = browser.session(body)
    assert message == "The page did not send the form: 'Receipt': Please select a file."
    assert took < 5  # not after the next step's 10 s wait
    assert url == site.url("receipt")


def test_enter_in_a_field_of_the_form_is_refused_the_same_way(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("receipt")))
        await ex.run(step(kind="fill", target="Note", value="lunch"))
        return await expect_error(ex.run(step(kind="press", target="Note", key="Enter")))

    assert browser.session(body) == "The page did not send the form: 'Receipt': Please select a file."


def test_a_novalidate_form_and_a_formnovalidate_button_are_sent(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("receipt-novalidate")))
        await ex.run(step(kind="click", target="Submit expense"))
        await ex.run(step(kind="wait_for", text="Form sent", timeout_s=5))
        first = env.page.url
        await ex.run(step(kind="goto", url=site.url("receipt")))
        await ex.run(step(kind="click", target="Save draft"))
        await ex.run(step(kind="wait_for", text="Form sent", timeout_s=5))
        return first, env.page.url

    assert browser.session(body) == (site.url("sent"), site.url("sent"))


def test_a_valid_form_is_sent_normally(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("receipt")))
        await ex.run(step(kind="upload", target="Receipt", filename="r.txt", content="12.50"))
        await ex.run(step(kind="click", target="Submit expense"))
        await ex.run(step(kind="wait_for", text="Form sent", timeout_s=5))
        return env.page.url

    before = len(site.posts)
    assert browser.session(body) == site.url("sent")
    assert site.posts[before:] == [{"receipt": ["r.txt"], "note": [""]}]


def test_a_click_the_page_handles_itself_is_not_called_refused(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("wizard")))
        await ex.run(step(kind="click", target="Next"))
        await ex.run(step(kind="wait_for", text="Email"))
        await ex.run(step(kind="goto", url=site.url("own-check")))
        await ex.run(step(kind="click", target="Save"))
        await ex.run(step(kind="wait_for", text="Add a title"))
        return env.page.url

    assert browser.session(body) == site.url("own-check")


def test_typed_values_are_left_out_of_the_browsers_messages(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("account")))
        await ex.run(step(kind="fill", target="Contact email", value="alice-private-handle"))
        await ex.run(step(kind="fill", target="New password", value="hunter2-topsecret"))
        return await expect_error(ex.run(step(kind="click", target="Save account")))

    message = browser.session(body)
    assert message.startswith("The page did not send the form: 'Contact email': Please include an '@'")
    assert "'New password': " in message
    assert "alice" not in message and "hunter2" not in message


def test_the_expense_run_fails_on_the_submit_click_with_the_reason(browser):
    """The reported case: the receipt was not uploaded, and the run used to fail 10 s later on
    the next step's "text 'Expense submitted' not found"."""
    spec = S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [
            {"kind": "fill", "target": "Username", "value": "demo"},
            {"kind": "fill", "target": "Password", "value": "{{credentials.acme.password}}"},
            {"kind": "click", "target": "Sign in"},
            {"kind": "fill", "target": "Title", "value": "Client lunch"},
            {"kind": "fill", "target": "Amount", "value": "12.50"},
            {"kind": "fill", "target": "Date", "value": "2024-03-05"},
            {"kind": "select", "target": "Category", "option": "Meals"},
            {"kind": "click", "target": "Next"},
            {"kind": "check", "target": "I confirm this expense is accurate"},
            {"kind": "click", "name": "Submit", "target": "Submit expense"},
            {"kind": "wait_for", "text": "Expense submitted"},
        ]})
    result, recorder, took = run_spec(browser, spec)
    assert result.status == "failed"
    failed = recorder.records[-1]
    assert (failed.name, failed.status) == ("Submit", "failed")
    assert failed.error == "The page did not send the form: 'Receipt': Please select a file."
    assert took < 9


def test_back_on_the_expense_form_uses_its_own_form_and_is_not_refused(browser):
    """The "Back" button sits in the invalid form but sends another one (`form="back-form"`)."""
    async def body(env, ex):
        await runtime_log_in(ex)
        await ex.run(step(kind="fill", target="Title", value="Taxi"))
        await ex.run(step(kind="fill", target="Amount", value="8"))
        await ex.run(step(kind="fill", target="Date", value="2024-03-05"))
        await ex.run(step(kind="select", target="Category", option="Travel"))
        await ex.run(step(kind="click", target="Next"))
        await ex.run(step(kind="wait_for", text="Step 2 of 2"))
        await ex.run(step(kind="click", target="Back"))
        await ex.run(step(kind="wait_for", text="Step 1 of 2"))
        return env.page.url

    assert "/expenses/new" in browser.session(body)


async def runtime_log_in(ex) -> None:
    for s in (step(kind="goto", url="/login"), step(kind="fill", target="Username", value="demo"),
              step(kind="fill", target="Password", value="{{credentials.acme.password}}"),
              step(kind="click", target="Sign in"), step(kind="wait_for", url_contains="/expenses/new")):
        await ex.run(s)


def test_the_reason_stays_short_whatever_the_page_says():
    fields = [[f"Field {i}" + "x" * 200, "Custom " + "y" * 500] for i in range(7)]
    message = refused_message(fields)
    assert message.startswith("The page did not send the form: 'Field 0" + "x" * 72 + "…': Custom ")
    assert message.endswith("; and 2 more field(s).") and len(message) < 1600
