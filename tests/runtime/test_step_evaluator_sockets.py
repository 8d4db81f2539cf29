"""Pages drawn over a websocket (Streamlit, LiveView, Blazor Server): the page is looked at once it
holds still (`BrowserEnvironment.ready`), and the step evaluator waits for the frames an action
started, so a server answering a second later (after the late reads gave up) is judged on its answer,
in real Chromium against a real websocket server (tests/helpers/socket_app.py)."""

from __future__ import annotations

import time

import pytest

from tests.helpers.runtime import open_browser
from tests.helpers.socket_app import ANSWER_S, socket_app
from workers import actions as A
from workers.envs.browser import VIEWPORT
from workers.evaluator import watch_effect


@pytest.fixture(scope="module")
def desk():
    with socket_app() as url, open_browser(url) as browser:
        yield browser


async def _click(env, selector: str) -> A.Click:
    box = await env.page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return A.Click(point=(round(x / VIEWPORT["width"] * 1000), round(y / VIEWPORT["height"] * 1000)))


def _judge(desk, selector: str):
    async def body(env, ex):
        await env.goto(desk.base_url + "/")
        await env.ready()
        drawn = await env.page.inner_text("#app")
        action = await _click(env, selector)
        started = time.monotonic()
        _, effect = await watch_effect(env, action, lambda: env.execute(action))
        return drawn, effect, time.monotonic() - started

    return desk.session(body)


def test_a_page_drawn_after_its_load_is_looked_at_once_drawn():
    with socket_app() as url, open_browser(url) as browser:
        async def body(env, ex):
            await env.goto(url + "/")
            right_away = await env.page.inner_text("#app")
            await env.ready()
            return right_away, await env.page.inner_text("#app"), (await env.observe()).url

        right_away, drawn, seen = browser.session(body)
    assert right_away == "Connecting..."  # the document alone: the content comes as frames
    assert drawn == "Orders: 3 open" and seen == url + "/"


def test_an_answer_a_second_later_over_the_socket_is_the_clicks_effect(desk):
    drawn, effect, took = _judge(desk, "#ask")
    assert drawn == "Orders: 3 open"
    assert (effect.verdict, effect.check) == ("effective", "page_changed")
    assert took >= ANSWER_S


def test_an_error_the_server_sends_a_second_later_is_an_error(desk):
    _, effect, _ = _judge(desk, "#check")
    assert effect.verdict == "error" and effect.evidence["errors"] == ["The customer name is required."]


def test_an_answer_that_draws_nothing_is_ineffective_and_the_wait_is_bounded(desk):
    _, effect, took = _judge(desk, "#nothing")
    assert (effect.verdict, effect.check) == ("ineffective", "nothing_changed")
    assert took < ANSWER_S + 3  # the answer, the quiet window and the late reads; not REQUEST_WAIT_S per read
