"""Security probes against a live local stack (daphne, a real Celery worker, Chromium, the practice
site, loopback only). Prints JSON.

Each reproduction of the trust-boundary issue is replayed as a probe; `probes` reports `tried` and
`failed` per area (a failed probe is one the platform did not withstand). Also: `secret_exposures`
(stored screenshots, URLs, outputs and callback bodies checked for a vault value or a typed card
number), `egress_escapes` (requests that reached a host outside a run's allowed domains),
`regex_max_block_ms` (longest time one catastrophic pattern held a web request or a worker) and
`schemathesis` (cases, server errors, schema violations of the OpenAPI document).

    .venv/bin/python benchmarks/security.py [--schemathesis-examples 5]

Nothing is sent anywhere but 127.0.0.1: addresses that must be refused (link-local, metadata,
private) are only ever judged by the egress guard or refused at save time, never requested.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time

import httpx

from _probe_site import EscapeSite
from _security_policy import (probe_flower, probe_governance, probe_hardening, probe_internal_calls,
                              probe_server_errors, probe_slugs, probe_surfaces, probe_templates)
from _security_stack import CARD, CVC, SECRET, TERMINAL, Probes, Stack, dashboard, lookup_definition, start, wait_run
from _stack import practice_site, setup_django, wait_http

from tests.helpers.definitions import checkout_steps
from tests.helpers.servers import free_port

def probe_webhook(p: Probes, s: Stack) -> None:
    from venus_rpa.runs.models import Run
    from venus_rpa.triggers.services.webhooks import webhook_trigger_create
    from venus_rpa.automations.models import Automation

    automation = Automation.objects.get(workspace=s.workspace, slug="demo-expense")
    trigger, secret = webhook_trigger_create(workspace=s.workspace, user=None, automation=automation,
                                             name="probe", param_mapping={"title": "title"})
    before = Run.objects.count()
    body = b'{"title": "forged"}'
    for ts in ("9" * 5000, "1" * 40, "-1", "１２３"):
        r = s.anon.post(f"/hooks/{trigger.public_id}/", content=body,
                        headers={"Content-Type": "application/json", "X-Venus-Timestamp": ts.encode(),
                                 "X-Venus-Signature": "sha256=" + "0" * 64})
        p.check("webhook", r.status_code in (400, 401) and secret not in r.text and "Traceback" not in r.text,
                f"timestamp of {len(ts)} chars answered {r.status_code}")
    r = s.anon.get("/this-page-does-not-exist/")
    p.check("webhook", r.status_code == 404 and "DEBUG = True" not in r.text and "Traceback" not in r.text,
            "a missing page shows Django's debug page (DEBUG on)")
    p.check("webhook", Run.objects.count() == before, "a forged webhook started a run")


def _crop_is_blank(jpeg: bytes, box: dict) -> bool:
    """True if the box holds no text: its pixels are (nearly) one colour, as a mask or an empty field."""
    import numpy as np
    from PIL import Image

    image = Image.open(io.BytesIO(jpeg)).convert("L")
    inset = 4
    crop = image.crop((int(box["x"]) + inset, int(box["y"]) + inset,
                       int(box["x"] + box["width"]) - inset, int(box["y"] + box["height"]) - inset))
    return float(np.asarray(crop, dtype=float).std()) < 6.0


def _boxes_on(practice: str, path: str, selectors: list[str]) -> dict[str, dict]:
    """Where elements are drawn at the runner's viewport (1280×800), from our own Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(practice + path)
        boxes = {sel: page.locator(sel).bounding_box() for sel in selectors if page.locator(sel).count()}
        browser.close()
    return boxes


