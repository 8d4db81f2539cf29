"""Per-automation safety policy and how it turns a risk level into a decision.

Decision rule (reference §1, §2 modifiers): R4 is always blocked; a blocked category is blocked;
leaving the allowed domains/apps is blocked when `block_nav_out` (else reviewed); R3 is reviewed
when its category is in `review_categories` and no pre-approval covers it, in which case it is
lowered one level to R2 and allowed; R0-R2 are allowed. A pre-approval never covers an action
that on-screen injection, a hidden or mislabelled target, or the model's own doubt raised, nor
an amount above its cap, nor the fail-closed categories UNKNOWN and INJECT.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from workers.gates.safety.verdict import CATEGORIES, MEANING

# Modifiers that void a pre-approval: the action is no longer the one the automation's author approved.
RAISING = {"injection", "label_mismatch", "hidden_target", "model_asked"}


class PreApproval(BaseModel):
    """A category this automation may perform without review, optionally only where `phrase`
    appears around the action (label, dialog, nearby text, title, typed text, file name) and only
    up to `max_amount` (in the amount's own currency) for money."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    phrase: str | None = None
    max_amount: float | None = Field(default=None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, data: Any) -> Any:
        # "SEND" or ["SEND", "submit expense"] as well as the full object.
        if isinstance(data, str):
            return {"category": data}
        if isinstance(data, (list, tuple)):
            return {"category": data[0], "phrase": data[1] if len(data) > 1 else None}
        return data

    @model_validator(mode="after")
    def _known(self) -> "PreApproval":
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}")
        return self

    def words(self) -> str:
        """Why an action ran without review, in words, and where the author changes that."""
        where = f" where '{self.phrase}' appears around it" if self.phrase else ""
        cap = f" (up to an amount of {self.max_amount:g})" if self.max_amount is not None else ""
        return (f"Pre-approved by this automation's safety policy: an action that {MEANING[self.category]}{where}{cap} "
                f"runs without review (change it under Safety policy, \"pre_approved\", in the automation's editor).")


class CredentialSignIn(PreApproval):
    """The pre-approval the automation's own credentials give: signing in on a credential's own
    domains (`SafetySettings.credential_sign_in`). Made by the runtime, never read from a policy."""

    category: str = "AUTH"

    def words(self) -> str:
        return ("Pre-approved: signing in with one of this automation's own credentials on that credential's site "
                "runs without review (change it under Safety policy, \"credential_sign_in\", in the automation's editor).")


class SafetyPolicy(BaseModel):
    """What one automation allows: categories that need review, pre-approved ones, blocked ones,
    the domains and apps it may act on, and whether leaving them is blocked or reviewed."""

    model_config = ConfigDict(extra="forbid")

    review_categories: frozenset[str] = Field(default=frozenset(CATEGORIES))
    pre_approved: list[PreApproval] = Field(default_factory=list)
    blocked: frozenset[str] = Field(default_factory=frozenset)
    allowed_domains: list[str] = Field(default_factory=list)
    allowed_apps: list[str] = Field(default_factory=list)
    block_nav_out: bool = True

    @model_validator(mode="after")
    def _known(self) -> "SafetyPolicy":
        unknown = (set(self.review_categories) | set(self.blocked)) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"unknown categories: {', '.join(sorted(unknown))}")
        return self

    def approval_for(self, category: str, around: str, amount: float | None) -> PreApproval | None:
        """The pre-approval covering an R3 action of `category`, given the normalised text around
        it and the largest amount shown (None when none is shown)."""
        for approval in self.pre_approved:
            if approval.category != category:
                continue
            if approval.phrase and approval.phrase.lower() not in around:
                continue
            if approval.max_amount is not None and (amount is None or amount > approval.max_amount):
                continue
            return approval
        return None


DEFAULT_POLICY = SafetyPolicy()
