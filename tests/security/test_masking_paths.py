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
