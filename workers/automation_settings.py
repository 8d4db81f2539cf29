"""The automation-wide settings an `AutomationSpec` (`workers.steps`) carries besides its steps:
how the verdict is decided (`SuccessCriteria`), how CAPTCHAs are handled (`CaptchaPolicy`), the
safety policy (`SafetySettings`), persistent sign-in (`SignIn`, `SignInCheck`) and the run's
limits (`Limits`).

`workers.steps` re-exports every name here for its existing callers; this module does not import
it (the safety rule layer, which these settings build on, imports `workers.steps`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

_JUDGE_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")

# The validation context under which a definition is being saved (`Model.model_validate(data,
# context=SAVING)`): the `bounded` texts are checked only then. A step filled in at run time
# (`templating.render_step`: a `{{steps.page.value}}` may be long), a called automation's steps,
# a reviewer's edit and a version saved before the bounds existed are not refused for their length.
SAVING = {"saving": True}


def _saving(info: ValidationInfo) -> bool:
    return bool(info.context and info.context.get("saving"))


def bounded(limit: int) -> Any:
    """A string type of at most `limit` characters when a definition is saved (see `SAVING`)."""

    def check(value: str, info: ValidationInfo) -> str:
        if len(value) > limit and _saving(info):
            raise PydanticCustomError("string_too_long", "String should have at most {max_length} characters "
                                      "(this one has {length})", {"max_length": limit, "length": len(value)})
        return value

    return Annotated[str, AfterValidator(check), Field(json_schema_extra={"maxLength": limit})]


class SuccessCriteria(BaseModel):
    """How the run's verdict is decided after the last step. Every set field must hold."""

    model_config = ConfigDict(extra="forbid")

    url_contains: bounded(2000) | None = None
    text_visible: bounded(500) | None = None
    output_valid: bool = Field(default=True, description="Extracted output must match the output schema.")
    judges: list[str] = Field(
        default_factory=list, max_length=5,
        description="Judge models (names of the platform's VENUS_JUDGES) that vote on the whole trace after these checks.")
    judge_rule: Literal["unanimous", "majority", "any_fail"] = Field(
        default="majority", description="How the judges' votes combine; a disagreement marks the run 'needs a look'.")

    @field_validator("judges")
    @classmethod
    def _distinct_judges(cls, value: list[str]) -> list[str]:
        for name in value:
            if not _JUDGE_NAME.fullmatch(name):
                raise ValueError(f"{name[:60]!r} is not a judge's name: pick one of the platform's judges (a name such as "
                                 "'ui-venus', never a URL)")
        if len(set(value)) != len(value):
            raise ValueError("each judge may be named once")
        return value


class CaptchaPolicy(BaseModel):
    """How CAPTCHAs are handled. Solving happens only on the automation's allowed domains (sites the
    operator is authorised to automate); elsewhere, and for risk-scored third-party widgets, only
    a person may solve them."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    solvers: list[Literal["local", "model", "human"]] = Field(
        default_factory=lambda: ["local", "model", "human"], min_length=1,
        description="Routes in the order they are tried.")
    max_attempts: int = Field(default=3, ge=1, le=10, description="Tries per automated route; a person gets one.")
    letter_case: Literal["unknown", "ignored", "matters"] = Field(
        default="unknown", description="Whether the sites' text CAPTCHAs accept an answer in any letter case "
        "('ignored') or only as drawn ('matters'); 'unknown' goes by what the page says ('not case-sensitive') "
        "and otherwise assumes it matters. Where case is ignored, the local solver answers texts whose letters "
        "it can read but whose case it cannot tell.")


def _categories(value: Any) -> list[str]:
    """Known category codes, deduplicated, in the taxonomy's order (a stable stored form)."""
    from workers.gates.safety import CATEGORIES  # the rule layer imports workers.steps: no cycle at import time

    if value == _ALL:
        return list(CATEGORIES)
    names = [value] if isinstance(value, str) else list(value or [])
    unknown = sorted({str(n) for n in names} - set(CATEGORIES))
    if unknown:
        raise ValueError(f"unknown categories: {', '.join(unknown)} (known: {', '.join(CATEGORIES)})")
    return [c for c in CATEGORIES if c in names]


_ALL = "all"


