"""When the browser environment counts a page as holding still (`BrowserEnvironment.ready`,
workers/envs/page_requests.py): a loaded document that cannot change itself is ready at once; one
whose script or inline handler draws after the load is waited for."""

from __future__ import annotations

import time

from tests.helpers import runtime

browser = runtime.browser  # one Chromium for the module

LATE = "setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; document.body.append(p); }, 80)"


def _ready(browser, html: str):
    async def body(env, ex):
        await env.page.set_content(html)
        started = time.monotonic()
        await env.ready()
        return time.monotonic() - started, await env.page.locator("#late").count()

    return browser.session(body)


def test_a_server_rendered_page_without_scripts_is_ready_as_soon_as_it_has_loaded(browser):
    waited, _ = _ready(browser, "<h1>Preferences</h1><form><input name=email><button>Continue</button></form>")
    assert waited < 0.1, waited  # not the 150 ms of quiet a page with scripts must show


def test_a_page_whose_script_draws_after_the_load_is_waited_for(browser):
    waited, late = _ready(browser, f"<h1>Orders</h1><script>{LATE}</script>")
    assert late == 1 and waited >= 0.08, waited


def test_an_inline_handler_counts_as_a_script(browser):
    waited, late = _ready(browser, f'<body onload="{LATE}"><h1>Orders</h1></body>')
    assert late == 1 and waited >= 0.08, waited


def test_a_frame_counts_as_a_script(browser):
    waited, _ = _ready(browser, '<h1>Orders</h1><iframe srcdoc="<p>inside</p>"></iframe>')
    assert waited >= 0.1, waited
