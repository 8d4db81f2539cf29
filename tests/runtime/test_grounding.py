"""The DOM grounder on small pages that reproduce what business users met on apps nobody here
wrote: a hidden tooltip label beside a list, help text in a list's name, a section, an empty link
and an input sharing a word, an image and a title linking to one page, one label in two forms, a
panel that draws late, icon-only controls, typographic apostrophes. Real Chromium throughout."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from workers import steps as S
from workers.envs.browser import BrowserConfig
from workers.envs.pool import BrowserPool
from workers.errors import StepError
from workers.executor import ExplicitExecutor
from workers.grounding import locate
from workers.secrets import SecretBox

STEP = TypeAdapter(S.Step)


def step(**data) -> Any:
    return STEP.validate_python(data)


class Pages:
    """One Chromium for the module; each test body gets a fresh context holding `html`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.pool = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))

    def run(self, html: str, body: Callable[[Any, ExplicitExecutor], Awaitable]) -> Any:
        async def main():
            env = await self.pool.new_environment(allowed_domains=["127.0.0.1"], secrets=SecretBox())
            try:
                await env.page.set_content(html)
                return await body(env.page, ExplicitExecutor(env))
            finally:
                await env.close()

        return self.loop.run_until_complete(main())

    def close(self) -> None:
        self.loop.run_until_complete(self.pool.close())
        self.loop.close()


@pytest.fixture(scope="module")
def pages():
    pages = Pages()
    yield pages
    pages.close()


async def error_of(coro: Awaitable) -> str:
    with pytest.raises(StepError) as info:
        await coro
    return str(info.value)


# --- select: lists, their help text and a tooltip that repeats the label ------------------------

GROUPS = """
<style>.tip { position: absolute; left: -4000px; }</style>
<form>
  <div>
    <label for="grp">Available groups</label>
    <span class="help-icon" tabindex="0">ⓘ<span class="tip">Available groups</span></span>
    <select id="grp" multiple aria-describedby="grp-help">
      <option value="1">Editors</option><option value="2">Auditors</option>
    </select>
    <p id="grp-help">Hold Control to pick more than one.</p>
  </div>
  <div>
    <label for="perm">Available permissions <small>Pick the ones this role grants.</small></label>
    <select id="perm" multiple><option value="r">Read</option><option value="w">Write</option></select>
  </div>
  <div role="listbox" aria-label="Colour" tabindex="0">
    <div role="option" onclick="this.setAttribute('aria-selected','true')">Amber</div>
    <div role="option" onclick="this.setAttribute('aria-selected','true')">Teal</div>
  </div>
</form>
"""


def test_select_picks_the_list_not_the_tooltip_that_repeats_its_label(pages):
    async def body(page, ex):
        await ex.run(step(kind="select", target="Available groups", option="Auditors", timeout_s=2))
        return await page.locator("#grp").evaluate("el => Array.from(el.selectedOptions).map(o => o.label)")

    assert pages.run(GROUPS, body) == ["Auditors"]


def test_a_role_target_matches_a_name_with_or_without_the_help_text(pages):
    async def body(page, ex):
        await ex.run(step(kind="select", target={"role": "listbox", "name": "Available groups"}, option="Editors",
                          timeout_s=2))
        await ex.run(step(kind="select", target={"role": "listbox", "name": "Available permissions"}, option="Write",
                          timeout_s=2))
        await ex.run(step(kind="select", target="Available permissions", option="Read", timeout_s=2))
        return (await page.locator("#grp").input_value(),
                await page.locator("#perm").evaluate("el => Array.from(el.selectedOptions).map(o => o.value)"))

    groups, permissions = pages.run(GROUPS, body)
    assert groups == "1"
    assert permissions == ["r"]  # select_option replaces the selection


def test_select_on_a_custom_listbox_clicks_the_option(pages):
    async def body(page, ex):
        await ex.run(step(kind="select", target="Colour", option="teal", timeout_s=2))
        return await page.get_by_role("option", name="Teal").get_attribute("aria-selected")

    assert pages.run(GROUPS, body) == "true"


# --- fill: only what takes text --------------------------------------------------------------

INTRO = """
<nav><a href="#intro" aria-label="Intro">¶</a> <a href="#more">More</a></nav>
<section id="intro" aria-label="Intro"><h2>Intro</h2><p>Say who you are.</p></section>
<form><label for="bio">Intro</label> <input id="bio" name="intro"></form>
"""


