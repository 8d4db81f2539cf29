"""The action journal's runtime side: which steps change the world, and where a retry resumes.

An explicit `click` or `press` step (a submit, pay, send or sign-in button; Enter in a form) can
change the world. Once the safety gate has cleared it and right before it runs, the runner
awaits `recorder.action_intent(entry)`; right after it ran, `recorder.action_done(entry)` with
the page's URL and session then (`storage_state`) and the run's output so far. The recorder
must have stored each before it returns: a worker lost in between leaves an intent without a
done, which the platform treats as *in doubt* and never repeats blindly.

A heartbeat can be late without the worker being lost (a stalled machine, a slow database): the
platform may then retry or end a run its first execution still holds. The recorder fences that
execution off: its next heartbeat or intent raises `Superseded`, and the runner stops the run
there, acting and recording nothing more (the retry resumes after the last done action, or the
sweep found the intent and failed the run as in doubt). So a late heartbeat never makes an action
happen twice.

A run retried after its worker was lost gets a `Resume`: it continues with the step after its
last done action, in a browser context restored from the session saved with it, so what that
action did is never done twice. Agent steps are not journaled (their history is not resumable
here); the platform does not retry runs that have them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

JOURNALED_KINDS = frozenset({"click", "press"})


@dataclass
class ActionEntry:
    position: int  # the step's place in the run's step list (0 = the start URL, when there is one)
    kind: str
    name: str
    url_before: str = ""
    risk: dict[str, Any] = field(default_factory=dict)
    status: Literal["intent", "done", "failed"] = "intent"
    url_after: str = ""
    storage_state: dict[str, Any] | None = None  # cookies and local storage right after the action
    output: dict[str, Any] = field(default_factory=dict)  # the run's output so far
    next_index: int = 0  # the step-record index that follows this step's record


class Superseded(Exception):
    """The run is no longer this execution's (retried as a new attempt, or ended, while this one still
    ran): it must not act or record anything more."""


@dataclass(frozen=True)
class Resume:
    """Where a retried run continues: step list position, URL and session, output, record index."""

    position: int
    url: str
    storage_state: dict[str, Any] | None
    output: dict[str, Any]
    next_index: int

    @property
    def from_start(self) -> bool:
        """Nothing was done: the retry runs every step again in a fresh session, its records
        numbered from `next_index` (after those the lost attempt left)."""
        return self.position == 0


class ActionJournal(Protocol):
    """The optional recorder methods the runner journals through (both must be durable on return)."""

    async def action_intent(self, entry: ActionEntry) -> None: ...

    async def action_done(self, entry: ActionEntry) -> None: ...