class SafetySettings(BaseModel):
    """The automation's safety policy: what the gate holds for review, lets through, or blocks.

    Every action is classified before it runs (reference/safety-and-captcha.md). Consequential
    (R3) actions of a `review` category wait for a reviewer unless `pre_approved` covers them
    (a category, optionally only where a phrase appears around the action, e.g. ["SEND", "submit
    expense"]); `blocked` categories, prohibited (R4) actions and navigation outside the allowed
    domains (`block_nav_out`) are refused. `credential_sign_in`: signing in on a domain of one of
    the automation's own credentials is pre-approved (the author registered the credential for
    that site); off those domains a sign-in is still reviewed, and on a look-alike it is R4.
    `on_reject`: what a rejected explicit step does ("fail" the run, or "skip" the step; agent
    steps always get the comment as feedback). `review_timeout_s`: a review not decided by then
    expires and counts as rejected.
    """

    model_config = ConfigDict(extra="forbid")

    review: list[str] = Field(default_factory=lambda: _categories(_ALL),
                              description='Categories whose consequential actions need a reviewer ("all" by default).')
    pre_approved: list[dict[str, Any]] = Field(
        default_factory=list, description='Pre-approvals: "SEND", ["SEND", "submit expense"] or '
                                          '{"category", "phrase", "max_amount"}.')
    blocked: list[str] = Field(default_factory=list, description="Categories refused outright.")
    block_nav_out: bool = True
    credential_sign_in: bool = True
    on_reject: Literal["fail", "skip"] = "fail"
    review_timeout_s: float = Field(default=3600, ge=1, le=7 * 24 * 3600)

    @field_validator("review", "blocked", mode="before")
    @classmethod
    def _known(cls, value: Any) -> list[str]:
        return _categories(value)

    @field_validator("pre_approved", mode="before")
    @classmethod
    def _approvals(cls, value: Any) -> list[dict[str, Any]]:
        from workers.gates.safety import PreApproval

        items = value if isinstance(value, list) else [value]
        return [PreApproval.model_validate(item).model_dump(exclude_none=True) for item in items]

    def policy(self, *, allowed_domains: list[str] | tuple = (), sign_in: bool = False):
        """The rule layer's `SafetyPolicy`; with `sign_in`, AUTH is pre-approved as well. (The
        runtime passes the allowed domains in each action's context instead.)"""
        from workers.gates.safety import PreApproval, SafetyPolicy
        from workers.gates.safety.policy import CredentialSignIn

        approvals = [PreApproval.model_validate(a) for a in self.pre_approved]
        extra = [CredentialSignIn()] if sign_in else []
        return SafetyPolicy(review_categories=frozenset(self.review), pre_approved=[*approvals, *extra],
                            blocked=frozenset(self.blocked), allowed_domains=list(allowed_domains),
                            block_nav_out=self.block_nav_out)


class SignInCheck(BaseModel):
    """How a run tells it is signed in: every set condition must hold on the current page. Used
    before the sign-in block when a saved session was applied (holds: the block is skipped), and
    after the block ran (must hold, else the sign-in failed and nothing is saved)."""

    model_config = ConfigDict(extra="forbid")

    text_visible: str | None = Field(default=None, max_length=500, description='e.g. "Sign out".')
    url_contains: str | None = Field(default=None, max_length=500)
    url_excludes: str | None = Field(default=None, max_length=500, description='e.g. "/login".')
    timeout_s: float = Field(default=3.0, gt=0, le=60, description="How long to wait for the text to appear.")

    @model_validator(mode="after")
    def _something(self) -> "SignInCheck":
        if not (self.text_visible or self.url_contains or self.url_excludes):
            raise ValueError("the signed-in check needs text_visible, url_contains or url_excludes")
        return self


class SignIn(BaseModel):
    """Persistent login: the steps marked `sign_in` (one consecutive block) sign in with
    `credential`. After they succeed and `check` holds, the browser session (cookies and local
    storage) is saved encrypted for (workspace, credential, domain); the next run starts with it and
    skips the block while `check` holds, and signs in again (refreshing the session) when not.
    `credential`: default, the one credential the marked steps type. `domain`: default, the start
    URL's host; sessions hold only cookies and storage of hosts that both the automation's allowed
    domains and the credential's domains permit."""

    model_config = ConfigDict(extra="forbid")

    credential: str = Field(default="", max_length=80)
    domain: str = Field(default="", max_length=255)
    check: SignInCheck


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_steps: int = Field(default=100, ge=1, le=1000)
    max_seconds: float = Field(default=600, gt=0, le=24 * 3600)

