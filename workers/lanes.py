"""Lanes: the items of a `for_each` block worked on at once (`ForEachBlock.lanes`, web only).

The run signs in once; at its `for_each` block it opens `lanes - 1` more browser contexts holding
its session (`Host.new_lane`: cookies, local storage, the page's sessionStorage, at the run's
page), and each lane takes the next item still to run, works through the block's steps for it on
its own page, then takes the next, until none is left. The run's own page is the first lane.

Contract (driven by `workers.lane_runner.LaneRunner` for the run loop):
- Each lane is a `LaneState`: the run's state with its own environment, executor, safety guard,
  step clock, values, item and page steps; its records take their indexes from the run's one
  counter and carry their item's number, so the trace interleaves items but never mixes them.
  Item records (`running`, then `succeeded` / `skipped` / `failed`) are as without lanes.
- Items are taken in sheet order, each by one lane only: no item runs twice.
- One person at a time: a lane that must wait for a person (a review, a question, a CAPTCHA)
  holds `Lanes`' person lock while it waits; the others go on with their items. When that wait
  outlasts the hold window (`workers.durable.Parked`), no lane takes a new item, the items under
  way end, and the run parks at the waiting lane's step: its session, item and values become the
  run's continuation; the other lanes' contexts are closed. A lane that would have to wait for a
  person after that fails its item (nothing was done at that step; the item can be retried).
- `stop_on_failure`: the first failed item stops the lanes from taking new ones; the items under
  way end; then the run fails. What ends the lanes is taken most serious first: an error of the
  platform's own (the lane's item failed in doubt), a stopping failure, then a park. A superseded
  run (workers.journal) or a cancelled block (the run's time limit, a cancel) halts every lane at
  once; a lane still going `LANE_STOP_S` later is not waited for (its context is closed under
  it), so the run ends in bounded time. A lane given up on is mute from then on: its step and
  item records are dropped and it files no review (`Lanes.abandon`), so nothing of it lands
  after the run's result.
- A lane whose page or browser is gone takes no more items (the others go on with them).
- A lane whose context cannot be opened (no spare slot now: `Host.new_lane` answers None) is not
  waited for: the run goes on with the lanes it has. Waiting for the person lock does not count
  against a lane's step watchdog.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import Awaitable
from typing import Any

from workers.durable import Parked
from workers.errors import StepError
from workers.items import DONE, Item
from workers.run_state import RunClock, RunState

log = logging.getLogger(__name__)


class LaneHeld(StepError):
    """A lane had to wait for a person while the run was parking for another item's wait."""


class LaneParked(Exception):  # noqa: N818 -- a run state, not an error
    """A lane's wait for a person parks the run at `position` (the runner's continuation is built there)."""

    def __init__(self, parked: Parked, position: int) -> None:
        super().__init__(str(parked))
        self.parked, self.position = parked, position


class Lanes:
    """The items still to run, shared by the lanes, and the one-person-at-a-time lock."""

    def __init__(self, run: RunState, *, stop_on_failure: bool = False) -> None:
        self.run = run
        self.waiting: deque[Item] = deque(item for item in run.items if item.status not in DONE)
        self.stop_on_failure = stop_on_failure
        self.parking: LaneState | None = None  # the lane whose wait for a person parks the run
        self.stopped = False  # a failed item stops the block (stop_on_failure)
        self.halted = False  # the run was taken from this execution, or the block cancelled: no lane takes another item
        self.tasks: list[asyncio.Task] = []  # the lanes' tasks (halt)
        self.abandoned = False  # lanes still going were given up on (abandon): they record nothing more
        self._person = asyncio.Lock()

    def take(self) -> Item | None:
        """The next item to run, or None when none is left or the lanes are stopping."""
        if self.parking is not None or self.stopped or self.halted or not self.waiting:
            return None
        return self.waiting.popleft()

    def lane(self, env: Any) -> LaneState:
        """A lane of the run on `env` (its guard and executor are the runner's to set)."""
        run = self.run
        state = {f.name: getattr(run, f.name) for f in dataclasses.fields(RunState)}
        clock = RunClock()
        clock.timeout = run.clock.timeout  # one lane at a time pauses the run's limit (the person lock)
        state.update(env=env, clock=clock, guard=None, output=dict(run.output), loops=dict(run.loops),
                     page_steps=[], captchas_solved=set(run.captchas_solved), acting=None, last_action=None,
                     last_done=None, current_step=None, item=None, item_output={}, within="",
                     site_memory=run.site_memory.fork())
        return LaneState(**state, parent=run, lanes=self)

    def halt(self) -> None:
        """Every lane stops now (the run was taken from this execution, workers.journal.Superseded,
        or the block was cancelled), and one that missed its cancellation takes no other item."""
        self.halted = True
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()

    def abandon(self) -> None:
        """The lanes still going are given up on (LANE_STOP_S after a halt): whatever they do from
        now on is not recorded, since the run's result is built without them."""
        self.halted = self.abandoned = True

    async def take_person(self, lane: LaneState) -> None:
        """Wait until no other lane waits for a person; LaneHeld once the run is parking. The
        lane's step watchdog does not run meanwhile (the wait is another item's person's time)."""
        if lane.holds_person:
            return
        if self.parking is not None:
            raise self._held(lane)
        if self._person.locked():
            timer = lane.clock.step_timeout
            when = timer.when() if timer is not None else None
            loop = asyncio.get_running_loop()
            left = when - loop.time() if when is not None else None
            if left is not None:
                timer.reschedule(None)
            try:
                await self._person.acquire()
            finally:
                if left is not None and not timer.expired():
                    timer.reschedule(loop.time() + max(left, 0))
        else:
            await self._person.acquire()
        if self.parking is not None:
            self._person.release()
            raise self._held(lane)
        lane.holds_person = True

    def give_person(self, lane: LaneState) -> None:
        if lane.holds_person:
            lane.holds_person = False
            self._person.release()

    def _held(self, lane: LaneState) -> LaneHeld:
        lane.held = True
        other = self.parking.item.label() if self.parking is not None and self.parking.item else "another item"
        return LaneHeld(f"this step needs a person, but the run is parking to wait for a person on {other}; "
                        "nothing was done at this step (the item's own record says whether it runs again after "
                        "the wait or must be checked and retried)")


