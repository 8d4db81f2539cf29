"""`reviews_per_consequential_act` for benchmarks/safety.py: the practice shop and risky flows run
through the production path (a real Runner with the safety gate and DjangoRecorder, a temporary
database and Redis, the practice site, Chromium); this process approves every review through the
reviews API (DRF client) as a person would. Each flow names the steps that commit something; a
review of any other step is a false positive, a committing step that ran without a review is a
miss. Target (issue 12): reviews per consequential act <= 1.1, no miss.
"""

from __future__ import annotations

import os
import time

CARD = {"name": "Ada Lovelace", "number": "4242 4242 4242 4242", "expiry": "12/39", "cvc": "123"}
TARGET = 1.1


def _fill(target: str, value: str) -> dict:
    return {"kind": "fill", "target": target, "value": value}


def _click(name: str, label: str, **target) -> dict:
    return {"kind": "click", "name": name, "target": {"role": "button", "name": label, **target}}


def flows() -> dict[str, tuple[list[dict], set[str]]]:
    """name -> (steps after sign-in, names of the steps that commit)."""
    card = "{{credentials.bench-card.%s}}"
    checkout = [{"kind": "goto", "url": "/shop"}, _click("Add to cart", "Add to cart", nth=0),
                {"kind": "goto", "url": "/shop/cart"}, _click("Checkout (lead-in)", "Checkout"),
                _fill("Full name", "Ada Lovelace"), _fill("Address", "12 Analytical Row"), _fill("City", "London"),
                _fill("Postal code", "N1 9GU"), {"kind": "select", "target": "Country", "option": "United Kingdom"},
                _fill("Name on card", card % "name"), _fill("Card number", card % "number"),
                _fill("Expiry (MM/YY)", card % "expiry"), _fill("CVC", card % "cvc"), _click("Place order", "Place order"),
                {"kind": "wait_for", "text": "Order placed"}]
    literal_card = [dict(s, value=CARD["number"]) if s.get("target") == "Card number" else s for s in checkout]
    return {
        "checkout": (checkout, {"Place order"}),
        "checkout_typed_card": (literal_card, {"Place order"}),
        "delete_account": ([{"kind": "goto", "url": "/account"}, _click("Delete account (lead-in)", "Delete account"),
                            {"kind": "wait_for", "url_contains": "/account/delete"},
                            _click("Delete my account", "Delete my account")], {"Delete my account"}),
        "send_message": ([{"kind": "goto", "url": "/messages/new"}, _fill("To", "grace@example.com"),
                          _fill("Subject", "Q3 figures"), _fill("Body", "The figures are attached."),
                          _click("Send", "Send"), {"kind": "wait_for", "text": "Message sent"}], {"Send"}),
        "share_document": ([{"kind": "goto", "url": "/docs/1"}, _click("Share (lead-in)", "Share"),
                            _fill("Email", "grace@example.com"), {"kind": "select", "target": "Permission", "option": "Can edit"},
                            _click("Share", "Share")], {"Share"}),
        "security": ([{"kind": "goto", "url": "/security"}, _click("Send verification code", "Send verification code"),
                      _click("Turn off two-factor", "Turn off two-factor authentication")], {"Turn off two-factor"}),
    }


def _setup(base: str):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from venus_rpa.accounts.models import Membership, Workspace
    from venus_rpa.accounts.services import api_token_create
    from venus_rpa.automations.services import credential_set

    call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
    workspace = Workspace.objects.get(slug="demo")
    credential_set(workspace=workspace, name="bench-card", fields=CARD, domains=["127.0.0.1"])
    reviewer, _ = get_user_model().objects.get_or_create(username="bench-load-reviewer")
    Membership.objects.get_or_create(workspace=workspace, user=reviewer, defaults={"role": "reviewer"})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(workspace=workspace, user=reviewer, name='load')[1]}")
    return workspace, client


def _run_flow(execute, workspace, client, base: str, name: str, steps: list[dict]) -> tuple[object, list, list[str]]:
    """Run one flow (`execute(run, records, outcome)` starts it on a worker thread), approving
    every review; returns (result, step records, reviewed step names)."""
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import PRACTICE_CREDENTIAL
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run

    login = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    sign_in = [_fill("Username", login % "username"), _fill("Password", login % "password"),
               _click("Sign in", "Sign in"), {"kind": "wait_for", "url_contains": "/expenses/new"}]
    automation = automation_create(workspace=workspace, user=None, slug=f"load-{name}", name=f"load {name}",
                                   definition={"start_url": base + "/login", "allowed_domains": ["127.0.0.1"],
                                               "steps": sign_in + steps, "limits": {"max_steps": 100}})
    run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version, status="running")
    records: list = []
    outcome: dict = {}
    worker = execute(run, records, outcome)
    reviewed: list[str] = []
    seen: set[int] = set()
    while worker.is_alive():
        for review in ReviewRequest.objects.filter(run=run, status="pending").exclude(pk__in=seen):
            seen.add(review.pk)
            reviewed.append((review.detail.get("step") or {}).get("name", "?"))
            response = client.post(f"/api/reviews/{review.pk}/approve/", {}, format="json")
            assert response.status_code == 200, response.content
        time.sleep(0.05)
    worker.join()
    return outcome.get("result"), records, reviewed


def reviews_per_consequential_act(execute) -> dict:
    """Each flow once; reviews, commits, false positives and misses per flow and in total.
    `execute(run, records, outcome)` runs a run as a worker does (benchmarks/safety.py)."""
    import httpx
    from _stack import practice_site, setup_django

    setup_django()
    per_flow: dict[str, dict] = {}
    with practice_site(quiet=True) as base:
        workspace, client = _setup(base)
        for name, (steps, commits) in flows().items():
            httpx.post(base + "/api/reset").raise_for_status()
            result, records, reviewed = _run_flow(execute, workspace, client, base, name, steps)
            ran = {r.name for r in records}
            per_flow[name] = {
                "status": getattr(result, "status", "lost"), "reason": getattr(result, "reason", ""),
                "reviews": len(reviewed), "consequential": len(commits), "reviewed": reviewed,
                "false_positive_reviews": sum(1 for r in reviewed if r not in commits),
                "missed_consequential": sorted(c for c in commits if c in ran and c not in reviewed),
            }
    reviews = sum(f["reviews"] for f in per_flow.values())
    acts = sum(f["consequential"] for f in per_flow.values())
    rate = round(reviews / acts, 3) if acts else None
    missed = sum(len(f["missed_consequential"]) for f in per_flow.values())
    return {"flows": per_flow, "reviews": reviews, "consequential": acts, "reviews_per_consequential_act": rate,
            "false_positive_reviews": sum(f["false_positive_reviews"] for f in per_flow.values()),
            "missed_consequential": missed, "succeeded": sum(f["status"] == "succeeded" for f in per_flow.values()),
            "target": TARGET, "target_met": rate is not None and rate <= TARGET and missed == 0}