def test_fill_ignores_a_section_and_a_link_with_the_same_name(pages):
    async def body(page, ex):
        outcome = await ex.run(step(kind="fill", target="Intro", value="Hello there", timeout_s=2))
        return outcome.grounding["strategy"], await page.locator("#bio").input_value()

    strategy, typed = pages.run(INTRO, body)
    assert typed == "Hello there"
    assert strategy == "label 'Intro'"


def test_fill_on_something_that_cannot_take_text_says_so(pages):
    html = '<p>Notes</p><button type="button">Notes</button>'

    async def body(page, ex):
        return await error_of(ex.run(step(kind="fill", target="Notes", value="x", timeout_s=0.5)))

    message = pages.run(html, body)
    assert "not found" in message and "is not something that can be typed into" in message
    assert 'button "Notes"' in message


def test_fill_finds_an_unlabelled_input_by_its_name_attribute(pages):
    html = '<form><input name="postal_code"> <input name="city"></form>'

    async def body(page, ex):
        await ex.run(step(kind="fill", target="Postal code", value="1000", timeout_s=2))
        return await page.locator("[name=postal_code]").input_value()

    assert pages.run(html, body) == "1000"


# --- check and click fit the action ------------------------------------------------------------


def test_check_picks_the_checkbox_and_a_switch_not_a_link_of_the_same_name(pages):
    html = """<a href="#help">Remember me</a> <label><input type="checkbox" id="rm"> Remember me</label>
              <span>Dark mode</span><button role="switch" aria-checked="false" aria-label="Dark mode"
              onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">◐</button>"""

    async def body(page, ex):
        await ex.run(step(kind="check", target="Remember me", timeout_s=2))
        await ex.run(step(kind="check", target="Dark mode", timeout_s=2))
        return (await page.locator("#rm").is_checked(), await page.get_by_role("switch").get_attribute("aria-checked"),
                await page.evaluate("location.hash"))

    assert pages.run(html, body) == (True, "true", "")


def test_click_prefers_the_control_to_a_heading_with_the_same_words(pages):
    html = """<h2>Archive</h2><p>Archive</p><div class="act" tabindex="0" onclick="document.title='archived'">Archive</div>"""

    async def body(page, ex):
        await ex.run(step(kind="click", target="Archive", timeout_s=2))
        return await page.title()

    assert pages.run(html, body) == "archived"


# --- links to one place are one target ------------------------------------------------------

PRODUCTS = """
<ul>
 <li><a href="#p-7"><img alt="Walnut desk lamp" width="40" height="40"
        src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></a> <a href="#p-7">Walnut desk lamp</a></li>
 <li><a href="#p-9"><img alt="Oak shelf" width="40" height="40" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></a>
     <a href="#p-9">Oak shelf</a></li>
</ul>
"""


def test_an_image_link_and_a_title_link_to_one_page_are_one_target(pages):
    async def body(page, ex):
        await ex.run(step(kind="click", target="Walnut desk lamp", timeout_s=2))
        return await page.evaluate("location.hash")

    assert pages.run(PRODUCTS, body) == "#p-7"


def test_links_to_different_pages_stay_ambiguous(pages):
    html = '<a href="#a">Details</a> <a href="#b">Details</a>'

    async def body(page, ex):
        return await error_of(ex.run(step(kind="click", target="Details", timeout_s=0.5)))

    assert "2 matches" in pages.run(html, body)


# --- one label in two forms: scoping and the ambiguity error ------------------------------

TWO_FORMS = """
<main>
  <div class="col"><h2>Log In</h2>
    <form id="login"><label>Email address <input type="email" name="login_email" placeholder="you@work.example"></label>
      <label>Password <input type="password" name="login_pw"></label><button>Log in</button></form></div>
  <div class="col"><h2>Register</h2>
    <form id="register"><label>Email address <input type="email" name="new_email"></label>
      <button>Create account</button></form></div>
  <form aria-label="Newsletter"><fieldset><legend>Stay in touch</legend>
    <label>Email address <input type="email" name="news_email"></label></fieldset></form>
</main>
"""


