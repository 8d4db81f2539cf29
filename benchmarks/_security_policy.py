"""Security probes of policy and input: review governance, internal calls, templates, slugs,
server errors, hardening, Flower, and the Android and desktop surfaces. Used by security.py."""

from __future__ import annotations

import sys
import time

import httpx

from _security_stack import SECRET, Probes, Stack, dashboard, lookup_definition, start, wait_run

from tests.helpers.servers import free_port


def probe_governance(p: Probes, s: Stack) -> None:
    s.automation("gov", {"start_url": s.practice + "/shop", "allowed_domains": ["127.0.0.1"]})
    for safety in ({"review": []}, {"pre_approved": ["PAY", "DEL"]}, {"on_reject": "skip"}):
        r = s.clients["editor"].patch("/api/automations/gov/", json={"safety": safety})
        p.check("governance", r.status_code in (400, 403), f"editor lowered review with {safety}: {r.status_code}")
    r = s.clients["owner"].patch("/api/automations/gov/", json={"safety": {"pre_approved": ["PAY"]}})
    p.check("governance", r.status_code == 200, f"owner could not change the policy: {r.status_code}")


def probe_internal_calls(p: Probes, s: Stack) -> None:
    for url in ("http://169.254.169.254/latest/meta-data", "http://10.1.2.3/hook", "http://[fe80::1]/",
                "http://127.0.0.1:6379/", "gopher://127.0.0.1/"):
        r = s.clients["owner"].post("/api/callbacks/", json={"url": url})
        p.check("internal_calls", r.status_code == 400, f"callback URL {url} accepted ({r.status_code})")
    r = s.automation("remote-ref", {"start_url": s.practice + "/lab", "allowed_domains": ["127.0.0.1"],
                                    "param_schema": {"type": "object", "properties": {
                                        "x": {"$ref": "http://169.254.169.254/schema.json"}}}})
    p.check("internal_calls", r.status_code == 400, f"remote $ref saved ({r.status_code})")


def probe_templates(p: Probes, s: Stack) -> None:
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.models import Run

    schema = {"type": "object", "properties": {"first": {"type": "string"}, "last": {"type": "string"}}}
    s.automation("tpl", lookup_definition(s.practice, "{{first}}{{last}}", schema=schema))
    httpx.post(s.practice + "/api/reset")
    run_id = s.run("tpl", {"first": "{", "last": "{credentials.bench-vault.password}}"})
    if run_id:
        wait_run(run_id)
    typed = httpx.get(s.practice + "/api/lookups").json()
    p.check("templates", not any(SECRET in value for value in typed), "assembled placeholder typed the secret")
    # A reviewer's edit that hides a placeholder behind a tab must be refused.
    created = s.automation("tpl-review", lookup_definition(s.practice, "x"))
    if not p.check("templates", created.status_code == 201, f"tpl-review not saved: {created.text[:300]}"):
        return
    from venus_rpa.automations.models import Automation

    automation = Automation.objects.get(workspace=s.workspace, slug="tpl-review")
    run = Run.objects.create(workspace=s.workspace, automation=automation, version=automation.versions.last(),
                             status="awaiting_review", params={})
    from datetime import timedelta

    from django.utils import timezone

    action = {"kind": "fill", "target": "Account number", "value": "x"}
    review = ReviewRequest.objects.create(workspace=s.workspace, run=run, kind="risky_action", title="Type x",
                                          proposed_action=action, expires_at=timezone.now() + timedelta(minutes=10),
                                          detail={"action": action, "editable": ["value"]})
    for sneaky in ("{{\tcredentials.bench-vault.password}}", "{{ credentials.bench-vault.password }}",
                   "{{credentials.bench-vault.password\n}}"):
        r = s.clients["reviewer"].post(f"/api/reviews/{review.pk}/edit/", json={"action": {"value": sneaky}})
        p.check("templates", r.status_code in (400, 409), f"edit {sneaky!r} accepted ({r.status_code})")


