"""Charset and length hints a page gives about its text CAPTCHA (workers/captcha/hints.py), from
the input's attributes as the detector reads them in Chromium and from the widget's wording."""

from __future__ import annotations

import base64
import string
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.captcha import synth
from tests.helpers import chromium
from workers.captcha.detect import _SCAN, classify
from workers.captcha.hints import TextHints, text_hints

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

browser = chromium.sync_browser


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 800, "height": 600})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.mark.parametrize(("pattern", "expected"), [
    ("[0-9]{4}", TextHints(charset=string.digits, length=4)),
    ("\\d{5}", TextHints(charset=string.digits, length=5)),
    ("[A-Za-z0-9]{4,6}", TextHints(charset=string.digits + string.ascii_uppercase + string.ascii_lowercase,
                                   max_length=6)),
    ("^[A-Z]{6}$", TextHints(charset=string.ascii_uppercase, length=6)),
])
def test_it_reads_charset_and_length_from_a_pattern(pattern, expected):
    assert text_hints("Type the code", {"pattern": pattern}) == expected


def test_a_numeric_input_means_digits_and_a_small_maxlength_bounds_the_length():
    assert text_hints("Security check", {"inputmode": "numeric", "maxlength": 5}) == TextHints(
        charset=string.digits, max_length=5)
    assert text_hints("", {"type": "tel"}).charset == string.digits


def test_it_reads_the_wording_of_the_instruction():
    assert text_hints("Enter the digits shown in the picture") == TextHints(charset=string.digits)
    assert text_hints("Type the 5 characters you see").length == 5
    assert text_hints("Enter the six letters, capital letters only") == TextHints(
        charset=string.ascii_uppercase, length=6)
    assert text_hints("请输入4位数字验证码") == TextHints(charset=string.digits, length=4)


def test_it_ignores_what_is_ambiguous_or_too_loose():
    assert text_hints("Enter the letters and numbers you see") == TextHints()
    assert text_hints("Code", {"maxlength": 255, "pattern": "[^x]+"}) == TextHints()
    assert text_hints("Code", {"minlength": 6, "maxlength": 6}) == TextHints(length=6)


@pytest.mark.parametrize(("words", "ignored"), [
    ("Enter the code (not case-sensitive)", True),
    ("Letters are case insensitive", True),
    ("Type the text. Case does not matter.", True),
    ("请输入验证码，不区分大小写", True),
    ("Groß- und Kleinschreibung wird nicht beachtet", True),
    ("Le code est insensible à la casse", True),
    ("No distingue entre mayúsculas y minúsculas", True),
    ("O código não diferencia maiúsculas de minúsculas", True),
    ("The code is case-sensitive", False),
    ("请输入验证码（区分大小写）", False),
    ("Bitte Groß- und Kleinschreibung beachten", False),
    ("Type the text you see", None),
])
def test_it_reads_whether_the_site_ignores_letter_case(words, ignored):
    assert text_hints(words).case_ignored is ignored
    # From the input's label or placeholder too.
    assert text_hints("Security check", {"placeholder": words}).case_ignored is ignored


def test_chromium_reports_the_input_attributes_the_hints_need(page: Page):
    image, _ = synth.ocr_sample(__import__("random").Random(5), alphabet="0123456789")
    src = "data:image/png;base64," + base64.b64encode(image).decode()
    page.set_content(f"""
      <form><div class="captcha-box"><p>Security check</p><img class="captcha" src="{src}">
        <label for="c">Code</label><input id="c" name="captcha" inputmode="numeric" maxlength="5"
          pattern="[0-9]{{5}}" autocomplete="off"><button type="button">Refresh</button></div></form>""")
    raw = page.evaluate(_SCAN)["widgets"][0]
    field = raw["inputs"][0]
    assert classify(raw) == "ocr"
    assert (field["maxlength"], field["inputmode"], field["pattern"]) == (5, "numeric", "[0-9]{5}")
    assert text_hints(raw["text"], field) == TextHints(charset=string.digits, length=5)
