"""Bulk decisions on pending risky actions, one result per review (`core.bulk`): reject the
selected ones with one comment, or approve all of one run's that are within its policy."""

from __future__ import annotations

from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.core.bulk import BulkResult, bulk_apply, bulk_ids_check
from venus_rpa.core.errors import InvalidInput, ServiceError
from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
from venus_rpa.reviews.services import review_decide
from venus_rpa.runs.models import Run
from workers.automation_settings import SafetySettings
from workers.gates.safety.policy import RAISING, SafetyPolicy

NOT_FOUND = "No such review in this workspace."
# Categories a bulk approval never covers: the fail-closed ones (the gate could not judge, or the
# page itself gave instructions) and leaving the automation's sites: each needs its own look.
NEVER_BULK = {"UNKNOWN", "INJECT", "NAV-OUT"}
# Nothing above this level is approved in bulk (R4 is blocked by the gate and never reaches a person).
BULK_LEVEL_MAX = 3


def reviews_bulk_reject(*, workspace: Workspace, ids: list[int], user, comment: str) -> list[BulkResult]:
    """Reject each pending risky action with the same comment (`review_decide`: role, expiry and
    state are checked per review, so some may fail and say why; each decision is audited)."""
    comment = (comment or "").strip()
    if not comment:
        raise InvalidInput("Say why these actions are rejected.", fields={"comment": ["A comment is required."]})
    found = ReviewRequest.objects.filter(workspace=workspace, pk__in=bulk_ids_check(ids)).select_related("run")

    def reject(review: ReviewRequest) -> BulkResult:
        review = review_decide(review=review, user=user, decision="reject", comment=comment, bulk=True)
        return BulkResult(review.pk, True, f"Rejected: {review.title}")

    return bulk_apply(ids=ids, found=found, act=reject, not_found=NOT_FOUND)


def _level(value: str) -> int | None:
    digits = str(value or "").lstrip("Rr")
    return int(digits) if digits.isdigit() else None


def _policy(run: Run) -> SafetyPolicy | None:
    """The rule layer's policy of the run's version (None if it cannot be read: nothing is bulk-approved)."""
    try:
        return SafetySettings.model_validate(run.version.safety or {}).policy()
    except ValueError:
        return None


def review_outside_policy(review: ReviewRequest) -> str:
    """Why this pending review may not be approved in bulk for its run, or "" when it may.

    "Within the run's policy" means an item a pre-approval of the automation's safety policy
    could have covered, so a reviewer approving the run's batch does not wave through anything
    the policy would insist on seeing by itself: a risky action (not a CAPTCHA or question), at
    most R3, of a category that is neither fail-closed (UNKNOWN, INJECT) nor leaving the
    automation's sites (NAV-OUT) nor blocked by the policy, and not raised by on-screen
    instructions, a hidden or mislabelled target or the model's own doubt (`RAISING`).
    """
    if review.kind != ReviewKind.RISKY_ACTION:
        return "only risky actions are approved in bulk"
    verdict = (review.detail or {}).get("verdict") or {}
    level = _level(review.level or verdict.get("level", ""))
    category = (review.category or str(verdict.get("category", ""))).upper()
    policy = _policy(review.run)
    if level is None or level > BULK_LEVEL_MAX:
        return f"risk level {review.level or 'unknown'} is above R{BULK_LEVEL_MAX}"
    if not category or category in NEVER_BULK:
        return f"category {category or 'unknown'} is always decided one by one"
    if policy is None or category in policy.blocked:
        return "the automation's safety policy blocks this category"
    raised = sorted(set(verdict.get("modifiers") or []) & RAISING)
    if raised:
        return f"raised by {', '.join(m.replace('_', ' ') for m in raised)}"
    return ""


def reviews_approve_run(*, workspace: Workspace, run_id: int, user, comment: str = "") -> list[BulkResult]:
    """Approve every pending, unexpired risky action of one run that is within its policy
    (`review_outside_policy`); the others stay pending and their result says why. Role, expiry
    and state are checked per review by `review_decide`; each approval is audited."""
    run = Run.objects.select_related("version").filter(workspace=workspace, pk=run_id).first()
    if run is None:
        raise InvalidInput("No such run in this workspace.", fields={"run": ["Unknown run."]})
    pending = list(ReviewRequest.objects.filter(run=run, status=ReviewStatus.PENDING, expires_at__gt=timezone.now())
                   .select_related("run__version", "workspace").order_by("created_at", "id"))
    if not pending:
        raise InvalidInput("Nothing of this run waits for a decision.", fields={"run": ["No pending review."]})
    comment = (comment or "").strip()[:2000] or "approved with the run's other in-policy actions"
    results = []
    for review in pending:
        why = review_outside_policy(review)
        if why:
            results.append(BulkResult(review.pk, False, f"Left for a separate decision ({why}): {review.title}"))
            continue
        try:
            review = review_decide(review=review, user=user, decision="approve", comment=comment, bulk=True)
        except ServiceError as exc:
            results.append(BulkResult(review.pk, False, exc.message, fields=exc.fields))
        else:
            results.append(BulkResult(review.pk, True, f"Approved: {review.title}"))
    return results
