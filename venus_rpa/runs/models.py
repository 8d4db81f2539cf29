"""Runs, their steps and artifacts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation, AutomationVersion


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    AWAITING_REVIEW = "awaiting_review"
    AWAITING_USER = "awaiting_user"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


TERMINAL = {RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT}
ACTIVE = {RunStatus.RUNNING, RunStatus.AWAITING_REVIEW, RunStatus.AWAITING_USER}


class Trigger(models.TextChoices):
    API = "api"
    DASHBOARD = "dashboard"
    CLI = "cli"
    SCHEDULE = "schedule"
    WEBHOOK = "webhook"


PARAM_SHOWN_CHARS = 500


def params_shortened(value, limit: int = PARAM_SHOWN_CHARS):
    """`value` with each text longer than `limit` cut to `limit` characters and marked with its full length."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}… [{len(value):,} characters in all; first {limit} shown]"
    if isinstance(value, dict):
        return {k: params_shortened(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [params_shortened(v, limit) for v in value]
    return value


class Run(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="runs")
    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="runs")
    version = models.ForeignKey(AutomationVersion, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(max_length=20, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    status_reason = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    output = models.JSONField(default=dict, blank=True)
    verdict = models.JSONField(default=dict, blank=True)
    trigger = models.CharField(max_length=16, choices=Trigger.choices, default=Trigger.API)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    # Set when the dispatcher (runs.admission) gives the run a worker slot, and only then is it
    # sent to Celery; cleared when a wait parks the run and gives its slot back.
    admitted_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    # Who asked it to stop (runs.services.run_cancel): named in the reason it ended with.
    cancel_requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                            blank=True, related_name="+")
    # CallUser: the agent's question while awaiting_user, and the person's answer.
    question = models.TextField(blank=True)
    answer = models.TextField(blank=True)
    question_asked_at = models.DateTimeField(null=True, blank=True)
    # Delivery (venus_rpa.runs.recovery): the broker message that should carry the run, when it
    # was sent and how often; `attempt` counts executions (a worker lost → retried).
    task_id = models.CharField(max_length=64, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    enqueue_count = models.PositiveIntegerField(default=0)
    attempt = models.PositiveIntegerField(default=1)
    # A retry or re-run (runs.reruns): the run whose parameters this one was started with.
    retry_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="retries")
    # A run with items (runs.items): the items' field names in the sheet's order (exports follow it).
    item_columns = models.JSONField(default=list, blank=True)
    # Its `call` steps' versions, resolved when it was created and kept for the whole run
    # (automations.calls): call path -> AutomationVersion id.
    call_versions = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "heartbeat_at"]),
            # The admission queue: a workspace's runs waiting for a slot, oldest first.
            models.Index(fields=["workspace", "id"], name="run_waiting_by_workspace",
                         condition=models.Q(status="queued", admitted_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.automation} ({self.status})"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def params_shown(self) -> dict:
        """The parameters for a page: a long text (at any depth) cut to its first PARAM_SHOWN_CHARS
        characters, followed by how long it is in full (runs stored before the size limit may hold more)."""
        return params_shortened(self.params)

    @property
    def queued_for_s(self) -> float | None:
        """Seconds the run waited for a worker: so far while queued, until it started, or until it
        ended without starting; None for a run past the queue with no start recorded."""
        if self.started_at:
            end = self.started_at
        elif self.status == RunStatus.QUEUED:
            end = timezone.now()
        else:
            end = self.finished_at
        return max(round((end - self.created_at).total_seconds(), 3), 0.0) if end and self.created_at else None


class Step(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=32)
    name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16)
    error = models.TextField(blank=True)
    thought = models.TextField(blank=True)
    action = models.JSONField(default=dict)
    grounding = models.JSONField(default=dict, blank=True)
    output = models.JSONField(default=dict, blank=True)
    url = models.CharField(max_length=2000, blank=True)
    screenshot = models.FileField(upload_to="screenshots/%Y/%m/%d", blank=True)  # the screen after the step
    # A click or key press: the screen it acted on, where `grounding`'s box is (the one after may be another page).
    screenshot_before = models.FileField(upload_to="screenshots/%Y/%m/%d", blank=True)
    started_at = models.DateTimeField()
    recorded_at = models.DateTimeField(auto_now_add=True, null=True)  # when the worker stored it
    act_ms = models.FloatField(default=0)
    observe_ms = models.FloatField(default=0)
    model_ms = models.FloatField(default=0)
    # Model call facts for agent steps: latency, tokens, image size, tries, prompt hash, raw answer.
    model = models.JSONField(default=dict, blank=True)
    item = models.PositiveIntegerField(null=True, blank=True)  # the number of the item (RunItem) it ran for
    # The called automation(s) it ran in ("sign-in v3 › report v1"; workers.calls), empty at the top.
    called_in = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="step_index_per_run")]

    def __str__(self) -> str:
        return f"step {self.index} of run {self.run_id}"

    @property
    def replayed(self) -> bool | None:
        """For an agent turn: True when it was replayed from the cache (no model call), False when
        the model reasoned it; None for other steps (`workers.replay`)."""
        if self.kind != "agent" or not isinstance(self.model, dict):
            return None
        return bool((self.model.get("replay") or {}).get("replayed"))

    @property
    def replay_note(self) -> str:
        """Why an agent turn was reasoned: the drift that ended the replay, or why it does not apply."""
        facts = (self.model or {}).get("replay") or {} if isinstance(self.model, dict) else {}
        return str(facts.get("drift") or facts.get("reason") or "")


class ItemStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


class RunItem(models.Model):
    """One item of a run with items (a row of the sheet it was started with): its fields, its own
    status, error and output. `retry_of` is the failed item of an earlier run this one retries
    (queue-item semantics, runs.items): a failed item is retried at most once at a time, a
    succeeded or skipped one never."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="items")
    number = models.PositiveIntegerField()  # its row in the sheet, 1-based
    of = models.PositiveIntegerField()  # the sheet's number of rows ("item 7 of 25")
    data = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=ItemStatus.choices, default=ItemStatus.PENDING)
    error = models.TextField(blank=True)
    output = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    retry_of = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="retry")

    class Meta:
        ordering = ["run", "number"]
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="run_item_number_per_run")]

    def __str__(self) -> str:
        return f"item {self.number} of run {self.run_id} ({self.status})"

    @property
    def label(self) -> str:
        return f"item {self.number} of {self.of}"


class ActionStatus(models.TextChoices):
    INTENT = "intent"  # about to act: written (committed) before the action runs
    DONE = "done"  # the action ran: the session right after it is kept to resume from
    FAILED = "failed"  # the action raised before it could take effect (the run fails on it)


class RunAction(models.Model):
    """The journal of a run's actions that change the world (clicks and key presses that submit,
    pay, send): an intent row before, a done row after. A retried run resumes after the last done
    action; an intent without done is in doubt and is never repeated blindly."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="actions")
    position = models.PositiveIntegerField()  # the step's place in the automation (start URL = 0)
    attempt = models.PositiveIntegerField(default=1)
    name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=ActionStatus.choices)
    risk = models.JSONField(default=dict, blank=True)
    url_before = models.CharField(max_length=2000, blank=True)
    url_after = models.CharField(max_length=2000, blank=True)
    # Fernet-encrypted {"state": storage_state JSON, "output": the run's output so far}.
    session = models.TextField(blank=True)
    next_index = models.PositiveIntegerField(default=0)  # the step record index that follows it
    intent_at = models.DateTimeField()
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "position"], name="run_action_per_position")]

    def __str__(self) -> str:
        return f"{self.kind} at position {self.position} of run {self.run_id} ({self.status})"


class Artifact(models.Model):
    class Kind(models.TextChoices):
        FILE = "file"
        DATA = "data"
        TRACE = "trace"
        INPUT = "input"  # a file given with the run at launch (runs.run_files)

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="artifacts")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to="artifacts/%Y/%m/%d", blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class RunContinuation(models.Model):
    """What a run parked while it waits for a person needs to go on (durable waits): the browser
    session, its position in the steps or the agent's history, the pending action. Encrypted with
    the credential key (it holds cookies of signed-in sessions); deleted when the run resumes or ends."""

    class Wait(models.TextChoices):
        REVIEW = "review"
        ANSWER = "answer"
        CAPTCHA = "captcha"

    run = models.OneToOneField(Run, on_delete=models.CASCADE, primary_key=True, related_name="continuation")
    wait = models.CharField(max_length=16, choices=Wait.choices)
    review_id = models.PositiveIntegerField(null=True, blank=True)  # a plain id: runs does not depend on reviews
    ciphertext = models.TextField()
    parked_at = models.DateTimeField(auto_now_add=True)
    resume_requested_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"continuation of run {self.run_id} ({self.wait})"
