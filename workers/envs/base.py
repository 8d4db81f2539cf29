"""The Environment seam: what the loop observes and acts on.

Implementations: `BrowserEnvironment` (Playwright). Android and desktop come with the pools
issue. Tests use the real browser against local pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Observation:
    """One look at the screen: a JPEG of `width`×`height` (executor units) plus page facts."""

    screenshot: bytes
    width: int
    height: int
    url: str = ""
    title: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ActionOutcome:
    """What executing an action did: feedback for the next model turn, and what was hit."""

    feedback: str = ""
    grounding: dict[str, Any] = field(default_factory=dict)


class Environment(Protocol):
    """A surface the runtime drives.

    `observe()` never changes the screen. `execute()` performs one typed action and raises
    `StepError` when it cannot (the message goes back to the model or the user).
    """

    surface: str

    async def observe(self) -> Observation: ...

    async def execute(self, action: Any) -> ActionOutcome: ...

    async def close(self) -> None: ...
