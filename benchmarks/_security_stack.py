"""The live stack the security probes run against: personas by role, run helpers, the tally.

Shared by benchmarks/security.py and its probe modules; see security.py for what is measured.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import defaultdict

import httpx

from _stack import ROOT

SECRET = "Zq8vault-Secret-7731"
CARD = "4000 0566 5566 5556"
CVC = "9876"
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


class Probes:
    """Collects per-area results: `check(area, ok, what)` records one probe."""

    def __init__(self) -> None:
        self.areas: dict[str, dict] = defaultdict(lambda: {"tried": 0, "failed": 0, "failures": []})

    def check(self, area: str, ok: bool, what: str) -> bool:
        entry = self.areas[area]
        entry["tried"] += 1
        if not ok:
            entry["failed"] += 1
            entry["failures"].append(what)
        return ok

    def report(self) -> dict:
        return {area: {k: v for k, v in entry.items() if k != "failures" or v} for area, entry in self.areas.items()}


LOG_DIR = None


def start(args: list[str], env: dict | None = None) -> subprocess.Popen:
    """Start a process of the stack; its output goes to a log file named in errors."""
    global LOG_DIR
    import tempfile

    LOG_DIR = LOG_DIR or tempfile.mkdtemp(prefix="venus-security-")
    full = {**os.environ, "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", **(env or {})}
    log = open(os.path.join(LOG_DIR, f"{os.path.basename(args[0])}-{len(os.listdir(LOG_DIR))}.log"), "w")
    return subprocess.Popen(args, cwd=ROOT, env=full, stdout=log, stderr=subprocess.STDOUT)


def wait_run(run_id: int, timeout: float = 120.0):
    from venus_rpa.runs.models import Run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in TERMINAL or run.status == "awaiting_review":
            return run
        time.sleep(0.1)
    return Run.objects.get(pk=run_id)


class Stack:
    """Personas (API clients by role) and helpers to create automations and start runs over HTTP."""

    def __init__(self, web: str, workspace, practice: str) -> None:
        from venus_rpa.accounts.services import api_token_create, membership_add, user_create

        self.web, self.workspace, self.practice = web, workspace, practice
        self.clients: dict[str, httpx.Client] = {}
        for role in ("owner", "editor", "reviewer", "viewer"):
            user = user_create(username=f"sec-{role}", password=f"pw-{role}-123456")
            membership_add(workspace=workspace, user=user, role=role)
            _, raw = api_token_create(workspace=workspace, user=user, name="security")
            self.clients[role] = httpx.Client(base_url=web, timeout=30,
                                              headers={"Authorization": f"Bearer {raw}"})
        self.anon = httpx.Client(base_url=web, timeout=30)

    def automation(self, slug: str, definition: dict, *, role: str = "owner") -> httpx.Response:
        return self.clients[role].post("/api/automations/", json={"slug": slug, "name": slug, **definition})

    def run(self, slug: str, params: dict | None = None) -> int | None:
        response = self.clients["owner"].post(f"/api/automations/{slug}/runs/", json={"params": params or {}})
        if response.status_code != 202:
            return None
        return response.json()["id"]


def lookup_definition(practice: str, value: str, *, extra: list[dict] | None = None, schema: dict | None = None) -> dict:
    """Type `value` into the lab's GET form ("Account number"), press "Look up", read the result."""
    return {
        "start_url": practice + "/lab/lookup",
        "allowed_domains": ["127.0.0.1"],
        "credentials": ["bench-vault"],
        "param_schema": schema or {"type": "object", "properties": {}},
        "steps": [
            {"kind": "fill", "target": "Account number", "value": value},
            *(extra or []),
            {"kind": "click", "target": {"role": "button", "name": "Look up"}},
            {"kind": "wait_for", "text": "Looked up"},
            {"kind": "extract", "target": {"css": "#looked-up"}, "into": "shown"},
        ],
    }


def dashboard(s: Stack) -> httpx.Client:
    """A signed-in dashboard session for the owner persona."""
    client = httpx.Client(base_url=s.web, timeout=30)
    client.get("/login/")
    client.post("/login/", data={"username": "sec-owner", "password": "pw-owner-123456",
                                 "csrfmiddlewaretoken": client.cookies.get("csrftoken", "")},
                headers={"Referer": s.web + "/login/"})
    return client
