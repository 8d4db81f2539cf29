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