def probe_secrets(p: Probes, s: Stack, exposures: dict) -> None:
    from venus_rpa.runs.models import Step
    from venus_rpa.triggers.services.callbacks import run_payload

    vault = "{{credentials.bench-vault.password}}"
    s.automation("sec-typed", lookup_definition(s.practice, vault))
    s.automation("sec-split", lookup_definition(s.practice, vault, extra=[
        {"kind": "extract", "target": "Account number", "attribute": "value", "pattern": "^(.)", "into": "a"},
        {"kind": "extract", "target": "Account number", "attribute": "value", "pattern": "^.(.*)$", "into": "b"},
    ]))
    form_box = _boxes_on(s.practice, "/lab/lookup", ["#account"])
    result_box = _boxes_on(s.practice, "/lab/lookup?account=" + SECRET, ["#looked-up"])
    pieces = {SECRET[i:i + 4] for i in range(len(SECRET) - 3)}
    for slug in ("sec-typed", "sec-split"):
        run_id = s.run(slug)
        if not p.check("secrets", run_id is not None, f"{slug} did not start"):
            continue
        run = wait_run(run_id)
        texts = {"outputs": json.dumps(run.output or {}) + (run.status_reason or ""),
                 "verdicts": json.dumps(run.verdict or {}),
                 "callbacks": json.dumps(run_payload(run))}
        for step in Step.objects.filter(run=run).order_by("index"):
            texts["urls"] = texts.get("urls", "") + " " + (step.url or "")
            texts["outputs"] += json.dumps(step.output if hasattr(step, "output") else {}) + (step.error or "")
            if step.screenshot:
                shot = step.screenshot.read()
                exposures["screens"] += 1
                on_result = "account=" in (step.url or "")
                box = result_box.get("#looked-up") if on_result else form_box.get("#account")
                if box and not _crop_is_blank(shot, box):
                    exposures["exposed"] += 1
                    exposures["where"].append(f"{slug} step {step.index} screenshot")
        for kind, text in texts.items():
            exposures[kind] += 1
            hits = sorted(piece for piece in pieces if piece in text)
            if SECRET in text or hits:
                exposures["exposed"] += 1
                at = text.find(hits[0]) if hits else text.find(SECRET)
                exposures["where"].append(f"{slug} {kind}: …{text[max(0, at - 40):at + 8]!r}")
        if slug == "sec-split":
            p.check("secrets", run.status == "failed", "an extract step read a field holding a vault value")
    _probe_card_review(p, s, exposures)


def _probe_card_review(p: Probes, s: Stack, exposures: dict) -> None:
    """Card number and CVC typed from parameters: review titles and the decided history."""
    from venus_rpa.reviews.models import ReviewRequest

    definition = {
        "start_url": s.practice + "/login", "allowed_domains": ["127.0.0.1"], "credentials": ["practice-login"],
        "param_schema": {"type": "object", "properties": {"card": {"type": "string"}, "cvc": {"type": "string"}}},
        "steps": checkout_steps(card="{{card}}", cvc="{{cvc}}"),
    }
    s.automation("sec-card", definition)
    run_id = s.run("sec-card", {"card": CARD, "cvc": CVC})
    if not p.check("secrets", run_id is not None, "checkout run did not start"):
        return
    seen = []
    for _ in range(8):  # approve each review the run asks for, up to the order
        run = wait_run(run_id)
        review = ReviewRequest.objects.filter(run_id=run_id, status="pending").order_by("-id").first()
        if run.status in TERMINAL or review is None:
            break
        seen.append(review.title + json.dumps(review.detail))
        s.clients["reviewer"].post(f"/api/reviews/{review.pk}/reject/", json={"comment": "probe"})
    digits = CARD.replace(" ", "")
    for title in seen + [r.title for r in ReviewRequest.objects.filter(run_id=run_id)]:
        exposures["reviews"] += 1
        if CARD in title or digits in title or CVC in title:
            exposures["exposed"] += 1
            exposures["where"].append("review title/detail shows the card number or CVC")
    page = dashboard(s).get("/reviews/").text
    exposures["reviews"] += 1
    if CARD in page or digits in page:
        exposures["exposed"] += 1
        exposures["where"].append("review history page shows the card number")


