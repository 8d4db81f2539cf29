"""The surface seam: what the runner, the agent loop and the gates need from a surface, and
nothing more.

A surface (`web`, `android`, `desktop`) plugs in with three pieces, all small protocols here:

- `Host` — one per surface per worker process: hands out a run's `Environment` (a browser
  context of the pool, a leased Android device, a leased Xvfb display), says whether a run that
  lost its environment runs once more (`retry_after_crash`), saves and restores what a parked run
  needs (`suspend` / `restore`), builds the surface's explicit-step executor, and closes.
- `Environment` — one per run: `observe()` / `execute(action)` for the UI-Venus loop, plus the
  few surface-neutral facts the runner reads: `location()` (URL, foreground activity, window
  title), `text_visible(text)` (success criteria), `session_state()` (what a crash retry resumes
  in; None on surfaces without one), and the safety gate's probes (`probe_step`, `probe_action`,
  `shown_box`) that read what an action acts on from the DOM, the UI hierarchy or the screen.
- `StepExecutor` — runs explicit steps without a model (`run(step) -> StepOutcome`), with the
  run's guard and the journal hook `before_act`; `workers.executor.ExplicitExecutor` is the web's.

The `Runner` takes a mapping surface -> Host (a worker has hosts only for the surfaces its queues
serve, see docs/surfaces.md) and refuses an automation whose surface it has no host for. Nothing
here imports Playwright, adb or X: each surface's module does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

# The UI-Venus action space (workers.actions.action_space) each automation surface speaks.
ACTION_SPACES = {"web": "browser", "android": "mobile", "desktop": "desktop"}


@dataclass(frozen=True)
class Observation:
    """One look at the screen: a JPEG (or PNG) of `width`×`height` (executor units) plus facts:
    `url` is the surface's location (`Environment.location()`), `extra` what else it has (the
    Android UI hierarchy, the desktop window list)."""

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


@dataclass
class StepOutcome:
    """What an explicit step did: how its target was found (and the gate's verdict), and output."""

    grounding: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    # A click or key press: the (masked) screen right before it acted, in which `grounding`'s box or
    # point is where it acted (the screen after it may be another page).
    screenshot_before: bytes | None = None


@dataclass
class SuspendedSession:
    """What a parked run keeps of its environment (`workers.durable.Continuation`): the session
    (browser storage state; {} where the surface has none), extra state (the page's
    sessionStorage), the location, and `kept`: the handle of an environment left running for the
    run (a desktop session on its display, an Android device), which the host takes over when the
    run resumes (`new_environment(kept=...)`); {} where the environment is given up."""

    session: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    location: str = ""
    kept: dict[str, Any] = field(default_factory=dict)


class Environment(Protocol):
    """A surface a run drives.

    `observe()` never changes the screen. `execute()` performs one typed action of the surface's
    UI-Venus action space (`action_space`, see ACTION_SPACES) and raises `StepError` when it cannot
    (the message goes back to the model or the user), `EnvironmentLost` when the browser, device
    or display is gone (the run ends with that reason).
    """

    surface: str  # "web" | "android" | "desktop"
    action_space: str  # "browser" | "mobile" | "desktop"
    captcha_detection: bool  # whether the CAPTCHA gate can read this surface's page
    secrets: Any  # the run's SecretBox (values revealed only when typed)

    async def observe(self) -> Observation: ...

    async def execute(self, action: Any) -> ActionOutcome: ...

    async def settle(self) -> None:
        """Wait until what the last action started (a navigation, an activity) has produced a screen."""
        ...

    def location(self) -> str:
        """Where the run is: the URL, the foreground activity (`package/.Activity`), the window title."""
        ...

    async def text_visible(self, text: str) -> bool:
        """Whether `text` is shown on the current screen (success criteria)."""
        ...

    async def session_state(self) -> dict[str, Any] | None:
        """The session a crash retry resumes in (browser storage state), or None without one."""
        ...

    async def probe_step(self, step: Any, target: Any) -> Any:
        """The safety gate's view (`workers.gates.context.Probe`) of what an explicit step acts on."""
        ...

    async def probe_action(self, action: Any) -> tuple[Any, tuple[int, int] | None]:
        """The gate's view of what a UI-Venus action acts on, and the point in executor units."""
        ...

    async def shown_box(self, target: Any, probe: Any) -> dict[str, float] | None:
        """The target's box on the screenshot a reviewer sees (scrolled into view if need be)."""
        ...

    async def close(self) -> None: ...


class StepExecutor(Protocol):
    """Runs one explicit step (goto, click, fill, press, wait_for, assert, extract, ...) of a
    surface without a model. `guard` (the run's safety gate, or None) clears every acting step;
    `before_act(step, risk)` is awaited once a click or press is cleared, right before it acts
    (the runner journals its intent there, `workers.journal`)."""

    guard: Any
    before_act: Callable[[Any, dict[str, Any]], Awaitable[None]] | None

    async def run(self, step: Any) -> StepOutcome: ...


class Host(Protocol):
    """What a worker holds for one surface: the browser pool, the Android device registry's
    leases, the display pool. Used from the runtime loop thread only."""

    surface: str

    async def new_environment(self, *, allowed_domains: list[str], secrets: Any,
                              storage_state: dict[str, Any] | None = None, run_id: int | None = None,
                              **kept: Any) -> Environment:
        """A run's environment (with a saved session when the surface has one). `run_id` names
        the run a leased device or display is held for. A host whose `suspend` keeps environments
        also takes `kept=` (the handle it returned) and gives that environment back. Raises
        `EnvironmentLost` when none can be had (no free slot, no healthy device, a kept one lost)."""
        ...

    def explicit_executor(self, env: Environment, *, start_url: str = "", grounder: Any = None,
                          guard: Any = None) -> StepExecutor:
        """The surface's explicit-step executor for `env`. `grounder(instruction=, observation=)`
        is the model fallback for targets the surface's own grounding cannot find."""
        ...

    def retry_after_crash(self, env: Environment | None, *, attempt: int) -> bool:
        """The crash policy: whether a run whose environment was lost runs once more."""
        ...

    async def suspend(self, env: Environment) -> SuspendedSession:
        """What a parked run keeps of `env` before the environment is closed (with `kept`, the
        environment itself stays the run's: closing it then lets go without tearing it down)."""
        ...

    async def restore(self, env: Environment, continuation: Any) -> None:
        """Put a parked run's saved session and location back into `env` (a fresh environment)."""
        ...

    async def close(self) -> None: ...
