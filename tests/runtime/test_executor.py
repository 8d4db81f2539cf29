"""The explicit-step executor, in a real Chromium against the practice site (the run loop around
it: test_runner.py).

One Chromium (one `BrowserPool`) serves the whole module from one event loop; each test gets a
fresh isolated browser context through `BrowserPool.new_environment`, exactly as runs do.
"""

from __future__ import annotations

import time


from tests.helpers import runtime
from tests.helpers.runtime import PASSWORD, expect_error, local_secrets, run_spec, step
from workers import steps as S
from workers.executor import ExplicitExecutor, StepOutcome

browser = runtime.browser  # one Chromium for the module


async def run_steps(executor: ExplicitExecutor, *steps) -> list[StepOutcome]:
    return [await executor.run(s) for s in steps]


async def log_in(executor: ExplicitExecutor) -> None:
    await run_steps(
        executor,
        step(kind="goto", url="/login"),
        step(kind="fill", target="Username", value="demo"),
        step(kind="fill", target="Password", value="{{credentials.acme.password}}"),
        step(kind="click", target="Sign in"),
        step(kind="wait_for", url_contains="/expenses/new"),
    )


# --- goto ------------------------------------------------------------------------------


def test_goto_resolves_a_path_against_the_start_url(browser):
    async def body(env, ex):
        outcome = await ex.run(step(kind="goto", url="/lab/extract"))
        return env.page.url, outcome.grounding, await env.page.title()

    url, grounding, title = browser.session(body)
    assert url == browser.base_url + "/lab/extract"
    assert grounding == {"url": url}
    assert title.startswith("Product card")


def test_goto_outside_the_allowed_domains_is_refused_before_navigating(browser):
    async def body(env, ex):
        message = await expect_error(ex.run(step(kind="goto", url="http://example.com/")))
        return message, env.page.url

    message, url = browser.session(body, allowed_domains=["127.0.0.1"])
    assert "the run may only visit 127.0.0.1; blocked navigation to example.com" in message
    assert url == "about:blank"


def test_goto_to_a_missing_page_reports_the_http_status(browser):
    async def body(env, ex):
        return await expect_error(ex.run(step(kind="goto", url="/no-such-page")))

    assert "answered HTTP 404" in browser.session(body)


# --- fill, click, press --------------------------------------------------------------------


def test_fill_reveals_a_credential_only_when_typing(browser):
    fill = step(kind="fill", target="Password", value="{{credentials.acme.password}}")

    async def body(env, ex):
        await ex.run(step(kind="goto", url="/login"))
        outcome = await ex.run(fill)
        return outcome, await env.page.get_by_label("Password").input_value()

    outcome, typed = browser.session(body)
    assert typed == PASSWORD
    assert fill.value == "{{credentials.acme.password}}"  # the step (and its record) keeps the placeholder
    assert PASSWORD not in repr(fill.model_dump()) and PASSWORD not in repr(outcome)
    assert outcome.grounding["strategy"] == "label 'Password'"
    assert set(outcome.grounding["box"]) == {"x", "y", "width", "height"}