def test_an_ambiguous_target_describes_each_candidate_and_the_target_that_picks_it(pages):
    async def body(page, ex):
        return await error_of(ex.run(step(kind="fill", target="Email address", value="a@b.example", timeout_s=0.5)))

    message = pages.run(TWO_FORMS, body)
    assert "ambiguous: 3 matches" in message
    assert 'input[email] "Email address" (placeholder "you@work.example", name "login_email") in "Log In"' in message
    assert json.dumps({"label": "Email address", "within": "Log In"}) in message
    assert json.dumps({"label": "Email address", "within": "Register"}) in message
    assert '"within": "Stay in touch"' in message or '"within": "Newsletter"' in message
    assert 'input ""' not in message


def test_within_scopes_by_heading_legend_and_form_label(pages):
    async def body(page, ex):
        for within, value in (("Log In", "in@x.example"), ("register", "new@x.example"),
                              ("Stay in touch", "news@x.example")):
            await ex.run(step(kind="fill", target={"label": "Email address", "within": within}, value=value, timeout_s=2))
        await ex.run(step(kind="fill", target={"text": "Email address", "within": "Newsletter"}, value="n2@x.example",
                          timeout_s=2))
        return [await page.locator(f"[name={n}]").input_value() for n in ("login_email", "new_email", "news_email")]

    assert pages.run(TWO_FORMS, body) == ["in@x.example", "new@x.example", "n2@x.example"]


def test_each_proposed_target_picks_its_candidate(pages):
    async def body(page, ex):
        message = await error_of(ex.run(step(kind="fill", target="Email address", value="x", timeout_s=0.5)))
        picked = []
        for proposal in [json.loads(p) for p in re.findall(r"→ (\{[^}]*\})", message)]:
            found = await locate(page, S.Target.model_validate(proposal), purpose="fill", timeout_s=1)
            picked.append(await found.locator.get_attribute("name"))
        return picked

    assert pages.run(TWO_FORMS, body) == ["login_email", "new_email", "news_email"]


def test_near_picks_the_match_closest_to_a_text(pages):
    html = """<div style="display:flex;gap:400px"><div><p>Shipping</p><input aria-label="Street" id="s1"></div>
              <div><p>Billing</p><input aria-label="Street" id="s2"></div></div>"""

    async def body(page, ex):
        await ex.run(step(kind="fill", target={"text": "Street", "near": "Billing"}, value="Main St", timeout_s=2))
        missing = await error_of(ex.run(step(kind="fill", target={"text": "Street", "near": "Invoice"}, value="x",
                                             timeout_s=0.3)))
        return await page.locator("#s2").input_value(), await page.locator("#s1").input_value(), missing

    billing, shipping, missing = pages.run(html, body)
    assert (billing, shipping) == ("Main St", "")
    assert "the text 'Invoice' (near) is not on the page" in missing


def test_within_a_region_that_does_not_hold_the_target_says_where_the_matches_are(pages):
    async def body(page, ex):
        return await error_of(ex.run(step(kind="fill", target={"label": "Password", "within": "Register"}, value="x",
                                          timeout_s=0.3)))

    message = pages.run(TWO_FORMS, body)
    assert "not found" in message and "matches outside 'Register'" in message and 'in "Log In"' in message


def test_within_scopes_to_a_dialog_by_its_title(pages):
    html = """<button onclick="document.title='page'">Delete</button>
              <div role="dialog" aria-labelledby="dt"><h3 id="dt">Delete project?</h3>
              <button onclick="document.title='dialog'">Delete</button><button>Cancel</button></div>"""

    async def body(page, ex):
        await ex.run(step(kind="click", target={"text": "Delete", "within": "Delete project?"}, timeout_s=2))
        return await page.title()

    assert pages.run(html, body) == "dialog"


# --- a panel still drawing is not ambiguous ---------------------------------------------

LATE_PANEL = """
<button>Save draft</button> <button>Save as template</button>
<div id="panel"></div>
<script>
  setTimeout(() => {
    document.getElementById('panel').innerHTML =
      '<h3>Settings</h3><button onclick="document.title=\\'saved\\'">Save</button>';
  }, DELAY);
</script>
"""


def test_a_control_drawn_300_to_800_ms_late_is_found_not_called_ambiguous(pages):
    async def body(page, ex):
        await ex.run(step(kind="click", target="Save", timeout_s=5))
        return await page.title()

    for delay in (300, 800, *random.sample(range(300, 801), 3)):
        assert pages.run(LATE_PANEL.replace("DELAY", str(delay)), body) == "saved", delay


