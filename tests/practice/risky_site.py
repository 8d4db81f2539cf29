"""The practice site's flows with real consequences, and helpers to drive them over HTTP.

Each consequential action (place an order, delete the account, send a message, share a
document, turn off two-factor authentication, change the password) must be recorded exactly
once per submission; look-alikes ("Save for later", "Save draft", "Order history", "Delete
filter", "Remove from view", "Send verification code", "Download", "Cancel", ...) must record
nothing. The site runs as its own subprocess (``tests.helpers.servers.practice_site``), one per
test module, reset before every test. Shared by tests/practice/test_risky_*.py: bind the
fixtures with ``site, client, reset_site = risky_site.site, risky_site.client, risky_site.reset_site``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.servers import alerts as alerts  # re-exported for the test modules
from tests.helpers.servers import practice_site

ADDRESS = {"full_name": "Li Wei", "address": "1 Harbour Road", "city": "Lisbon", "postal_code": "1100-001",
           "country": "PT"}
CARD = {"card_name": "LI WEI", "card_number": "4242 4242 4242 4242", "card_expiry": "12/34", "card_cvc": "123"}


# --- fixtures and helpers --------------------------------------------------------------


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with practice_site(quiet=True) as url:
        yield url


@pytest.fixture(autouse=True)
def reset_site(site: str) -> None:
    httpx.post(f"{site}/api/reset").raise_for_status()


@pytest.fixture
def client(site: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site, follow_redirects=False, timeout=10) as c:
        yield c


def api(site: str, name: str) -> Any:
    return httpx.get(f"{site}/api/{name}").json()


def form_fields(html: str, action: str) -> dict[str, str]:
    """Hidden inputs (CSRF token, submission token, ...) of the form posting to ``action``."""
    match = re.search(rf'<form method="post" action="{re.escape(action)}"[^>]*>(.*?)</form>', html, re.S)
    assert match, f"no form posting to {action}"
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', match.group(1)))


def sign_in(client: httpx.Client, username: str = "demo", password: str = "demo-password") -> None:
    fields = form_fields(client.get("/login").text, "/login")
    response = client.post("/login", data={**fields, "username": username, "password": password})
    assert response.status_code == 302, "sign-in failed"


def post(client: httpx.Client, page: str, target: str, /, **data: str) -> httpx.Response:
    """Load ``page`` and submit its form posting to ``target`` with ``data``."""
    return client.post(target, data={**form_fields(client.get(page).text, target), **data})


def status(html: str) -> list[str]:
    return re.findall(r'role="status">([^<]+)<', html)


def nothing_recorded(site: str) -> None:
    assert api(site, "actions") == []
    assert api(site, "orders") == [] and api(site, "shares") == []
    assert api(site, "messages")["sent"] == []
    assert api(site, "account")["deletions"] == []
    assert api(site, "security") == {"accounts": {"demo": {"two_factor_enabled": True}}, "events": []}


def add_to_cart(client: httpx.Client, *skus: str) -> None:
    for sku in skus:
        assert post(client, "/shop", "/shop/cart/add", sku=sku).headers["location"] == "/shop"
