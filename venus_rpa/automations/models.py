"""Automations, their immutable versions, and encrypted credentials."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from venus_rpa.accounts.models import Workspace


class Automation(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="automations")
    slug = models.SlugField(max_length=80)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    current_version = models.ForeignKey(
        "AutomationVersion", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Archived (soft-deleted): hidden from the list, never started by any path, restorable; its
    # runs keep their history (automations.lifecycle).
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")
    # The replay cache (workers.replay): verified agent paths replayed without the model. Not part
    # of the definition: switching it makes no new version; switching it off forgets the paths.
    replay_cache = models.BooleanField(
        default=True, help_text="Replay verified agent paths without calling the model while the screens match.")
    # Counts the saves that changed anything (name, description, replay cache, a new version): a
    # change to the name alone makes no version, so an editor sends the revision it read too, and
    # a save over a newer one is refused (automations.services.automation_update, base_revision).
    revision = models.PositiveIntegerField(
        default=1, help_text="Goes up by one with every change to the automation; send it back as base_revision.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "slug"], name="automation_slug_per_workspace")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None


class Surface(models.TextChoices):
    WEB = "web"
    ANDROID = "android"
    DESKTOP = "desktop"


class AutomationVersion(models.Model):
    """One immutable definition of an automation. Runs point at the version they used."""

    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    surface = models.CharField(max_length=16, choices=Surface.choices, default=Surface.WEB)
    start_url = models.CharField(max_length=2000, blank=True)
    allowed_domains = models.JSONField(default=list, blank=True)
    goal = models.TextField(blank=True)
    steps = models.JSONField(default=list)
    param_schema = models.JSONField(default=dict, blank=True)
    credentials = models.JSONField(default=list, blank=True, help_text="Names of credentials the steps may use.")
    success_criteria = models.JSONField(default=dict, blank=True)
    output_schema = models.JSONField(default=dict, blank=True)
    limits = models.JSONField(default=dict, blank=True)
    captcha = models.JSONField(default=dict, blank=True, help_text="CAPTCHA policy: enabled, solvers, max_attempts.")
    safety = models.JSONField(default=dict, blank=True, help_text="Safety policy: review, pre_approved, blocked, "
                                                                  "block_nav_out, credential_sign_in, on_reject, "
                                                                  "review_timeout_s.")
    model_grounding = models.BooleanField(
        default=False, help_text="Ask the model for click/fill targets the DOM grounder cannot find."
    )
    sign_in = models.JSONField(default=dict, blank=True, help_text="Persistent login: credential, domain and the "
                                                                  "signed-in check of the steps marked sign_in.")
    change_note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    # Fields that make up the definition: a change in any of them makes a new version.
    DEFINITION_FIELDS = (
        "surface", "start_url", "allowed_domains", "goal", "steps", "param_schema", "credentials",
        "success_criteria", "output_schema", "limits", "captcha", "safety", "model_grounding", "sign_in",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["automation", "number"], name="version_number_per_automation")]
        ordering = ["-number"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("automation versions are immutable; create a new version instead")
        super().save(*args, **kwargs)

    def definition(self) -> dict:
        return {name: getattr(self, name) for name in self.DEFINITION_FIELDS}

    def __str__(self) -> str:
        return f"{self.automation} v{self.number}"


class Credential(models.Model):
    """Secret fields (username, password, ...) encrypted at rest with Fernet.

    The plaintext never leaves `automations.crypto`/the worker: the API shows names and field
    keys only, and the model sees `{{credentials.NAME.FIELD}}` placeholders.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="credentials")
    name = models.SlugField(max_length=80)
    domains = models.JSONField(default=list, blank=True, help_text="Sites where the secret may be typed.")
    field_names = models.JSONField(default=list)
    ciphertext = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "name"], name="credential_name_per_workspace")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class LoginSession(models.Model):
    """A browser session (Playwright storage state: cookies, local storage) saved after an
    automation's sign-in steps, for one (workspace, credential, domain); encrypted at rest like
    credentials. Runs of any automation of the workspace that signs in with this credential on
    this domain start with it. Never shown, never returned: only its metadata is."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="login_sessions")
    credential = models.ForeignKey(Credential, on_delete=models.CASCADE, related_name="sessions")
    domain = models.CharField(max_length=255)
    ciphertext = models.TextField()
    saved_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    saved_by_run_id = models.BigIntegerField(null=True, blank=True, help_text="The run that signed in.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["credential", "domain"], name="login_session_per_domain")]
        ordering = ["domain"]

    def __str__(self) -> str:
        return f"{self.credential} @ {self.domain}"


class ReplayPath(models.Model):
    """The replay cache's entry: the verified path of one agent step of one automation version
    (`workers.replay.CachedTurn`s as JSON: screen fingerprints, actions, anchors). Written only by
    the worker, after a run of that version succeeded with its criteria passed; a new version
    starts with none."""

    version = models.ForeignKey(AutomationVersion, on_delete=models.CASCADE, related_name="replay_paths")
    step_key = models.CharField(max_length=100, help_text="The step's place and goal digest (workers.replay.step_key).")
    turns = models.JSONField(default=list)
    run_id = models.BigIntegerField(null=True, blank=True, help_text="The run that verified this path.")
    saved_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "step_key"], name="replay_path_per_version_step")]

    def __str__(self) -> str:
        return f"{self.version} {self.step_key}"


class SiteLetterCase(models.Model):
    """What one site's verdicts taught about its text CAPTCHAs, for one automation: the belief
    that the site accepts an answer in any letter case (workers.captcha.letter_case: log-weights
    over case ignored or not x the reader's skill on the site; `ignored`, its probability, for
    people to read), and the format of its accepted answers (workers.captcha.answer_format:
    decayed counts of their lengths and characters).
    Written only by the worker, after each verdict on a local text answer (and on a person's,
    which teaches the format only); the case belief moves only on answers whose case was learned
    (the automation's `letter_case` left at "unknown" and the page silent: a pinned
    `letter_case` makes it unused). Per automation, so one workspace's sites never teach another's."""

    automation = models.ForeignKey(Automation, on_delete=models.CASCADE, related_name="site_letter_cases")
    host = models.CharField(max_length=253)
    weights = models.JSONField(help_text="Log-weights of the hypotheses (workers.captcha.letter_case).")
    ignored = models.FloatField(help_text="The probability that the site ignores letter case.")
    accepted = models.PositiveIntegerField(default=0, help_text="Answers the site accepted (local, or a person's).")
    refused = models.PositiveIntegerField(default=0, help_text="Answers the site refused (local, or a person's).")
    answer_format = models.JSONField(default=dict, blank=True,
                                     help_text="Counts of the accepted answers' lengths and characters "
                                               "(workers.captcha.answer_format).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["automation", "host"], name="site_letter_case_per_host")]
        ordering = ["host"]

    def __str__(self) -> str:
        return f"{self.automation} @ {self.host}"

    @property
    def case_learned(self) -> bool:
        """Whether its verdicts moved the letter-case belief from the prior (answers whose case
        was sure, or a pinned `letter_case`, move nothing)."""
        from workers.captcha import letter_case

        return abs(self.ignored - letter_case.PRIOR_IGNORED) > 1e-3

    @property
    def format_learned(self) -> str:
        """The answers' format its local answers are read under, in words ("" when none yet)."""
        from workers.captcha import answer_format

        return answer_format.describe(answer_format.hints(self.answer_format))