def test_fill_refuses_to_type_a_credential_on_another_domain(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/login"))
        message = await expect_error(ex.run(step(kind="fill", target="Password", value="{{credentials.acme.password}}")))
        return message, await env.page.get_by_label("Password").input_value()

    message, typed = browser.session(body, secrets=local_secrets(["acme.example"]))
    assert "may only be typed on acme.example, not on '127.0.0.1'" in message
    assert typed == ""


def test_click_submits_the_login_form(browser):
    async def body(env, ex):
        await log_in(ex)
        return env.page.url, await env.page.get_by_text("Signed in as").inner_text()

    url, banner = browser.session(body)
    assert url == browser.base_url + "/expenses/new"
    assert banner == "Signed in as demo"


def test_a_wrong_password_shows_the_sites_error(browser):
    async def body(env, ex):
        await run_steps(
            ex,
            step(kind="goto", url="/login"),
            step(kind="fill", target="Username", value="demo"),
            step(kind="fill", target="Password", value="wrong"),
            step(kind="click", target={"role": "button", "name": "Sign in"}),
            step(kind="assert", text="Invalid username or password."),
        )
        return env.page.url

    assert browser.session(body).startswith(browser.base_url + "/login")


def test_press_enter_on_a_target_submits_and_press_without_target_uses_the_keyboard(browser):
    async def body(env, ex):
        await run_steps(
            ex,
            step(kind="goto", url="/login"),
            step(kind="fill", target="Username", value="demo"),
            step(kind="click", target="Password"),
            step(kind="press", key="X"),  # types into the focused field
        )
        focused_value = await env.page.get_by_label("Password").input_value()
        await ex.run(step(kind="fill", target="Password", value="{{credentials.acme.password}}"))
        outcome = await ex.run(step(kind="press", key="Enter", target="Password"))
        await ex.run(step(kind="wait_for", url_contains="/expenses/new", timeout_s=5))
        return focused_value, outcome.grounding["strategy"]

    focused_value, strategy = browser.session(body)
    assert focused_value == "X"
    assert "Password" in strategy


# --- the expense flow: select, check, upload ---------------------------------------------


def test_the_two_step_expense_form_with_select_check_and_upload(browser):
    async def body(env, ex):
        await log_in(ex)
        await run_steps(
            ex,
            step(kind="fill", target="Title", value="Client lunch"),
            step(kind="fill", target="Amount", value="12.50"),
            step(kind="fill", target="Date", value="2024-03-05"),
            step(kind="select", target="Category", option="meals"),  # labels match case-insensitively
        )
        category = await env.page.get_by_label("Category").input_value()
        await run_steps(ex, step(kind="click", target="Next"), step(kind="wait_for", text="Step 2 of 2"))
        await run_steps(
            ex,
            step(kind="upload", target="Receipt", filename="receipt.txt", content="lunch 12.50"),
            step(kind="fill", target="Notes", value="With the Globex team"),
            step(kind="check", target="I confirm this expense is accurate"),
        )
        checked = await env.page.get_by_label("I confirm this expense is accurate").is_checked()
        files = await env.page.get_by_label("Receipt").evaluate("el => Array.from(el.files).map(f => [f.name, f.size])")
        await ex.run(step(kind="click", target="Submit expense"))
        await ex.run(step(kind="wait_for", text="Expense submitted"))
        details = await env.page.locator("dl").inner_text()
        return category, checked, files, env.page.url, details

    category, checked, files, url, details = browser.session(body)
    assert category == "Meals"
    assert checked is True
    assert files == [["receipt.txt", len("lunch 12.50")]]
    assert "/expenses/" in url and not url.endswith("/confirm")
    for expected in ("Client lunch", "Meals", "receipt.txt", "With the Globex team", "demo"):
        assert expected in details


def test_select_with_an_unknown_option_lists_the_options(browser):
    async def body(env, ex):
        await log_in(ex)
        return await expect_error(ex.run(step(kind="select", target="Category", option="Gifts")))

    message = browser.session(body)
    assert "option 'Gifts' not in 'Category'" in message
    for option in ("'Choose a category'", "'Travel'", "'Meals'", "'Lodging'", "'Office supplies'", "'Other'"):
        assert option in message


def test_select_on_something_that_is_not_a_select_fails_clearly(browser):
    async def body(env, ex):
        await log_in(ex)
        return await expect_error(ex.run(step(kind="select", target="Title", option="Meals", timeout_s=1)))

    assert "is not a select element" in browser.session(body)


def test_check_false_unchecks(browser):
    async def body(env, ex):
        await env.page.set_content('<label><input type="checkbox" checked> Remember me</label>')
        await ex.run(step(kind="check", target="Remember me", checked=False))
        return await env.page.get_by_label("Remember me").is_checked()

    assert browser.session(body) is False


# --- wait_for and assert -------------------------------------------------------------------


def test_wait_for_waits_until_delayed_content_appears(browser):
    async def body(env, ex):
        await run_steps(ex, step(kind="goto", url="/lab/delayed"), step(kind="click", target="Load data"))
        appeared_at_once = await env.page.get_by_text("Data loaded").count()
        t0 = time.monotonic()
        await ex.run(step(kind="wait_for", text="Data loaded", timeout_s=5))
        waited = time.monotonic() - t0
        outcome = await ex.run(step(kind="wait_for", target={"role": "cell", "name": "Kyoto"}, timeout_s=5))
        return appeared_at_once, waited, outcome

    appeared_at_once, waited, outcome = browser.session(body)
    assert appeared_at_once == 0
    assert waited < 3
    assert outcome.grounding["strategy"] == "role cell 'Kyoto'"


def test_wait_for_text_that_never_appears_fails_after_its_timeout(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/delayed"))
        t0 = time.monotonic()
        message = await expect_error(ex.run(step(kind="wait_for", text="Data loaded", timeout_s=0.5)))
        return message, time.monotonic() - t0

    message, took = browser.session(body)
    assert "text 'Data loaded' not found" in message and "after 0.5s" in message
    assert took < 3


def test_assert_text_present_absent_and_url(browser):
    async def body(env, ex):
        outcomes = await run_steps(
            ex,
            step(kind="goto", url="/login"),
            step(kind="assert", text="Sign in"),
            step(kind="assert", text="Invalid username or password.", absent=True, timeout_s=1),
            step(kind="assert", url_contains="/login"),
            step(kind="assert", url_contains="/expenses", absent=True, timeout_s=1),
            step(kind="assert", target={"role": "button", "name": "Sign in"}),
            step(kind="assert", target="Sign out", absent=True),
        )
        return outcomes

    outcomes = browser.session(body)
    assert outcomes[5].grounding["strategy"] == "role button 'Sign in'"
    assert outcomes[6].grounding == {}


FAILING_ASSERTS = [
    ({"text": "Welcome back"}, "text 'Welcome back' not found on "),
    ({"text": "Use your Acme account", "absent": True}, "text 'Use your Acme account' still there on "),
    ({"url_contains": "/expenses"}, "/login' does not contain '/expenses'"),
    ({"url_contains": "/login", "absent": True}, "/login' contains '/login'"),
    ({"target": "Sign in", "absent": True}, "target 'Sign in' still there on "),
    ({"target": "Sign out"}, "target 'Sign out' not found on "),
]


def test_failing_asserts_say_what_was_expected_within_their_timeout(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/login"))
        results = []
        for assertion, _ in FAILING_ASSERTS:
            t0 = time.monotonic()
            message = await expect_error(ex.run(step(kind="assert", timeout_s=0.5, **assertion)))
            results.append((message, time.monotonic() - t0))
        return results

    for (assertion, expected), (message, took) in zip(FAILING_ASSERTS, browser.session(body)):
        assert expected in message, assertion
        assert took < 3, assertion


# --- extract -------------------------------------------------------------------------------


def test_extract_single_values_with_and_without_a_pattern(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/extract"))
        return await run_steps(
            ex,
            step(kind="extract", target="Price", into="price", pattern=r"\$([0-9.]+)"),
            step(kind="extract", target={"label": "Price"}, into="price_text"),
            step(kind="extract", target={"role": "heading", "name": "Blue mug"}, into="name"),
            step(kind="extract", target={"css": "#price"}, into="currency", pattern=r"^\$"),
        )

    price, price_text, name, currency = browser.session(body)
    assert price.output == {"price": "12.50"}
    assert price.grounding["strategy"] == "label 'Price'"
    assert price_text.output == {"price_text": "$12.50"}
    assert name.output == {"name": "Blue mug"}
    assert currency.output == {"currency": "$"}


def test_extract_all_returns_every_feature_in_order(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/extract"))
        return await ex.run(
            step(kind="extract", target={"css": "ul[aria-label='Features'] li"}, into="features", all=True)
        )

    outcome = browser.session(body)
    assert outcome.output == {"features": ["Holds 350 ml", "Dishwasher safe", "Made of stoneware"]}
    assert outcome.grounding["count"] == 3


def test_extract_all_applies_the_pattern_to_each_item(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/delayed"))
        await ex.run(step(kind="click", target="Load data"))
        return await ex.run(step(kind="extract", target={"css": "tbody tr"}, into="rows", all=True,
                                 pattern=r"(\d+)$", timeout_s=5))

    assert browser.session(body).output == {"rows": ["120", "85", "240"]}


def test_extract_the_value_of_an_input(browser):
    async def body(env, ex):
        await run_steps(ex, step(kind="goto", url="/login"), step(kind="fill", target="Username", value="demo"))
        return await ex.run(step(kind="extract", target={"label": "Username"}, into="user", attribute="value"))

    assert browser.session(body).output == {"user": "demo"}


def test_extract_with_a_pattern_that_does_not_match_fails(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/extract"))
        return await expect_error(ex.run(step(kind="extract", target="Price", into="p", pattern=r"€\d+")))

    assert "extracted text '$12.50' does not match pattern" in browser.session(body)


# --- grounding errors ----------------------------------------------------------------------


def test_a_missing_target_fails_with_not_found_within_its_timeout(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/ambiguous"))
        t0 = time.monotonic()
        message = await expect_error(ex.run(step(kind="click", target="Delete account", timeout_s=0.5)))
        return message, time.monotonic() - t0

    message, took = browser.session(body)
    assert "target 'Delete account' not found" in message and "after 0.5s" in message
    assert 0.4 < took < 3


def test_an_ambiguous_target_fails_naming_the_matches(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/ambiguous"))
        message = await expect_error(ex.run(step(kind="click", target="Save", timeout_s=1)))
        status = await env.page.locator("#status").inner_text()
        return message, status

    message, status = browser.session(body)
    assert "ambiguous" in message and "2 matches" in message
    assert 'button "Save"' in message
    assert status == ""  # nothing was clicked


def test_nth_picks_one_of_several_matches(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/ambiguous"))
        picked = []
        for nth in (1, 0):
            outcome = await ex.run(step(kind="click", target={"text": "Save", "nth": nth}))
            picked.append((outcome.grounding["strategy"], await env.page.locator("#status").inner_text()))
        return picked

    (strategy_1, status_1), (strategy_0, status_0) = browser.session(body)
    assert status_1 == "Billing saved" and strategy_1.endswith("#1")
    assert status_0 == "Profile saved" and strategy_0.endswith("#0")


def test_nth_beyond_the_matches_fails(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/ambiguous"))
        return await expect_error(ex.run(step(kind="click", target={"text": "Save", "nth": 2}, timeout_s=1)))

    assert "has 2 matches; nth=2 does not exist" in browser.session(body)


def test_a_role_target_clicks_the_link(browser):
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/ambiguous"))
        await ex.run(step(kind="click", target={"role": "link", "name": "Help"}))
        return env.page.url

    assert browser.session(body) == browser.base_url + "/lab"


def test_the_executor_refuses_agent_steps(browser):
    async def body(env, ex):
        return await expect_error(ex.run(step(kind="agent", goal="Buy a mug")))

    assert "cannot run without a model" in browser.session(body)


# --- regressions for bugs found in review -------------------------------------------------------


def test_goto_refuses_non_http_urls_such_as_local_files(browser):
    async def body(env, ex):
        return await expect_error(ex.run(step(kind="goto", url="file:///etc/hostname")))

    assert "file" in browser.session(body, allowed_domains=[])


def test_a_run_parameter_cannot_smuggle_a_credential_placeholder(browser):
    spec = S.AutomationSpec.model_validate(
        {
            "start_url": browser.base_url + "/login",
            "allowed_domains": ["127.0.0.1"],
            "steps": [
                {"kind": "fill", "target": "Username", "value": "{{user}}"},
                {"kind": "extract", "target": {"label": "Username"}, "into": "typed", "attribute": "value"},
            ],
        }
    )
    result, recorder, _ = run_spec(browser, spec, params={"user": "{{credentials.acme.password}}"})
    assert PASSWORD not in repr(result.output)
    assert PASSWORD not in repr([r.output for r in recorder.records])


def test_a_wait_for_text_whose_page_is_gone_fails_at_once_as_browser_lost_not_at_its_timeout(browser):
    import asyncio

    from workers.errors import EnvironmentLost

    async def body(env, ex: ExplicitExecutor):
        await env.goto(browser.base_url + "/lab/effects")
        waiting = asyncio.create_task(ex.run(step(kind="wait_for", text="This never appears", timeout_s=30)))
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await env.page.close()  # what a killed Chromium looks like to the waiting read
        try:
            await waiting
        except EnvironmentLost as exc:
            return str(exc), time.monotonic() - started
        return "no error", time.monotonic() - started

    message, took = browser.session(body)
    assert message.startswith("browser lost:") and "closed" in message, message
    assert took < 5, took


def test_a_text_check_looks_once_in_full_however_short_its_wait(browser):
    """A condition's quick look (a few ms) on a busy machine: the text on the page is found, not
    missed because the wait ended before the first look finished."""
    async def body(env, ex):
        await ex.run(step(kind="goto", url="/lab/extract"))
        shown = await ex.run(S.AssertStep(text="Product card", timeout_s=10).model_copy(update={"timeout_s": 1e-6}))
        missing = await expect_error(ex.run(S.AssertStep(text="no such words", timeout_s=10).model_copy(
            update={"timeout_s": 1e-6})))
        return shown, missing

    shown, missing = browser.session(body)
    assert shown.grounding == {}
    assert "text 'no such words' not found" in missing
