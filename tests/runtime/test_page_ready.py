"""When the browser environment counts a page as holding still (`BrowserEnvironment.ready`,
workers/envs/page_requests.py): a loaded document that cannot change itself is ready at once; one
whose script or inline handler draws after the load is waited for. The classification is
asserted directly (`holds_still`), not through how long `ready` waited: under load the page may
have drawn and gone quiet before `set_content` returns."""

from __future__ import annotations

import time

from tests.helpers import runtime

browser = runtime.browser  # one Chromium for the module

LATE = "setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; document.body.append(p); }, 80)"


def _ready(browser, html: str):
    """(seconds `ready` waited, whether the late paragraph is there, whether the page `holds_still`)."""
    async def body(env, ex):
        await env.page.set_content(html)
        started = time.monotonic()
        await env.ready()
        return time.monotonic() - started, await env.page.locator("#late").count(), await env.holds_still()

    return browser.session(body)


def test_a_server_rendered_page_without_scripts_is_ready_as_soon_as_it_has_loaded(browser):
    waited, _, still = _ready(browser, "<h1>Preferences</h1><form><input name=email><button>Continue</button></form>")
    assert still and waited < 0.1, waited  # not the 150 ms of quiet a page with scripts must show


def test_a_page_whose_script_draws_after_the_load_is_waited_for(browser):
    _, late, still = _ready(browser, f"<h1>Orders</h1><script>{LATE}</script>")
    assert late == 1 and not still


def test_an_inline_handler_counts_as_a_script(browser):
    _, late, still = _ready(browser, f'<body onload="{LATE}"><h1>Orders</h1></body>')
    assert late == 1 and not still


def test_a_frame_counts_as_a_script(browser):
    _, _, still = _ready(browser, '<h1>Orders</h1><iframe srcdoc="<p>inside</p>"></iframe>')
    assert not still


def test_a_meta_refresh_counts_as_a_script(browser):
    # The page will replace itself (a "redirecting..." page): what it lacks now may come.
    _, _, still = _ready(browser, '<meta http-equiv="Refresh" content="30; url=/later"><h1>Redirecting</h1>')
    assert not still
