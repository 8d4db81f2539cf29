"""Widgets are recognised by structure, not by our wording, in real Chromium (Debian's):
- the practice site's text, slider and rotation widgets worded in eight languages and in none
  (`/captcha/<type>?lang=xx`) are found and typed right;
- hand-written widgets that never say "captcha" anywhere (no class, id, name or label hints,
  instructions in other languages or none) are found by their structure: an image next to a
  text input and a refresh control; a handle with a grab cursor on a track next to a picture
  with a piece over it; the same with a lone round picture (rotation), with a turned disc
  centred in an upright ring, or with a turned thumbnail beside its upright master (rotation);
- look-alikes are not: a sign-in form with a logo and a "forgot password" link, a page with a
  volume knob and no picture.
"""

from __future__ import annotations

import asyncio
import base64
import io

import pytest
from PIL import Image, ImageDraw

from practice.captcha.wording import LANGUAGES
from tests.helpers.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.practice import captcha_site
from workers.captcha.detect import detect

site = captcha_site.site  # the practice site, one per module
PRACTICE_KINDS = ("ocr", "slider_puzzle", "image_rotation")


def data_uri(image: Image.Image) -> str:
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _picture(width: int, height: int, seed: int) -> Image.Image:
    image = Image.new("RGB", (width, height), (200, 220, 240))
    draw = ImageDraw.Draw(image)
    for i in range(12):
        x, y = (seed * 37 + i * 53) % width, (seed * 17 + i * 29) % height
        draw.ellipse((x, y, x + 30, y + 24), fill=((i * 40) % 255, (i * 90) % 255, 120))
    return image


TEXT = _picture(150, 50, 1)
SCENE = _picture(300, 160, 2)
PIECE = SCENE.crop((120, 40, 170, 90))
ROUND = _picture(180, 180, 3)
DISC = ROUND.crop((45, 45, 135, 135)).rotate(70)
LOGO = _picture(180, 48, 4)

TRACK = ('<div style="position:relative;width:300px;height:36px;background:#eee;border-radius:18px">'
         '<div style="position:absolute;left:0;top:0;width:36px;height:36px;border-radius:18px;background:#4a8;cursor:grab"></div>'
         '</div>')
NEUTRAL = {
    "ocr": f'''<form><label>Benutzername <input name="u"></label>
      <div class="f-7"><p>{{words}}</p>
        <div><img src="{data_uri(TEXT)}" width="150" height="50" alt=""><a href="#" title="↻" onclick="return false">↻</a></div>
        <input name="k9" autocomplete="off"></div><button type="submit">OK</button></form>''',
    "slider_puzzle": f'''<div class="w1"><p>{{words}}</p>
      <div style="position:relative;width:300px;height:160px"><img src="{data_uri(SCENE)}" width="300" height="160" alt="">
        <img src="{data_uri(PIECE)}" width="50" height="50" alt="" style="position:absolute;left:0;top:40px"></div>
      {TRACK}</div>''',
    "image_rotation": f'''<div class="w2"><p>{{words}}</p>
      <img src="{data_uri(ROUND)}" width="180" height="180" alt="" style="border-radius:90px">
      {TRACK}</div>''',
    "image_rotation/ring": f'''<div class="w3"><p>{{words}}</p>
      <div style="position:relative;width:180px;height:180px"><img src="{data_uri(ROUND)}" width="180" height="180" alt=""
        style="border-radius:90px;display:block"><img src="{data_uri(DISC)}" width="90" height="90" alt=""
        style="position:absolute;left:45px;top:45px;border-radius:45px"></div>
      {TRACK}</div>''',
    "image_rotation/thumbnail": f'''<div class="w4"><p>{{words}}</p>
      <div style="display:flex;gap:16px"><img src="{data_uri(ROUND)}" width="180" height="180" alt="">
        <img src="{data_uri(DISC)}" width="80" height="80" alt="" style="border-radius:40px"></div>
      {TRACK}</div>''',
}
WORDS = {"de": "Bitte bestätigen", "ar": "يرجى التأكيد", "ko": "확인해 주세요", "tr": "Lütfen doğrulayın",
         "pl": "Proszę potwierdzić", "none": ""}
LOOKALIKES = {
    "sign-in form with a logo": f'''<form><img src="{data_uri(LOGO)}" width="180" height="48" alt="Acme">
      <label>User <input name="user"></label><label>Password <input type="password" name="pw"></label>
      <a href="/forgot">Forgot password?</a><button type="submit">Sign in</button></form>''',
    "volume knob, no picture": f'<p>Volume</p>{TRACK}<p>Drag to adjust</p>',
}


async def _kinds(site_url: str) -> dict[str, str | None]:
    from playwright.async_api import async_playwright

    found: dict[str, str | None] = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1000, "height": 900})
        for kind in PRACTICE_KINDS:
            for lang in LANGUAGES:
                await page.goto(f"{site_url}/captcha/{kind}?lang={lang}")
                await page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
                widget = await detect(page)
                found[f"practice {kind} lang={lang}"] = widget.kind if widget else None
        await page.goto(f"{site_url}/captcha/image_rotation?variant=ring&lang=none")
        await page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
        widget = await detect(page)
        found["practice image_rotation variant=ring"] = widget.kind if widget else None
        for kind, markup in NEUTRAL.items():
            for lang, words in WORDS.items():
                await page.set_content(f"<html><body>{markup.replace('{words}', words)}</body></html>")
                widget = await detect(page)
                found[f"neutral {kind} lang={lang}"] = widget.kind if widget else None
        for name, markup in LOOKALIKES.items():
            await page.set_content(f"<html><body>{markup}</body></html>")
            widget = await detect(page)
            found[f"lookalike {name}"] = widget.kind if widget else None
        await browser.close()
    return found


@pytest.fixture(scope="module")
def detected(site) -> dict[str, str | None]:
    return asyncio.run(_kinds(site))


def test_practice_widgets_in_eight_languages_and_none_are_typed_by_structure(detected):
    assert len(LANGUAGES) >= 9 and "none" in LANGUAGES
    wrong = {case: kind for case, kind in detected.items()
             if case.startswith("practice") and kind != case.split()[1]}
    assert not wrong, wrong


def test_widgets_that_never_say_captcha_are_found_by_structure(detected):
    wrong = {case: kind for case, kind in detected.items()
             if case.startswith("neutral") and kind != case.split()[1].split("/")[0]}
    assert not wrong, wrong


def test_look_alikes_are_not_taken_for_captchas(detected):
    found = {case: kind for case, kind in detected.items() if case.startswith("lookalike") and kind is not None}
    assert not found, found
