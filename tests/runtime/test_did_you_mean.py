"""A target that is not found says what the page has that comes closest (`workers.did_you_mean`):
"Did you mean 'Submit expense'?", then the nearest few of the kind the step looks for. Names are
what a person sees on buttons, links and field labels, never what was typed into a field. Real
Chromium on the practice site and small pages served on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.helpers import runtime
from tests.helpers.local_pages import local_pages
from tests.helpers.runtime import PASSWORD, expect_error, run_spec, step
from workers import steps as S
from workers.did_you_mean import suggestion

browser = runtime.browser  # one Chromium for the module

LONG = "Submit expense " + "and notify every approver on the team " * 4
EXPENSE = f"""<!doctype html><title>Expense</title>
<nav><a href="/home">Home</a> <a href="/help">Help</a></nav>
<form method="post" action="/sent">
  <label for="email">Email address</label><input id="email" name="email">
  <button>Submit expense</button> <button type="button">Save draft</button> <button type="reset">Cancel</button>
  <button type="button" hidden>Submit expenses hidden</button>
</form>"""

TYPED = """<!doctype html><title>Profile</title>
<label for="pw">Password</label><input type="password" id="pw">
<label for="nick">Nickname</label><input id="nick">
<div role="textbox" contenteditable="true" aria-label="Bio"></div>
<button>Save profile</button>"""

# A hostile page: whatever is typed into the password field becomes a button's label.
ECHO = """<!doctype html><title>Sign in</title>
<label for="pw">Password</label><input type="password" id="pw">
<button id="echo">Sign in</button>
<script>
document.getElementById('pw').addEventListener('input', e => { document.getElementById('echo').textContent = e.target.value; });
</script>"""


@pytest.fixture(scope="module")
def site():
    with local_pages() as pages:
        pages.pages.update({"expense": EXPENSE, "typed": TYPED, "echo": ECHO, "empty": "<p>Nothing here</p>",
                            "long": f"<button>{LONG}</button>"})
        yield pages


def missing(site, page: str, **data):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url(page)))
        return await expect_error(ex.run(step(timeout_s=0.3, **data)))

    return body


def test_a_misspelt_button_gets_the_closest_names_on_the_page(browser, site):
    message = browser.session(missing(site, "expense", kind="click", target="Submit expence"))
    assert message.startswith(f"target 'Submit expence' not found on {site.url('expense')} after 0.3s. "
                              "Did you mean 'Submit expense'? (buttons and links on the page: 'Submit expense', ")
    assert message.endswith(", and 2 more)")  # of Home, Help, Save draft, Cancel: 2 are shown
    assert "hidden" not in message


def test_each_suggestion_is_cut_to_80_characters(browser, site):
    message = browser.session(missing(site, "long", kind="click", target="Submit expense and notify everyone"))
    assert "Did you mean '" + LONG[:79] + "…'" in message
    assert LONG[:90] not in message


def test_a_field_target_is_compared_with_the_fields_labels(browser, site):
    message = browser.session(missing(site, "expense", kind="fill", target="Emial adress", value="x"))
    assert message.endswith(". Did you mean 'Email address'? (fields on the page: 'Email address')")


def test_nothing_close_lists_what_there_is_and_an_empty_page_says_so(browser, site):
    message = browser.session(missing(site, "expense", kind="click", target="Quarterly totals"))
    assert "Did you mean" not in message and "(buttons and links on the page: '" in message
    message = browser.session(missing(site, "empty", kind="click", target="Submit"))
    assert message.endswith("after 0.3s (no buttons and links on the page)")


def test_the_practice_login_suggests_sign_in(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/login"))
        return await expect_error(ex.run(step(kind="click", target="Sign inn", timeout_s=0.3)))

    assert "Did you mean 'Sign in'?" in browser.session(body)


def test_what_was_typed_into_fields_is_never_suggested(browser, site):
    async def body(env, ex):
        await ex.run(step(kind="goto", url=site.url("typed")))
        await ex.run(step(kind="fill", target="Password", value="hunter2-topsecret"))
        await ex.run(step(kind="fill", target="Nickname", value="zorro-the-typed"))
        await ex.run(step(kind="fill", target="Bio", value="zorro-bio-typed"))
        return [await expect_error(ex.run(step(kind=kind, target=target, timeout_s=0.3, **extra)))
                for kind, target, extra in (("click", "hunter2-topsecre", {}), ("fill", "zorro-the-type", {"value": "x"}))]

    for message in browser.session(body):
        assert "hunter2" not in message.split(" not found ")[1] and "zorro" not in message.split(" not found ")[1]
        assert "on the page: '" in message


def test_a_secret_the_page_shows_on_a_button_is_scrubbed_from_the_failed_step(browser, site):
    spec = S.AutomationSpec.model_validate({
        "start_url": site.url("echo"), "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "fill", "target": "Password", "value": "{{credentials.acme.password}}"},
                  {"kind": "click", "name": "Sign in", "target": "Sign in", "timeout_s": 0.3}]})
    result, recorder, _ = run_spec(browser, spec)
    failed = recorder.records[-1]
    assert (failed.name, failed.status, result.status) == ("Sign in", "failed", "failed")
    assert "not found" in failed.error and "(buttons and links on the page: '" in failed.error
    assert PASSWORD not in failed.error and PASSWORD not in result.reason
    assert "pass" not in failed.error.split(" not found ")[1]  # no fragment of it either


def test_suggestions_rank_by_closeness_and_keep_page_order_among_equals():
    names = [[["action"], "link", ["Home"]], [["action"], "button", ["Save draft"]],
             [["action"], "button", ["Save"]], [["field"], "textbox", ["Save as"]],
             [["action"], "button", ["Sve"]]]
    assert suggestion("save", names, purpose="click") == (
        ". Did you mean 'Save', 'Save draft' or 'Sve'? (buttons and links on the page: 'Save', 'Save draft', 'Sve',"
        " and 1 more)")
    assert suggestion("quarterly totals", names, purpose="click").startswith(" (buttons and links on the page: ")
    assert suggestion("save", names, purpose="click", role="link") == " (links on the page: 'Home')"