def probe_slugs(p: Probes, s: Stack) -> None:
    from venus_rpa.automations.models import Automation

    r = s.automation("Bad Slug!", {"start_url": s.practice + "/lab", "allowed_domains": ["127.0.0.1"]})
    p.check("input", r.status_code == 400, f"API saved slug 'Bad Slug!' ({r.status_code})")
    dash = dashboard(s)
    form = dash.get("/automations/new/")
    r = dash.post("/automations/new/", data={"csrfmiddlewaretoken": dash.cookies.get("csrftoken", ""),
                                             "name": "Bad", "slug": "Bad Slug!", "start_url": s.practice + "/lab",
                                             "allowed_domains": "127.0.0.1"},
                  headers={"Referer": s.web + "/automations/new/"})
    p.check("input", form.status_code == 200 and r.status_code < 500, f"editor answered {r.status_code}")
    p.check("input", not Automation.objects.filter(slug__contains=" ").exists(), "an automation with a bad slug exists")
    p.check("input", dash.get("/automations/").status_code == 200, "/automations/ fails")
    for url in ("file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi"):
        r = s.automation("bad-url", {"start_url": url, "allowed_domains": ["127.0.0.1"]})
        p.check("input", r.status_code == 400, f"start URL {url} saved ({r.status_code})")
    for field in ("", "a.b"):
        r = s.clients["owner"].post("/api/credentials/", json={"name": "c", "fields": {field: "x"},
                                                               "domains": ["127.0.0.1"]})
        p.check("input", r.status_code == 400, f"credential field {field!r} saved ({r.status_code})")


def probe_server_errors(p: Probes, s: Stack) -> None:
    from venus_rpa.triggers.services.webhooks import webhook_trigger_create
    from venus_rpa.triggers.signing import signed_headers
    from venus_rpa.automations.models import Automation

    deep = ("[" * 5000 + "]" * 5000).encode()
    owner = s.clients["owner"]
    for path in ("/api/automations/", "/api/automations/demo-expense/runs/", "/api/credentials/",
                 "/api/callbacks/", "/api/schedules/", "/api/webhooks/"):
        r = owner.post(path, content=deep, headers={"Content-Type": "application/json"})
        p.check("server_errors", r.status_code == 400 and r.headers.get("content-type", "").startswith("application/json"),
                f"deep JSON to {path}: {r.status_code}")
    automation = Automation.objects.get(workspace=s.workspace, slug="demo-expense")
    trigger, secret = webhook_trigger_create(workspace=s.workspace, user=None, automation=automation, name="deep")
    r = s.anon.post(f"/hooks/{trigger.public_id}/", content=deep,
                    headers={"Content-Type": "application/json", **signed_headers(secret, deep)})
    p.check("server_errors", r.status_code == 400, f"deep JSON to a signed webhook: {r.status_code}")
    for query in ("/api/runs/?limit=" + "1" + "0" * 30, f"/api/runs/?limit={2**63}", f"/api/runs/?offset={2**63}",
                  "/api/callbacks/deliveries/?run=" + "1" + "0" * 30, "/api/callbacks/deliveries/?endpoint=" + "9" * 31,
                  "/api/runs/" + "9" * 30 + "/", "/api/reviews/?limit=-1"):
        r = owner.get(query)
        p.check("server_errors", r.status_code < 500 and "error" in r.text, f"GET {query[:60]}: {r.status_code}")


def probe_hardening(p: Probes, s: Stack, https_web: str | None) -> None:
    client = httpx.Client(base_url=s.web, timeout=30)
    for _ in range(30):
        client.get("/login/")
        client.post("/login/", data={"username": "sec-viewer", "password": "wrong-password",
                                     "csrfmiddlewaretoken": client.cookies.get("csrftoken", "")},
                    headers={"Referer": s.web + "/login/"})
    client.get("/login/")
    r = client.post("/login/", data={"username": "sec-viewer", "password": "pw-viewer-123456",
                                     "csrfmiddlewaretoken": client.cookies.get("csrftoken", "")},
                    headers={"Referer": s.web + "/login/"})
    signed_in = client.get("/", follow_redirects=False).status_code == 200
    p.check("hardening", not signed_in, "30 wrong passwords, then the right one signed in")
    page = s.anon.get("/login/")
    p.check("hardening", "content-security-policy" in page.headers, "no Content-Security-Policy header")
    docs = s.clients["owner"].get("/api/docs/").text
    p.check("hardening", "cdn" not in docs.lower() and "@latest" not in docs, "API docs load assets from a CDN")
    static = s.anon.get("/static/venus.css")
    p.check("hardening", static.status_code == 200, f"static files not served ({static.status_code})")
    big = s.clients["owner"].post("/api/automations/", content=b'{"x": "' + b"a" * (12 * 1024 * 1024) + b'"}',
                                  headers={"Content-Type": "application/json"})
    p.check("hardening", big.status_code == 413 and big.headers.get("content-type", "").startswith("application/json"),
            f"oversized body answered {big.status_code} {big.headers.get('content-type')}")
    if https_web:
        r = httpx.get(https_web + "/login/", headers={"X-Forwarded-Proto": "https"})
        cookies = r.headers.get_list("set-cookie")
        p.check("hardening", "strict-transport-security" in r.headers, "no HSTS over https")
        p.check("hardening", cookies and all("Secure" in c for c in cookies), "cookies not Secure over https")


