"""Drive a real-app task (practice/realapps) through the production path: the automation is made
with `automation_create`, started with `run_start` (what the API calls) and executed by a real
Celery worker; a reviewer decides each review with `review_decide` (what the API calls).
Shared by tests/realapps and benchmarks/realapps.py."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import ModuleType

TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


@dataclass
class Outcome:
    """What one run of a task did: its end, and every review it asked for (step name, title)."""

    run_id: int
    status: str
    reason: str
    reviews: list[dict] = field(default_factory=list)
    reviewed_before_change: bool = True  # every review found the app unchanged while it waited

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"


def task_automation(*, workspace, app: ModuleType, server, task: dict, slug: str | None = None):
    """The task as an automation of `workspace`, with the app's sign-in credential stored (the
    server's `credential_fields()`: a username and password, and django CMS's TOTP secret)."""
    from practice.realapps import credential_name, definition_for
    from venus_rpa.automations.services import automation_create, credential_set

    credential_set(workspace=workspace, name=credential_name(app),
                   fields=server.credential_fields(), domains=["127.0.0.1"])
    return automation_create(workspace=workspace, user=None, slug=slug or task["name"], name=task["name"],
                             definition=definition_for(task, server.base_url))


def run_task(*, automation, task: dict, server, reviewer, decision: str = "approve",
             timeout: float = 120.0) -> Outcome:
    """Start a run and see it to its end. A review of one of the task's commit steps gets
    `decision`; any other review (a lead-in) is approved, so a rejection lands on the act itself.
    Before each decision the task's `check_unchanged` (when it has one) must still hold."""
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.reviews.services import review_decide
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import run_start

    run = run_start(automation=automation, params=task.get("params", {}))
    outcome = Outcome(run_id=run.pk, status="", reason="")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run.pk)
        if run.status in TERMINAL:
            outcome.status, outcome.reason = run.status, run.status_reason
            return outcome
        review = ReviewRequest.objects.filter(run=run, kind="risky_action", status="pending").first()
        if run.status == "awaiting_review" and review is not None:
            if "check_unchanged" in task and not task["check_unchanged"](server):
                outcome.reviewed_before_change = False
            step = (review.detail.get("step") or {}).get("name", "")
            outcome.reviews.append({"step": step, "title": review.title, "category": review.category})
            verdict = decision if step in task.get("commit_steps", []) else "approve"
            review_decide(review=review, user=reviewer, decision=verdict, comment=f"{verdict}d by the harness")
        time.sleep(0.2)
    steps = "; ".join(f"{s.index} {s.name or s.kind} {s.status} {s.error[:120]}".strip()
                      for s in run.steps.order_by("index"))
    outcome.status, outcome.reason = "timeout", f"still {run.status} after {timeout:g}s (steps: {steps})"
    return outcome


def review_counts(task: dict, outcome: Outcome) -> dict:
    """Reviews that asked about a commit step (true), about anything else (false positives), and
    commit steps that ran without a review (missed; only known when the run got past them)."""
    commits = set(task.get("commit_steps", []))
    asked = [r["step"] for r in outcome.reviews]
    true = sum(1 for step in asked if step in commits)
    missed = len(commits - set(asked)) if outcome.succeeded else 0
    return {"reviews": len(asked), "true_reviews": true, "false_positive_reviews": len(asked) - true,
            "missed_consequential": missed}


def reviewer_in(workspace, username: str = "rita"):
    """A reviewer of the workspace (made once)."""
    from django.contrib.auth import get_user_model

    from venus_rpa.accounts.models import Membership, Role

    user, _ = get_user_model().objects.get_or_create(username=username)
    Membership.objects.get_or_create(workspace=workspace, user=user, defaults={"role": Role.REVIEWER})
    return user
