"""A run's records and bookkeeping, used by the run loop (`workers.runner`): the step record and
the run result, the recorder protocol the caller implements, the in-order record pipe, the run
clock that stops while a person decides, step budgets, and one run's moving parts (`RunState`).
See `workers.runner` for the contract with the caller.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from workers import steps as S
from workers.captcha.site_memory import SiteMemory
from workers.durable import Continuation
from workers.gates.guard import ActionGuard
from workers.gates.review import ReviewDecision, ReviewQuestion
from workers.items import Item, ItemRecord
from workers.journal import ActionEntry, Superseded
from workers.secrets import SecretBox
from workers.sign_in import LoginSessions
from workers.templating import values_context

Status = Literal["succeeded", "failed", "cancelled", "timed_out", "parked", "superseded"]


@dataclass
class StepRecord:
    index: int
    kind: str
    name: str
    action: dict[str, Any]
    status: Literal["succeeded", "failed", "skipped"]  # skipped: a branch not taken (the reason in `error`)
    error: str = ""
    grounding: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes | None = None  # the screen after the step
    screenshot_before: bytes | None = None  # for a click or key press: the screen it acted on, its target in `grounding`
    url: str = ""
    started_at: float = 0.0
    act_ms: float = 0.0
    observe_ms: float = 0.0
    model_ms: float = 0.0
    thought: str = ""
    model: dict[str, Any] = field(default_factory=dict)
    item: int | None = None  # the number of the item (workers.items) the step ran for
    called_in: str = ""  # the called automation(s) the step ran in ("sign-in v3"), see workers.calls


@dataclass
class RunResult:
    status: Status
    reason: str = ""
    output: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] = field(default_factory=dict)
    continuation: Continuation | None = None  # status "parked" only
    at: str = ""  # status "cancelled": the step under way when it stopped, as the editor numbers it (RunState.where)


class RunRecorder(Protocol):
    async def record_step(self, record: StepRecord) -> None: ...

    async def heartbeat(self) -> bool: ...

    async def ask_user(self, question: str) -> str:
        """Put the run in awaiting_user and return the person's answer (raise StepError on expiry,
        `Parked` past the hold window)."""
        ...

    async def ask_captcha(self, *, kind: str, instruction: str, screenshot: bytes, width: int,
                          height: int, challenge: str = "") -> dict[str, Any]:
        """Open a `captcha` review; return the person's {"text"} or {"clicks"} (StepError on
        expiry, `Parked` past the hold window). `challenge` identifies the challenge shown: an
        answer given while the run was parked is used only if the restored page shows it again."""
        ...

    async def open_review(self, question: ReviewQuestion) -> str:
        """File a `risky_action` review, put the run in awaiting_review; return the review's reference."""
        ...

    async def wait_review(self, review: str, *, timeout_s: float | None) -> ReviewDecision | None:
        """The decision as soon as there is one ("expired" past the review's expiry); None if
        `timeout_s` ran out first. Cancelling the wait cancels the review."""
        ...

    async def note_review(self, review: str, facts: dict[str, Any]) -> None:
        """Add facts for the reviewer to a pending review (e.g. the browser session was released)."""
        ...

    # Optional: `finish(records, result)` stores the held final records and the run's terminal
    # state in one transaction; `action_intent` / `action_done` journal actions (workers.journal);
    # `record_item(ItemRecord)` stores an item's status (workers.items; needed by runs with items).


class RecordPipe:
    """Delivers step records to the recorder in order, off the loop's critical path. Once
    `hold` is set (the final step is about to run), records are kept back and delivered with the
    run's result in one `finish` call, when the recorder has one."""

    def __init__(self, recorder: RunRecorder) -> None:
        self.recorder = recorder
        self.queue: asyncio.Queue[StepRecord | ItemRecord | None] = asyncio.Queue()
        self.held: list[StepRecord] = []
        self.hold = False
        self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        superseded = False
        while (record := await self.queue.get()) is not None:
            if superseded:  # the run is another execution's (workers.journal): its records are not stored
                continue
            try:
                await self._deliver(record)
            except Superseded:
                superseded = True

    async def _deliver(self, record: StepRecord | ItemRecord) -> None:
        if isinstance(record, ItemRecord):
            record_item = getattr(self.recorder, "record_item", None)  # optional: runs without items
            if record_item is not None:
                await record_item(record)
        else:
            await self.recorder.record_step(record)

    def put(self, record: StepRecord | ItemRecord) -> None:
        if self.hold and hasattr(self.recorder, "finish") and not isinstance(record, ItemRecord):
            self.held.append(record)
        else:
            self.queue.put_nowait(record)

    async def close(self, result: "RunResult | None" = None) -> None:
        self.queue.put_nowait(None)
        await self.task
        if result is not None and result.status == "superseded":
            return  # the run is another execution's now (workers.journal): nothing more of this one is stored
        if result is not None and result.status != "parked" and hasattr(self.recorder, "finish"):
            await self.recorder.finish(self.held, result)
        else:
            for record in self.held:
                await self.recorder.record_step(record)