def probe_egress(p: Probes, s: Stack, site: EscapeSite) -> int:
    from workers import egress

    before = site.escapes
    r = s.automation("egress-empty", {"start_url": s.practice + "/lab", "allowed_domains": []})
    p.check("egress", r.status_code == 400, f"empty allowed_domains saved ({r.status_code})")
    for path in ("/redirect", "/hop", "/js"):
        steps = [{"kind": "click", "target": "Continue"}] if path == "/hop" else []
        steps.append({"kind": "wait_for", "text": "landed", "timeout_s": 5})
        slug = "egress" + path.replace("/", "-")
        s.automation(slug, {"start_url": site.base + path, "allowed_domains": ["127.0.0.1"], "steps": steps})
        run_id = s.run(slug)
        run = wait_run(run_id) if run_id else None
        p.check("egress", run is not None and run.status == "failed", f"{path}: run {run and run.status}")
    escapes = site.escapes - before
    p.check("egress", escapes == 0, f"{escapes} requests reached localhost")
    # Judged by the guard only (never requested): metadata, link-local, private, loopback unlisted.
    policy = egress.EgressPolicy(allowed_domains=["169.254.169.254", "10.0.0.5", "127.0.0.1", "metadata.google.internal"],
                                 operator_allow=[])
    for url in ("http://169.254.169.254/latest/meta-data", "http://10.0.0.5/", "http://127.0.0.1:5555/workers",
                "http://[::1]:6379/", "http://0x7f000001/", "http://2130706433/"):
        decision = policy.check_url(url, resolve=lambda host: [])
        p.check("egress", not decision.allowed, f"guard allowed {url}")
    return escapes


def _timed_post(client: httpx.Client, path: str, body: dict) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = client.post(path, json=body)
    return response, (time.perf_counter() - started) * 1000


def _extract_ms(s: Stack, slug: str, text: str, pattern: str) -> tuple[str, float]:
    """Run the lookup page with `text`, extract the result with `pattern`: (status, extract act_ms)."""
    from venus_rpa.runs.models import Step

    definition = lookup_definition(s.practice, text)
    definition["credentials"] = []
    definition["steps"][-1]["pattern"] = pattern
    s.automation(slug, definition)
    run_id = s.run(slug)
    run = wait_run(run_id) if run_id else None
    last = Step.objects.filter(run_id=run_id, kind="extract").order_by("-index").first() if run_id else None
    return (run.status if run else "not started"), (last.act_ms if last else 0.0)


