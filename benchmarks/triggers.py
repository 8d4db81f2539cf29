"""Trigger and live-view latency on the local stack. Prints JSON.

- `webhook_to_running_ms`: a signed POST to `/hooks/<id>/` (daphne, the ASGI web server) → the
  run's state `running` (claimed by a real Celery worker), over N webhooks sent one after another
  (each run is short and ends before the next webhook, so queueing behind earlier runs is not
  counted).
- `step_to_browser_ms`: a step stored by the worker (`Step.recorded_at`) → the dashboard's live
  run page, open in real Chromium over a websocket, shows its row (MutationObserver timestamp).

    .venv/bin/python benchmarks/triggers.py [--webhooks 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import httpx

from _stack import ROOT, practice_site, setup_django, wait_http

from tests.helpers.servers import free_port

SEEN_SCRIPT = """
window.__seen = {};
new MutationObserver(records => {
  for (const r of records) for (const n of r.addedNodes)
    if (n.nodeType === 1 && n.matches && n.matches('li.step')) window.__seen[n.dataset.index] = Date.now();
}).observe(document, {subtree: true, childList: true});
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def start(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def webhook_latency(web: str, automation, count: int) -> dict:
    from venus_rpa.runs.models import Run
    from venus_rpa.triggers.services.webhooks import webhook_trigger_create
    from venus_rpa.triggers.signing import signed_headers

    trigger, secret = webhook_trigger_create(workspace=automation.workspace, user=None, automation=automation,
                                             name="bench", param_mapping={"title": "title"})
    latencies = []
    with httpx.Client(base_url=web, timeout=10) as client:
        for i in range(count + 1):  # the first webhook warms the worker's browser and is dropped
            body = json.dumps({"title": f"Webhook expense {i}", "nonce": time.time_ns()}).encode()
            sent = time.time()
            response = client.post(f"/hooks/{trigger.public_id}/", content=body,
                                   headers={"Content-Type": "application/json", **signed_headers(secret, body)})
            assert response.status_code == 202, response.text
            run_id = response.json()["run_id"]
            while True:
                run = Run.objects.get(pk=run_id)
                if run.started_at is not None and run.is_terminal:
                    break
                time.sleep(0.02)
            if i:
                latencies.append((run.started_at.timestamp() - sent) * 1000)
    return {"webhooks": count, "webhook_to_running_ms_p50": round(percentile(latencies, 0.5), 1),
            "webhook_to_running_ms_p95": round(percentile(latencies, 0.95), 1)}


def live_view_latency(web: str, automation, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    from venus_rpa.core.demo import DEMO_PASSWORD, DEMO_USER
    from venus_rpa.runs.models import Step
    from venus_rpa.runs.services import run_start

    # Playwright's sync API runs an event loop in this thread; the ORM calls here are plain
    # blocking reads between browser calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    samples: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(web + "/login/")
        page.get_by_label("Username").fill(DEMO_USER)
        page.get_by_label("Password").fill(DEMO_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(web + "/")
        page.add_init_script(SEEN_SCRIPT)
        for _ in range(runs):
            run = run_start(automation=automation, params={})
            page.goto(f"{web}/runs/{run.pk}/")
            page.wait_for_function("document.querySelector('[data-ws]') !== null")
            while not automation.runs.filter(pk=run.pk, finished_at__isnull=False).exists():
                time.sleep(0.1)
            time.sleep(1.0)
            seen = page.evaluate("window.__seen")
            for step in Step.objects.filter(run=run):
                if str(step.index) in seen and step.recorded_at is not None:
                    samples.append(seen[str(step.index)] - step.recorded_at.timestamp() * 1000)
        browser.close()
    return {"live_steps_measured": len(samples), "step_to_browser_ms_p50": round(percentile(samples, 0.5), 1),
            "step_to_browser_ms_p95": round(percentile(samples, 0.95), 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--webhooks", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    setup_django()
    from django.core.management import call_command

    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import automation_create

    port = free_port()
    web = f"http://127.0.0.1:{port}"
    with practice_site(quiet=True) as base:
        os.environ["VENUS_PRACTICE_URL"] = base
        call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
        demo = Automation.objects.select_related("workspace").get(slug="demo-expense")
        quick = automation_create(
            workspace=demo.workspace, user=None, slug="bench-hook", name="bench hook",
            definition={"start_url": base + "/login", "allowed_domains": ["127.0.0.1"],
                        "param_schema": {"type": "object", "properties": {"title": {"type": "string"}}}})
        daphne = start([os.path.join(sys.prefix, "bin", "daphne"), "-b", "127.0.0.1", "-p", str(port),
                        "venus_rpa.asgi:application"])
        worker = start([sys.executable, "-m", "celery", "-A", "venus_rpa", "worker", "-Q", "agent,default",
                        "--pool", "threads", "--concurrency", "4", "-n", f"bench-{os.getpid()}@localhost",
                        "--without-gossip", "--without-mingle"])
        try:
            wait_http(web + "/healthz")
            from venus_rpa.celery import app

            while not app.control.ping(timeout=0.5):
                time.sleep(0.2)
            result = {"benchmark": "triggers", **webhook_latency(web, quick, args.webhooks),
                      **live_view_latency(web, demo, args.runs),
                      "targets": {"webhook_to_running_ms_p50": 300, "step_to_browser_ms_p50": 200}}
        finally:
            for proc in (daphne, worker):
                proc.terminate()
                proc.wait(timeout=30)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
