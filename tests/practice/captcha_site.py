"""The practice site with its CAPTCHA test hook, and helpers to read and answer its widgets.

The site runs as its own subprocess with ``PRACTICE_TEST_HOOKS=1``, so tests can read a
challenge's expected answer from ``GET /api/captcha/<id>`` (which does not consume it). Shared by
tests/practice/test_captcha_*.py (import the `site` and `client` fixtures from here).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import httpx
import pytest

from tests.helpers.servers import alerts as alerts  # re-exported for the test modules
from tests.helpers.servers import practice_site


CAPTCHA_FAILED = "The security check failed. Please try again."
INTERACTIVE = ("slider_puzzle", "drag_end", "icon_click", "text_click", "image_rotation", "oneclick_login")


# --- servers and helpers ---------------------------------------------------------------


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The practice site with the test hook on."""
    with practice_site(quiet=True, test_hooks=True) as url:
        yield url


@pytest.fixture
def client(site: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site, follow_redirects=False, timeout=10) as c:
        yield c


class Widget(NamedTuple):
    html: str
    challenge: str
    csrf: str


def widget_of(html: str) -> Widget:
    """Challenge id and CSRF token from a page holding one CAPTCHA widget."""
    challenge = re.search(r'name="captcha_challenge" value="([^"]+)"', html)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert challenge and csrf, "no CAPTCHA widget on the page"
    return Widget(html, challenge.group(1), csrf.group(1))


def box_html(html: str) -> str:
    """The markup of the widget's box."""
    start = html.index('<div class="captcha-box"')
    return html[start:html.index("<style>", start)]


def hook(site: str, challenge: str) -> dict[str, Any]:
    response = httpx.get(f"{site}/api/captcha/{challenge}")
    response.raise_for_status()
    return response.json()


def wrong_answer(expected: dict[str, Any]) -> str:
    """A well-formed answer that must fail."""
    kind, solution = expected["type"], expected["solution"]
    if kind == "ocr":
        return "ZZZZ"  # Z is not in the character set
    if kind == "slider_puzzle":
        gap = solution["gap_x"]
        return str(gap + 30 if gap <= 220 else gap - 30)
    if kind == "drag_end":
        return "5,5"  # targets sit in the right-hand part of the scene
    if kind in ("icon_click", "text_click"):
        return ";".join(reversed(expected["answer"].split(";")))
    if kind == "image_rotation":
        return str(solution["angle"] + 180)
    if kind == "oneclick_login":
        return "not-the-token"
    return str(solution["count"] + 1)


def submit(client: httpx.Client, path: str, widget: Widget, answer: str, **fields: str) -> httpx.Response:
    data = {"csrfmiddlewaretoken": widget.csrf, "captcha_challenge": widget.challenge,
            "captcha_answer": answer, **fields}
    return client.post(path, data=data)