def probe_regex(p: Probes, s: Stack) -> float:
    """`^(a+)+$` on 27 a's and "!": how long it holds a web request and a worker, over a benign pattern's
    time for the same request (the difference is the time the pattern blocked)."""
    evil = "a" * 27 + "!"
    owner = s.clients["owner"]
    for slug, pattern in (("regex-param", "^(a+)+$"), ("regex-plain", "^a+$")):
        schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}}
        s.automation(slug, {"start_url": s.practice + "/lab", "allowed_domains": ["127.0.0.1"], "param_schema": schema})
    base = sorted(_timed_post(owner, "/api/automations/regex-plain/runs/", {"params": {"code": evil}})[1]
                  for _ in range(3))[1]
    r, evil_ms = _timed_post(owner, "/api/automations/regex-param/runs/", {"params": {"code": evil}})
    web_block = max(0.0, evil_ms - base)
    p.check("regex", r.status_code == 400 and web_block < 100,
            f"param pattern: {r.status_code}, blocked {web_block:.0f} ms")
    status, evil_step = _extract_ms(s, "regex-extract", evil, "^(a+)+$")
    _, plain_step = _extract_ms(s, "regex-extract-plain", evil, "^a+")
    step_block = max(0.0, evil_step - plain_step)
    p.check("regex", status == "failed" and step_block < 100, f"extract pattern: {status}, blocked {step_block:.0f} ms")
    return round(max(web_block, step_block), 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemathesis-examples", type=int, default=5)
    args = parser.parse_args()
    setup_django()
    from django.core.management import call_command

    from venus_rpa.accounts.models import Workspace
    from venus_rpa.automations.services import credential_set

    p = Probes()
    exposures = {"screens": 0, "urls": 0, "outputs": 0, "verdicts": 0, "callbacks": 0, "reviews": 0,
                 "exposed": 0, "where": []}
    port, https_port = free_port(), free_port()
    web = f"http://127.0.0.1:{port}"
    site = EscapeSite()
    # Runs may reach 127.0.0.1 (the practice site, the escape site); the web process and the callback
    # worker get no private allowance at all, as in production.
    os.environ.pop("VENUS_EGRESS_ALLOW_PRIVATE", None)
    egress_env = {"VENUS_EGRESS_ALLOW_PRIVATE": "127.0.0.1"}
    with practice_site(quiet=True) as practice:
        os.environ["VENUS_PRACTICE_URL"] = practice
        call_command("seed_demo", practice_url=practice, stdout=open(os.devnull, "w"))
        workspace = Workspace.objects.get(slug="demo")
        credential_set(workspace=workspace, name="bench-vault", domains=["127.0.0.1"],
                       fields={"username": "bench-user", "password": SECRET})
        daphne_bin = os.path.join(sys.prefix, "bin", "daphne")
        procs = [
            start([daphne_bin, "-b", "127.0.0.1", "-p", str(port), "venus_rpa.asgi:application"]),
            start([daphne_bin, "-b", "127.0.0.1", "-p", str(https_port), "venus_rpa.asgi:application"],
                  env={"VENUS_HTTPS": "1"}),
            start([sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", "agent", "--pool", "threads",
                   "--concurrency", "4", "-n", f"sec-agent-{os.getpid()}@localhost", "--without-gossip",
                   "--without-mingle"], env=egress_env),
            start([sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", "default", "--pool", "threads",
                   "--concurrency", "2", "-n", f"sec-default-{os.getpid()}@localhost", "--without-gossip",
                   "--without-mingle"]),
        ]
        try:
            wait_http(web + "/healthz", timeout=90, proc=procs[0])
            wait_http(f"http://127.0.0.1:{https_port}/healthz", timeout=90, proc=procs[1])
            from venus_rpa.celery import app

            while len(app.control.ping(timeout=0.5)) < 2:
                time.sleep(0.2)
            s = Stack(web, workspace, practice)
            probe_webhook(p, s)
            probe_secrets(p, s, exposures)
            escapes = probe_egress(p, s, site)
            regex_ms = probe_regex(p, s)
            probe_governance(p, s)
            probe_internal_calls(p, s)
            probe_templates(p, s)
            probe_slugs(p, s)
            probe_server_errors(p, s)
            probe_hardening(p, s, f"http://127.0.0.1:{https_port}")
            probe_flower(p)
            probe_surfaces(p, s)
            schemathesis = _schemathesis(web, s, args.schemathesis_examples)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
            site.close()
    result = {
        "benchmark": "security",
        "probes": p.report(),
        "schemathesis": schemathesis,
        "secret_exposures": exposures,
        "egress_escapes": escapes,
        "regex_max_block_ms": regex_ms,
        "targets": {"failed": 0, "server_errors": 0, "schema_violations": 0, "secret_exposures": 0,
                    "egress_escapes": 0, "regex_max_block_ms": 100},
    }
    print(json.dumps(result, indent=2))


def _schemathesis(web: str, s: Stack, examples: int) -> dict:
    from tests.security.schemathesis_run import run as schemathesis_run

    token = s.clients["owner"].headers["Authorization"].split(" ", 1)[1]
    return schemathesis_run(web, token, examples)


if __name__ == "__main__":
    main()