def scrub_output(value: Any, secrets: SecretBox) -> Any:
    """Extracted data never carries a secret value (e.g. reading back a password field)."""
    return secrets.scrub_data(value)


def scrub_record(record: StepRecord, secrets: SecretBox) -> None:
    """Every string of a step record that can carry page or model text leaves the runtime
    (database, live events, trace, dashboard) scrubbed: what came from the page (URL, error,
    output) of fragments too; what describes it (thought, risk reasons, grounding, the model's
    action) of whole values. An explicit step's name and action are the author's text with
    parameters (placeholders, never vault values) and stay readable; the screenshot was masked
    when it was taken."""
    record.error, record.url = secrets.scrub(record.error), secrets.scrub(record.url)
    record.output = secrets.scrub_data(record.output)
    record.thought = secrets.scrub(record.thought, fragments=False)
    record.grounding = secrets.scrub_data(record.grounding, fragments=False)
    record.model = secrets.scrub_data(record.model, fragments=False)
    if record.kind == "agent":  # the model wrote it; an explicit step's action is the author's own text
        record.action = secrets.scrub_data(record.action, fragments=False)


class RunClock:
    """The run's time limit and the watchdog of the step in progress, both paused while the run
    waits for a person."""

    timeout: asyncio.Timeout | None = None
    step_timeout: asyncio.Timeout | None = None
    _remaining: dict[str, float] | None = None

    def pause(self) -> None:
        self._remaining = {}
        for name in ("timeout", "step_timeout"):
            timer = getattr(self, name)
            if timer is not None and timer.when() is not None and not timer.expired():
                self._remaining[name] = timer.when() - asyncio.get_running_loop().time()
                timer.reschedule(None)

    def resume(self) -> None:
        for name, remaining in (self._remaining or {}).items():
            timer = getattr(self, name)
            if timer is not None and not timer.expired():
                timer.reschedule(asyncio.get_running_loop().time() + max(remaining, 0))
        self._remaining = None


STEP_GRACE_S = 90.0  # what a step's watchdog allows beyond six times the step's timeout


def step_watchdog_s(step: Any) -> float:
    """How long one explicit step may take, a person's time not counted: finding its target (again
    after each review, up to `MAX_ROUNDS`), acting, the page settling and being read, each bounded
    by the step's own timeout or the browser's read limit; this is the backstop if one is not."""
    return 6 * float(getattr(step, "timeout_s", 10.0) or 10.0) + STEP_GRACE_S


class StepBudget:
    def __init__(self, seconds: float) -> None:
        self._deadline = time.monotonic() + seconds

    def deadline(self) -> float:
        return self._deadline

    def extend(self, seconds: float) -> None:
        self._deadline += seconds