@dataclasses.dataclass(eq=False)
class LaneState(RunState):
    """One lane's moving parts (see the module's contract)."""

    parent: RunState | None = None
    lanes: Lanes | None = None
    executor: Any = None  # this lane's explicit-step executor, on its environment
    holds_person: bool = False
    held: bool = False  # its step needed a person while the run was parking (LaneHeld)
    parked_at: int = -1  # the position of the step whose wait parked the run

    def sync(self) -> None:
        """Take up the run's record counter (other lanes' records move it): what this lane says of
        the next index (a review's step, the action journal) is current."""
        assert self.parent is not None  # noqa: S101 -- a lane always has its run
        self.next_index = self.parent.next_index

    def lost(self) -> bool:
        """Whether this lane's browser is gone (its page or context closed, its Chromium crashed):
        it takes no more items; the other lanes go on with them."""
        page = getattr(self.env, "page", None)
        browser_lost = getattr(self.host, "browser_lost", None)
        return bool((page is not None and page.is_closed())
                    or (browser_lost is not None and browser_lost(getattr(self.env, "context", None))))

    def emit(self, record):
        assert self.parent is not None and self.lanes is not None  # noqa: S101 -- a lane always has its run
        if self.lanes.abandoned:
            log.warning("a lane given up on went on: its record of %r is dropped", record.name)
            return record
        self.next_index = self.parent.next_index
        try:
            return super().emit(record)
        finally:
            self.parent.next_index = self.next_index

    def item_event(self, item: Item, status: str, **kwargs: Any) -> None:
        if self.lanes is not None and self.lanes.abandoned:
            log.warning("a lane given up on went on: item %s's status %r is not recorded", item.number, status)
            return
        super().item_event(item, status, **kwargs)

    async def wait_for_person(self, ask: Awaitable[Any], *budgets) -> Any:
        assert self.lanes is not None  # noqa: S101 -- a lane always has its lanes
        try:
            await self.lanes.take_person(self)
        except LaneHeld:
            if asyncio.iscoroutine(ask):
                ask.close()
            raise
        try:
            return await super().wait_for_person(ask, *budgets)
        except Parked:
            self.lanes.parking = self
            raise
        finally:
            self.lanes.give_person(self)


class LaneReviews:
    """The run's recorder as a lane's safety guard sees it: filing a review first takes the person
    lock (the wait that follows releases it)."""

    def __init__(self, lane: LaneState) -> None:
        self.lane = lane

    async def open_review(self, question) -> str:
        assert self.lane.lanes is not None  # noqa: S101 -- a lane always has its lanes
        if self.lane.lanes.abandoned:
            raise asyncio.CancelledError("this lane was given up on; it files no review")
        await self.lane.lanes.take_person(self.lane)
        try:
            return await self.lane.recorder.open_review(question)
        except BaseException:
            self.lane.lanes.give_person(self.lane)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lane.recorder, name)