def test_a_field_drawn_late_is_found_while_another_field_already_matches_loosely(pages):
    html = """<label>Company name prefix <input id="b"></label>
              <div id="late"></div><script>setTimeout(() => { document.getElementById('late').innerHTML =
              '<label>Company <input id=c></label>'; }, 500)</script>"""

    async def body(page, ex):
        t0 = time.monotonic()
        await ex.run(step(kind="fill", target="Company", value="Acme", timeout_s=5))
        return await page.locator("#c").input_value(), time.monotonic() - t0

    value, took = pages.run(html, body)
    assert value == "Acme" and took < 3


def test_ambiguity_is_reported_only_when_the_timeout_passes(pages):
    async def body(page, ex):
        t0 = time.monotonic()
        message = await error_of(ex.run(step(kind="click", target="Save", timeout_s=1)))
        return message, time.monotonic() - t0

    message, took = pages.run(LATE_PANEL.replace("DELAY", "60000"), body)
    assert "ambiguous: 2 matches" in message
    assert took >= 1


# --- icon-only controls and typographic quotes ----------------------------------------------


def test_icon_only_controls_match_their_title_and_tooltip(pages):
    html = """<button title="More actions" onclick="document.title='more'"><svg width="16" height="16"><circle r="4"
              cx="8" cy="8"/></svg></button>
              <button aria-describedby="tip-arch" onclick="document.title='archive'"><svg width="16" height="16">
              <rect width="8" height="8"/></svg></button><div role="tooltip" id="tip-arch" hidden>Archive thread</div>
              <span data-tooltip="Pin to top" role="button" tabindex="0" onclick="document.title='pin'">📌</span>"""

    async def body(page, ex):
        titles = []
        for words in ("More actions", "archive thread", "Pin to top"):
            await ex.run(step(kind="click", target=words, timeout_s=2))
            titles.append(await page.title())
        return titles

    assert pages.run(html, body) == ["more", "archive", "pin"]


def test_quotes_apostrophes_case_and_spacing_are_normalised(pages):
    html = """<button onclick="document.title='sure'">Yes, I’m   sure</button>
              <label>“Display   name”: <input id="dn"></label> <label>Expiry (MM/YY) <input id="exp"></label>"""

    async def body(page, ex):
        await ex.run(step(kind="click", target="yes, i'm sure", timeout_s=2))
        await ex.run(step(kind="fill", target='"Display name"', value="Kim", timeout_s=2))
        await ex.run(step(kind="click", target={"role": "button", "name": "Yes, I'm sure"}, timeout_s=2))
        await ex.run(step(kind="fill", target="expiry (mm/yy)", value="04/31", timeout_s=2))
        return await page.title(), await page.locator("#dn").input_value(), await page.locator("#exp").input_value()

    assert pages.run(html, body) == ("sure", "Kim", "04/31")


# --- the Target model -----------------------------------------------------------------------


def test_target_accepts_within_and_near_and_describes_them():
    target = S.Target.model_validate({"label": "Email address", "within": "Log In", "near": "Forgot?"})
    assert target.describe() == "label 'Email address' within 'Log In' near 'Forgot?'"


@pytest.mark.parametrize("data, problem", [
    ({"text": "Email", "within": "  "}, "within needs visible words"),
    ({"text": "Email", "near": ""}, "near needs visible words"),
    ({"within": "Log In"}, "within and near only narrow one of these"),
    ({"text": "Email", "within": "x" * 201}, "at most 200 characters"),
])
def test_target_rejects_empty_or_lone_scopes_with_a_clear_error(data, problem):
    with pytest.raises(ValidationError) as info:
        S.Target.model_validate(data)
    assert problem in str(info.value)


def test_extract_all_keeps_every_link_and_does_not_wait_for_a_unique_match(pages):
    async def body(page, ex):
        t0 = time.monotonic()
        outcome = await ex.run(step(kind="extract", target={"css": "li a"}, into="links", all=True, timeout_s=10))
        return outcome.output["links"], time.monotonic() - t0

    links, took = pages.run(PRODUCTS, body)
    assert links == ["", "Walnut desk lamp", "", "Oak shelf"]  # image links have no text
    assert took < 3
