"""Screenshot masking's two painters (workers/envs/masking.py): Chromium paints the mask of a
plain field itself (no decode and re-encode of the image), and wherever the page could defeat
that (its own `!important` styles, a filter or fading around the field, an editable element), the
worker paints over the image as before. Either way the field is MASK_FILL in the image."""

from __future__ import annotations

import pytest

from tests.runtime import test_executor as executor_tests
from tests.security.test_secrets import masked

browser = executor_tests.browser
pytestmark = pytest.mark.e2e

FIELDS = """<!doctype html><body style="margin:0;background:#fff">
<input id="plain" type="password" value="hunter2" style="position:absolute;left:20px;top:20px;width:200px;height:30px">
<input id="inline" type="password" value="hunter2"
  style="position:absolute;left:20px;top:80px;width:200px;height:30px;background:#fff !important;color:#000 !important">
<div style="filter:invert(1);position:absolute;left:20px;top:140px">
  <input id="filtered" type="password" value="hunter2" style="width:200px;height:30px"></div>
<div id="editable" contenteditable data-venus-secret
  style="position:absolute;left:20px;top:200px;width:200px;height:30px;color:#000">s3cret-value</div>
<h1 id="heading" style="position:absolute;left:300px;top:20px;margin:0">Not a secret</h1>
</body>"""


async def _shot(env, html: str):
    await env.page.set_content(html)
    boxes = await env.mask.boxes(env.page)
    shot = (await env.observe()).screenshot
    rects = {name: await env.page.locator(f"#{name}").bounding_box()
             for name in ("plain", "inline", "filtered", "editable", "heading")}
    return boxes, shot, rects


def test_chromium_paints_a_plain_field_and_the_worker_paints_what_the_page_could_defeat(browser):
    boxes, shot, rects = browser.session(lambda env, _: _shot(env, FIELDS))
    painted = {(round(x), round(y)) for x, y, _, _ in boxes}
    assert painted == {(20, 80), (20, 140), (20, 200)}  # inline !important, filtered, editable
    for name in ("plain", "inline", "filtered", "editable"):
        assert masked(shot, rects[name]), name
    assert not masked(shot, rects["heading"])


def test_a_page_with_only_plain_fields_is_masked_without_touching_the_image(browser):
    page = '<!doctype html><body style="margin:0"><input type="password" value="hunter2" id="plain">' \
           '<input id="inline"><input id="filtered"><input id="editable"><h1 id="heading">Hi</h1></body>'
    boxes, shot, rects = browser.session(lambda env, _: _shot(env, page))
    assert boxes == []  # nothing for the worker to paint: the screenshot is Chromium's, as taken
    assert masked(shot, rects["plain"])


REMEMBERED = """<!doctype html><body style="margin:0">
<input id="user" style="position:absolute;left:20px;top:20px;width:200px;height:30px">
<input id="code" style="position:absolute;left:20px;top:80px;width:200px;height:30px">
<input id="inline" type="password" value="hunter2"
  style="position:absolute;left:20px;top:140px;width:200px;height:30px;background:#fff !important;color:#000 !important">
<iframe id="inner" style="position:absolute;left:300px;top:20px;width:300px;height:120px"
  srcdoc="<input id='deep' style='width:200px;height:30px'>"></iframe>
</body>"""


async def _remembered(env, tag_in_frame: bool):
    page = env.page
    await page.set_content(REMEMBERED)
    await page.frame_locator("#inner").locator("#deep").wait_for()
    if tag_in_frame:  # the only remembered field is inside the iframe
        await env.mask.tag(page.frame_locator("#inner").locator("#deep"))
        return {(round(x), round(y)) for x, y, _, _ in await env.mask.boxes(page)}
    for name in ("user", "code"):
        await env.mask.tag(page.locator(f"#{name}"))
    # The page re-renders a remembered field: a fresh element without the tag, found again by its locator.
    await page.evaluate("() => { const old = document.getElementById('user'); const fresh = old.cloneNode();"
                        " fresh.removeAttribute('data-venus-secret'); old.replaceWith(fresh); }")
    return {(round(x), round(y)) for x, y, _, _ in await env.mask.boxes(page)}


def test_remembered_fields_are_measured_with_the_frame_in_one_call(browser):
    painted = browser.session(lambda env, _: _remembered(env, tag_in_frame=False))
    # The re-rendered field (found by its locator, tagged again) and the page-styled password field.
    assert painted == {(20, 20), (20, 140)}


def test_a_remembered_field_inside_a_frame_does_not_stop_the_page_being_measured(browser):
    """A locator that resolves inside an iframe cannot carry the main frame's measurement: the
    frame and each locator are then measured apart, and the page's own fields are still painted."""
    painted = browser.session(lambda env, _: _remembered(env, tag_in_frame=True))
    assert (20, 140) in painted  # the main page's password field, styled past Chromium's mask