def probe_flower(p: Probes) -> None:
    """Flower started as `make up` starts it (FLOWER_BASIC_AUTH in its environment): no page without
    signing in, every page with the password."""
    import secrets

    port = free_port()
    auth = "flower:" + secrets.token_urlsafe(12)
    proc = start([sys.executable, "-m", "celery", "-A", "venus_rpa", "flower", "--address=127.0.0.1",
                  f"--port={port}"], env={"FLOWER_BASIC_AUTH": auth})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/healthcheck", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.3)
        r = httpx.get(base + "/workers")
        p.check("hardening", r.status_code == 401, f"Flower answered {r.status_code} without sign-in")
        user, password = auth.split(":", 1)
        r = httpx.get(base + "/workers", auth=(user, password))
        p.check("hardening", r.status_code == 200, f"Flower answered {r.status_code} with the password")
    except httpx.HTTPError as exc:
        p.check("hardening", False, f"Flower did not answer: {exc}")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def probe_surfaces(p: Probes, s: Stack) -> None:
    """Android and desktop: who may register a device, where workers may be sent, what a desktop
    start may run. Nothing here connects to a device: refusals happen at save."""
    from venus_rpa.accounts.models import Workspace
    from venus_rpa.devices.services import device_register

    device = {"serial": "probe-phone-1", "adb_host": "127.0.0.1", "adb_port": 5037}
    for role in ("editor", "reviewer", "viewer"):
        r = s.clients[role].post("/api/devices/", json=device)
        p.check("surfaces", r.status_code == 403, f"{role} registered a device ({r.status_code})")
    r = s.anon.post("/api/devices/", json=device)
    p.check("surfaces", r.status_code in (401, 403), f"anonymous registered a device ({r.status_code})")
    for host, port in (("10.0.0.5", 5037), ("169.254.169.254", 80), ("127.0.0.1", 6379)):
        r = s.clients["owner"].post("/api/devices/", json={**device, "adb_host": host, "adb_port": port})
        p.check("surfaces", r.status_code == 400, f"device on adb server {host}:{port} accepted ({r.status_code})")
    r = s.clients["owner"].post("/api/devices/", json={**device, "apps": {"Evil": "com.x; reboot"}})
    p.check("surfaces", r.status_code == 400, f"app table with a shell command accepted ({r.status_code})")
    other = Workspace.objects.create(name="Probe Other", slug="probe-other")
    theirs = device_register(workspace=other, serial="probe-other-phone")
    r = s.clients["owner"].get(f"/api/devices/{theirs.pk}/")
    p.check("surfaces", r.status_code == 404, f"another workspace's device answered {r.status_code}")
    r = s.clients["owner"].patch(f"/api/devices/{theirs.pk}/", json={"status": "disabled"})
    p.check("surfaces", r.status_code == 404, f"another workspace's device changed ({r.status_code})")
    for start_ in ("app:sh -c id", "xterm", "app:gnumeric/../../etc/passwd", "app:gnumeric//etc/passwd"):
        r = s.automation("desk-probe", {"surface": "desktop", "start_url": start_, "allowed_domains": []}, role="editor")
        p.check("surfaces", r.status_code == 400 and "start_url" in r.text,
                f"desktop start {start_!r} answered {r.status_code}: {r.text[:200]}")