@dataclass
class RunState:
    """One run's moving parts: where records go and which index comes next."""

    spec: S.AutomationSpec
    params: dict[str, Any]
    secrets: SecretBox
    pipe: RecordPipe
    recorder: RunRecorder
    clock: RunClock
    host: Any = None  # the Host of the automation's surface
    run_id: int | None = None  # the platform's id of the run (leases name it)
    env: Any = None
    next_index: int = 0
    captchas_solved: set[str] = field(default_factory=set)
    guard: ActionGuard | None = None
    sessions: LoginSessions | None = None
    page_steps: list = field(default_factory=list)  # explicit steps done on the current page (CAPTCHA replay, refill)
    output: dict[str, Any] = field(default_factory=dict)
    positions: dict[int, int] = field(default_factory=dict)  # id(step) -> its place in the step list
    numbers: Any = None  # the editor's numbers of the step list (workers.step_numbers.StepNumbers)
    at: int = -1  # the place in the step list under way (the step about to run or running)
    acting: ActionEntry | None = None  # the journaled action of the step in progress
    superseded: str = ""  # why the run was taken from this execution (workers.journal.Superseded)
    last_action: ActionEntry | None = None  # the last journaled action that ended (done or failed)
    last_done: ActionEntry | None = None  # the last journaled action done (a crash retry goes on after it)
    current_step: Any = None  # the explicit step in progress, as listed in the automation
    loops: dict[str, int] = field(default_factory=dict)  # repeat block path -> iterations begun (workers.flow)
    items: list[Item] = field(default_factory=list)  # the run's items (workers.items), in order
    item: Item | None = None  # the item whose iteration is under way
    item_output: dict[str, Any] = field(default_factory=dict)  # the values its steps stored
    replay_store: Any = None  # the automation version's replay cache (workers.replay.ReplayStore), or None
    replay_paths: dict[str, list] = field(default_factory=dict)  # step key -> the path to cache if the run verifies
    step_looks: list[str] = field(default_factory=list)  # agent turns whose step judges disagree (workers.step_judge)
    within: str = ""  # the called automation(s) the current position runs in (workers.flow.Flow.within)
    # What the sites' verdicts taught about their text CAPTCHAs' letter case (workers.captcha.letter_case)
    site_memory: SiteMemory = field(default_factory=SiteMemory)

    def emit(self, record: StepRecord) -> StepRecord:
        record.index = self.next_index
        self.next_index += 1
        record.called_in = record.called_in or self.within
        if self.item is not None and record.item is None:
            record.item = self.item.number
            if record.status == "succeeded" and record.output:
                self.item_output.update(record.output)
        scrub_record(record, self.secrets)
        self.pipe.put(record)
        return record

    def where(self, step: Any = None) -> str:
        """`step` (else the step under way) as its author numbers it in the editor, with the
        iterations of the repeats around it (workers.step_numbers): what a failure reason names."""
        position = self.at if step is None else self.positions.get(id(step), -1)
        if self.numbers is not None and (step is None or position >= 0):
            return self.numbers.label(position, self.loops)
        # Not in the list: a reviewer's edit of a step, done again after a CAPTCHA was refused.
        name = (getattr(step, "name", "") or getattr(step, "kind", "")) if step is not None else ""
        return f"the step '{name}', done again" if name else "a step"

    def context(self) -> dict[str, Any]:
        """What `{{…}}` placeholders are filled from now: parameters, step values, the item's fields."""
        return values_context(self.params, self.output, self.item.data if self.item is not None else None)

    def gate_facts(self) -> dict[str, Any]:
        """What a review raised now says of where it is: the item it belongs to, the called
        automation it runs in."""
        facts: dict[str, Any] = {"called_in": self.within} if self.within else {}
        return {**facts, "item": self.item.label(), "item_number": self.item.number} if self.item is not None else facts

    def item_event(self, item: Item, status: str, *, error: str = "", output: dict[str, Any] | None = None) -> None:
        self.pipe.put(ItemRecord(item.number, status, error=self.secrets.scrub(error)[:2000],  # type: ignore[arg-type]
                                 output=output or {}))

    async def watched(self, step: Any, work: Awaitable[StepRecord]) -> StepRecord:
        """One explicit step's work under its watchdog (`step_watchdog_s`, paused while a person
        decides): past it, a failed record saying so instead of a run left running."""
        limit = step_watchdog_s(step)
        try:
            async with asyncio.timeout(limit) as self.clock.step_timeout:
                return await work
        except TimeoutError:
            if self.clock.step_timeout is None or not self.clock.step_timeout.expired():
                raise
            where = self.env.location() if self.env is not None else ""
            error = (f"the step did not finish within {limit:g}s (a person's time not counted); the page at {where} "
                     "may still be loading a navigation it started")
            return StepRecord(0, step.kind, step.name, step.model_dump(exclude_none=True), "failed",
                              error=self.secrets.scrub(error), started_at=time.time())
        finally:
            self.clock.step_timeout = None

    async def wait_for_person(self, ask: Awaitable[Any], *budgets: "StepBudget") -> Any:
        """A person's time does not count against the run's or the step's time budget."""
        started = time.monotonic()
        self.clock.pause()
        try:
            return await ask
        finally:
            self.clock.resume()
            waited = time.monotonic() - started
            for budget in budgets:
                budget.extend(waited)


class RunFailed(Exception):
    """The run fails: "`where`: `error`", `where` naming the step as the editor numbers it
    (`RunState.where`). `index`: the trace's record of the failure (`StepRecord.index`; the last
    record made, when the failure has none of its own), for whatever links to the trace."""

    def __init__(self, where: str, error: str, *, index: int) -> None:
        super().__init__(f"{where}: {error}")
        self.where, self.error, self.index = where, error, index
