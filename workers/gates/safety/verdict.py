"""The gate's answer: category, level R0-R4, decision, a reason for people and the evidence.

Levels follow reference/safety-and-captcha.md §1: R0 observe, R1 local and reversible, R2 external
but easily undone, R3 consequential (review queue unless pre-authorised), R4 prohibited (blocked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Level = Literal["R0", "R1", "R2", "R3", "R4"]
Decision = Literal["allow", "review", "block"]

# Consequential categories of reference §2. UNKNOWN is the fail-closed verdict ("cannot judge");
# INJECT is used only when on-screen injection alone raised an action with no category of its own.
CATEGORIES = (
    "PAY", "DEL", "SEND", "SHARE", "AUTH", "SEC", "INSTALL", "LEGAL", "ACCT", "BOOK", "SYS", "NAV-OUT",
)
SPECIAL = ("UNKNOWN", "INJECT", "NONE")
# Which category names a verdict when several fire at the same level (most harmful first).
PRIORITY = {name: i for i, name in enumerate(
    ("PAY", "DEL", "SEC", "AUTH", "ACCT", "SHARE", "SEND", "INSTALL", "SYS", "BOOK", "LEGAL", "NAV-OUT",
     "UNKNOWN", "INJECT", "NONE"))}

# What each category means, for the one-line reason a reviewer reads.
MEANING = {
    "PAY": "spends or moves money",
    "DEL": "deletes data that may not be recoverable",
    "SEND": "sends or publishes something to other people",
    "SHARE": "shares data or files beyond this run",
    "AUTH": "signs in or hands over credentials",
    "SEC": "changes security settings",
    "INSTALL": "installs software or grants a permission",
    "LEGAL": "accepts a legal agreement",
    "ACCT": "creates, closes or changes an account",
    "BOOK": "makes, changes or cancels a booking",
    "SYS": "changes the system or runs a system command",
    "NAV-OUT": "leaves the automation's scope",
    "UNKNOWN": "could not be judged from what is on screen",
    "INJECT": "follows text on the screen that is addressed to an AI agent",
    "NONE": "has no consequential effect",
}


def level_name(level: int) -> Level:
    return f"R{max(0, min(4, level))}"  # type: ignore[return-value]


class Evidence(BaseModel):
    """One signal the verdict rests on. `text` never holds a secret: typed values are masked."""

    model_config = ConfigDict(frozen=True)

    signal: str = Field(description="What fired, e.g. 'label.PAY', 'value.card_number', 'injection.hidden_text'.")
    source: str = Field(description="Where it was read, e.g. 'target.aria_label', 'dialog_text', 'url'.")
    text: str = Field(default="", description="The matched text (truncated, secrets masked).")


class Verdict(BaseModel):
    """The gate's decision for one action.

    `decision` is what the runtime does: run it (allow), pause the run for a person (review) or
    refuse it (block). `level` is the risk after modifiers and policy; `category` names the risk
    ("NONE" when there is none). `modifiers` lists what raised or lowered the level
    (injection, label_mismatch, hidden_target, invisible_text, model_asked, pre_approved, ...).
    """

    model_config = ConfigDict(frozen=True)

    category: str
    level: Level
    decision: Decision
    reason: str
    evidence: list[Evidence] = Field(default_factory=list)
    modifiers: list[str] = Field(default_factory=list)

    @property
    def gated(self) -> bool:
        """True when the action does not run unattended (review or block)."""
        return self.decision != "allow"


@dataclass
class Finding:
    """One rule's conclusion, before modifiers and policy (internal to the rule layer)."""

    category: str
    level: int
    reason: str
    evidence: list[Evidence] = field(default_factory=list)
    out_of_scope: bool = False  # NAV-OUT because the destination is outside the allowed domains/apps

    def rank(self) -> tuple[int, int]:
        return (self.level, -PRIORITY.get(self.category, 99))


def strongest(findings: list[Finding]) -> Finding | None:
    """The finding with the highest level; ties go to the more harmful category."""
    return max(findings, key=Finding.rank) if findings else None
