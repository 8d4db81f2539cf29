"""The runtime's side of persistent logins: the sign-in block's plan, and which part of a browser
session may be kept (pure functions; the end-to-end tests drive the rest)."""

from __future__ import annotations

import pytest

from workers.errors import ConfigurationError
from workers.sign_in import sign_in_plan, state_expiry, state_permitted
from workers.steps import AutomationSpec

CHECK = {"check": {"url_excludes": "/login"}}


def spec(marks=(True, True, False), sign_in=CHECK, **extra) -> AutomationSpec:
    steps = [{"kind": "fill", "target": "Username", "value": "{{credentials.crm.username}}"},
             {"kind": "click", "target": "Sign in"}, {"kind": "click", "target": "Export"}]
    for step, mark in zip(steps, marks):
        if mark:
            step["sign_in"] = True
    return AutomationSpec.model_validate({"start_url": "https://app.example.com/home",
                                          "allowed_domains": ["example.com"], "steps": steps,
                                          "sign_in": sign_in, **extra})


def test_the_plan_covers_the_marked_block_after_the_start_url_step():
    plan = sign_in_plan(spec(), {}, offset=1)
    assert (plan.first, plan.last, plan.credential, plan.domain) == (1, 2, "crm", "app.example.com")
    assert plan.covers(2) and not plan.covers(3)


def test_no_block_no_plan():
    assert sign_in_plan(spec(marks=(), sign_in={}), {}, offset=0) is None


@pytest.mark.parametrize(("marks", "sign_in", "message"), [
    ((True, False, True), CHECK, "follow each other"),
    ((True,), {}, "no sign_in check"),
    ((), CHECK, "no step is marked"),
    ((True, True), {**CHECK, "domain": "evil.test"}, "not among the allowed domains"),
])
def test_a_block_that_cannot_work_fails_the_run_before_it_starts(marks, sign_in, message):
    with pytest.raises(ConfigurationError, match=message):
        sign_in_plan(spec(marks=marks, sign_in=sign_in), {}, offset=1)


def test_only_permitted_hosts_and_parent_domain_cookies_are_kept():
    state = {"cookies": [
        {"name": "a", "value": "1", "domain": "app.example.com", "expires": -1},
        {"name": "b", "value": "2", "domain": ".example.com", "expires": -1},  # sent to app.example.com
        {"name": "c", "value": "3", "domain": "tracker.test", "expires": -1},
        {"name": "d", "value": "4", "domain": "other.example.com", "expires": -1},  # the credential may not go there
    ], "origins": [{"origin": "https://app.example.com", "localStorage": []},
                   {"origin": "https://tracker.test", "localStorage": []}]}
    kept = state_permitted(state, domain="app.example.com", permit=[["example.com"], ["app.example.com"]])
    assert [c["name"] for c in kept["cookies"]] == ["a", "b"]
    assert [o["origin"] for o in kept["origins"]] == ["https://app.example.com"]


def test_a_session_expires_with_its_earliest_cookie_or_the_maximum_age():
    state = {"cookies": [{"expires": -1}, {"expires": 1_000_500.0}, {"expires": 1_000_900.0}]}
    assert state_expiry(state, now=1_000_000.0, max_age_s=3600) == 1_000_500.0
    assert state_expiry({"cookies": [{"expires": -1}]}, now=1_000_000.0, max_age_s=3600) == 1_003_600.0
