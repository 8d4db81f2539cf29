"""Automation definitions against the practice site that tests and benchmarks share."""

from __future__ import annotations


def delete_account_definition(practice_url: str) -> dict:
    """Sign in and delete the account: one risky action (DEL), which waits for a review."""
    from venus_rpa.core.demo import PRACTICE_CREDENTIAL

    login = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    return {
        "start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [
            {"kind": "fill", "target": "Username", "value": login % "username"},
            {"kind": "fill", "target": "Password", "value": login % "password"},
            {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
            {"kind": "wait_for", "url_contains": "/expenses/new"},
            {"kind": "goto", "url": "/account/delete"},
            {"kind": "click", "target": {"role": "button", "name": "Delete my account"}},
        ],
    }


def checkout_steps(*, card: str, cvc: str, holder: str = "Ada Lovelace", expiry: str = "12/39",
                   login: str | None = None, placed: bool = True) -> list[dict]:
    """Sign in, put a mug in the cart, fill the checkout form and place the order (one risky
    action, PAY); the card fields take the given values or templates. `login`: the credential that
    signs in (the demo's practice credential by default); `placed`: end by waiting for "Order placed"."""
    if login is None:
        from venus_rpa.core.demo import PRACTICE_CREDENTIAL

        login = PRACTICE_CREDENTIAL
    login = "{{credentials.%s.%%s}}" % login
    steps = [
        {"kind": "fill", "target": "Username", "value": login % "username"},
        {"kind": "fill", "target": "Password", "value": login % "password"},
        {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
        {"kind": "wait_for", "url_contains": "/expenses/new"},
        {"kind": "goto", "url": "/shop"},
        {"kind": "click", "target": {"role": "button", "name": "Add to cart", "nth": 0}},
        {"kind": "goto", "url": "/shop/checkout"},
        {"kind": "fill", "target": "Full name", "value": "Ada Lovelace"},
        {"kind": "fill", "target": "Address", "value": "12 Analytical Row"},
        {"kind": "fill", "target": "City", "value": "London"},
        {"kind": "fill", "target": "Postal code", "value": "N1 9GU"},
        {"kind": "select", "target": "Country", "option": "United Kingdom"},
        {"kind": "fill", "target": "Name on card", "value": holder},
        {"kind": "fill", "name": "Card number", "target": "Card number", "value": card},
        {"kind": "fill", "target": "Expiry (MM/YY)", "value": expiry},
        {"kind": "fill", "target": "CVC", "value": cvc},
        {"kind": "click", "name": "Place the order", "target": {"role": "button", "name": "Place order"}},
    ]
    return [*steps, PLACED] if placed else steps


PLACED = {"kind": "wait_for", "name": "Order placed", "text": "Order placed"}
