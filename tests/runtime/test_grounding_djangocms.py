"""Grounding and typing on small pages that reproduce what django CMS's admin showed a business
user (practice/realapps/djangocms/FIRST_TRY.md): icon-only row actions whose name is the same in
every row of a tree, a state dot whose tooltip comes from the app's own attribute, and a slug the
app makes from the title as keys are pressed. Real Chromium (the `pages` fixture of
test_grounding)."""

from __future__ import annotations

from tests.runtime.test_grounding import Pages, error_of, pages, step  # noqa: F401 — the shared fixture

TREE = """
<style>
  .row { display: flex; align-items: center; height: 46px; border-bottom: 1px solid #ddd; }
  .title { width: 600px; } .cell { width: 46px; text-align: center; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .dot { display: inline-block; width: 14px; height: 14px; border-radius: 7px; background: #999; }
  .menu { display: none; } .menu.open { display: block; }
</style>
<div id="tree">
  <div class="row"><span class="title"><span>Home</span></span>
    <span class="cell"><span class="dot" data-cms-tooltip="published" onclick="open_('home')"></span></span>
    <span class="cell"><a href="/page/1/change/">✎<span class="sr-only">Page settings (SHIFT click for advanced
      settings)</span></a></span></div>
  <div class="row"><span class="title"><span>About us</span></span>
    <span class="cell"><span class="dot" data-cms-tooltip="published" onclick="open_('about')"></span></span>
    <span class="cell"><a href="/page/3/change/">✎<span class="sr-only">Page settings (SHIFT click for advanced
      settings)</span></a></span></div>
  <div class="row"><span class="title"><span>Spring sale</span></span>
    <span class="cell"><span class="dot" data-cms-tooltip="unpublished" onclick="open_('spring')"></span></span>
    <span class="cell"><a href="/page/5/change/">✎<span class="sr-only">Page settings (SHIFT click for advanced
      settings)</span></a></span></div>
</div>
<ul class="menu" id="menu-spring"><li><a href="#" onclick="done('preview')">Preview</a></li>
  <li><a href="#" onclick="done('publish')">Publish</a></li></ul>
<ul class="menu" id="menu-home"><li><a href="#" onclick="done('unpublish home')">Unpublish</a></li></ul>
<script>
  window.opened = []; window.clicked = [];
  function open_(row) {
    opened.push(row); const m = document.getElementById('menu-' + row); if (m) m.classList.add('open');
  }
  function done(what) { clicked.push(what); }
</script>
"""


def test_near_picks_the_icon_in_the_same_row_however_far_across_it_sits(pages):
    async def body(page, ex):
        outcome = await ex.run(step(kind="click", target={"text": "Page settings", "near": "About us"}, timeout_s=2))
        return outcome.grounding["box"]["y"], await page.get_by_text("About us").bounding_box()

    y, row = pages.run(TREE.replace('href="/page/', 'href="#/page/'), body)
    assert row["y"] - 20 < y < row["y"] + row["height"] + 20  # the About us row, not Home's or Spring sale's


def test_a_tooltip_from_an_apps_own_data_attribute_names_an_icon(pages):
    async def body(page, ex):
        await ex.run(step(kind="click", target={"text": "unpublished", "near": "Spring sale"}, timeout_s=2))
        await ex.run(step(kind="click", target="Publish", timeout_s=2))
        return await page.evaluate("[window.opened, window.clicked]")

    assert pages.run(TREE, body) == [["spring"], ["publish"]]


def test_a_published_dot_is_named_by_its_tooltip_and_scoped_by_its_row(pages):
    async def body(page, ex):
        message = await error_of(ex.run(step(kind="click", target="published", timeout_s=1)))
        await ex.run(step(kind="click", target={"text": "published", "near": "Home"}, timeout_s=2))
        return message, await page.evaluate("window.opened")

    message, opened = pages.run(TREE, body)
    assert "ambiguous: 2 matches" in message
    assert opened == ["home"]


SLUG = """
<form onsubmit="event.preventDefault(); window.sent = true">
  <label for="t">Title:</label> <input id="t" name="title">
  <label for="s">Slug:</label> <input id="s" name="slug" required>
  <label for="d">Date:</label> <input id="d" type="date">
  <button>Save</button>
</form>
<script>
  window.sent = false;
  const t = document.getElementById('t'), s = document.getElementById('s');
  t.addEventListener('keyup', () => { s.value = t.value.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-'); });
</script>
"""


def test_fill_ends_with_a_key_press_so_a_slug_follows_the_title(pages):
    async def body(page, ex):
        await ex.run(step(kind="fill", target="Title", value="Summer team day", timeout_s=2))
        await ex.run(step(kind="fill", target="Date", value="2026-07-14", timeout_s=2))
        await ex.run(step(kind="click", target="Save", timeout_s=2))
        return (await page.locator("#t").input_value(), await page.locator("#s").input_value(),
                await page.locator("#d").input_value(), await page.evaluate("window.sent"))

    assert pages.run(SLUG, body) == ("Summer team day", "summer-team-day", "2026-07-14", True)
