"""Review requests: things a run waits on a person for (a CAPTCHA to solve, a risky action to
approve, a question to answer)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from venus_rpa.accounts.models import Workspace
from venus_rpa.runs.models import Run


class ReviewKind(models.TextChoices):
    CAPTCHA = "captcha"
    RISKY_ACTION = "risky_action"
    CALL_USER = "call_user"


class ReviewStatus(models.TextChoices):
    PENDING = "pending"
    ANSWERED = "answered"
    APPROVED = "approved"
    REJECTED = "rejected"
    EDITED = "edited"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


# A decided review's outcome in the words people read (the Decided list's filter, a decided
# review's page, the answer to a decision that came too late).
DECIDED_WORDS = {ReviewStatus.APPROVED: "Approved", ReviewStatus.REJECTED: "Rejected",
                 ReviewStatus.EDITED: "Approved with changes", ReviewStatus.ANSWERED: "Answered",
                 ReviewStatus.EXPIRED: "Expired (nobody decided)", ReviewStatus.CANCELLED: "Cancelled (run ended)"}


class ReviewRequest(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="review_requests")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="review_requests")
    kind = models.CharField(max_length=20, choices=ReviewKind.choices)
    status = models.CharField(max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.PENDING,
                              db_index=True)
    title = models.CharField(max_length=300)
    detail = models.JSONField(default=dict, blank=True, help_text="What the person needs: type, instruction, "
                                                                  "screenshot size, proposed action…")
    screenshot = models.FileField(upload_to="reviews/%Y/%m/%d", blank=True)
    response = models.JSONField(default=dict, blank=True, help_text="The person's answer: text or clicks.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    comment = models.TextField(blank=True)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    # Risky actions: what the run wants to do, the gate's verdict, and the page state the approval is bound to.
    proposed_action = models.JSONField(default=dict, blank=True, help_text="The action as data (step or UI-Venus action).")
    category = models.CharField(max_length=16, blank=True)
    level = models.CharField(max_length=4, blank=True)
    reason = models.TextField(blank=True)
    fingerprint = models.CharField(max_length=64, blank=True, help_text="Hash of URL, visible text and target.")
    edited_action = models.JSONField(default=dict, blank=True, help_text="The action a reviewer ran instead (edit).")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} review {self.pk} for run {self.run_id} ({self.status})"


class DecisionKind(models.TextChoices):
    APPROVE = "approve"
    REJECT = "reject"
    EDIT = "edit"
    EXPIRE = "expire"
    CANCEL = "cancel"


class ReviewDecision(models.Model):
    """Audit log: every decision on a risky action, who made it (none for expiry) and when."""

    review = models.ForeignKey(ReviewRequest, on_delete=models.CASCADE, related_name="decisions")
    decision = models.CharField(max_length=16, choices=DecisionKind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    comment = models.TextField(blank=True)
    edited_action = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.decision} of review {self.review_id} by {self.user or 'the system'}"
