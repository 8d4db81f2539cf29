"""How a run works through its `for_each` block's items in lanes (the contract is
`workers.lanes`): it opens the extra environments, runs each lane's items on its own page with the
run's step machinery (`Runner.gate_and_replay`, `Runner.page_step`), and decides what ended the
block: a superseded run, an error of the platform's own, a stopping failure, or a wait for a
person that parks the run at the waiting lane's step."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from workers import flow as F, steps as S
from workers.durable import Parked
from workers.errors import EnvironmentLost, StepError
from workers.lanes import LaneParked, LaneReviews, Lanes, LaneState
from workers.run_state import RunFailed, RunState
from workers.step_run import intend

log = logging.getLogger(__name__)
LANE_STOP_S = 30.0  # how long halted lanes (a takeover, a cancelled block) are waited for


def _outcome(task: asyncio.Task) -> BaseException | None:
    """What a lane's task ended with, as gather(return_exceptions=True) gives it; one that has not
    ended (given up on) counts as cancelled."""
    if not task.done() or task.cancelled():
        return asyncio.CancelledError()
    return task.exception()


def _quiet(task: asyncio.Task) -> None:
    """Retrieve a lane's end whenever it comes (a lane given up on ends later): no "exception was
    never retrieved" for it."""
    if not task.cancelled():
        task.exception()


class LaneRunner:
    """The lanes of one run's block; `runner` is the `workers.runner.Runner` running the run."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner

    async def run(self, run: RunState, flow: F.Flow, steps: list, grounder) -> None:
        """Work through the items still to run in the block's lanes (workers.lanes): the run's own
        environment and up to `lanes - 1` more, each taking items in turn until none is left."""
        block = flow.each.block
        lanes = Lanes(run, stop_on_failure=block.stop_on_failure)
        envs = [run.env]
        try:
            new_lane = getattr(run.host, "new_lane", None)
            while new_lane is not None and len(envs) < min(flow.lanes, len(lanes.waiting)):
                try:
                    env = await new_lane(run.env, run_id=run.run_id)
                except (StepError, EnvironmentLost):
                    log.warning("a lane could not be opened; going on with %d", len(envs), exc_info=True)
                    env = None
                if env is None:
                    break
                envs.append(env)
            states = [self._lane_state(lanes, env, run.spec, grounder) for env in envs]
            lanes.tasks = [asyncio.create_task(self._lane(lane, steps)) for lane in states]
            results = await self._ended(lanes)
            self._after_lanes(run, states)
            superseded = next((lane.superseded for lane in states if lane.superseded), "")
            if superseded:
                run.superseded = superseded
                raise asyncio.CancelledError(superseded)
            # What ended the lanes, most serious first: an error of the platform's own (its item was
            # failed in doubt), the block stopped by a failed item, then a wait for a person.
            for result in results:
                if isinstance(result, BaseException) and not isinstance(result, (Parked, RunFailed)):
                    raise result
            for result in results:
                if isinstance(result, RunFailed):
                    raise result
            for lane, result in zip(states, results):
                if isinstance(result, Parked):
                    raise self._park_in(run, lane, result, flow.each.path)
            run.loops[flow.each.path] = len(run.items)
        finally:
            for env in envs:
                if env is not run.env:
                    await env.close()

    @staticmethod
    async def _ended(lanes: Lanes) -> list[BaseException | None]:
        """Wait for the lanes to end; what each ended with (its exception, or None). Once they are
        halted (the run taken over, workers.journal, or the block cancelled: the run's time limit,
        a cancel), lanes still going LANE_STOP_S later are not waited for: the caller closes their
        contexts under them. Every lane's end is retrieved, whenever it comes."""
        for task in lanes.tasks:
            task.add_done_callback(_quiet)
        pending, deadline = set(lanes.tasks), None
        loop = asyncio.get_running_loop()
        try:
            while pending:
                if lanes.halted and deadline is None:
                    deadline = loop.time() + LANE_STOP_S
                left = None if deadline is None else max(deadline - loop.time(), 0)
                done, pending = await asyncio.wait(pending, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                if not done and deadline is not None:
                    log.warning("%d lane(s) still going %gs after the lanes were halted; not waiting for them",
                                len(pending), LANE_STOP_S)
                    lanes.abandon()
                    break
        except asyncio.CancelledError:
            lanes.halt()
            _, still = await asyncio.wait(lanes.tasks, timeout=LANE_STOP_S)
            if still:
                lanes.abandon()
            raise
        return [_outcome(task) for task in lanes.tasks]

    @staticmethod
    def _after_lanes(run: RunState, states: list[LaneState]) -> None:
        """What a crash retry after the block must know (workers.journal): an action of any lane
        still in doubt refuses it; otherwise it goes on after a done one."""
        actions = [lane.last_action for lane in states if lane.last_action is not None]
        undone = [action for action in actions if action.status != "done"]
        run.last_action = undone[0] if undone else (actions[-1] if actions else run.last_action)
        run.last_done = next((lane.last_done for lane in states if lane.last_done is not None), run.last_done)

    def _lane_state(self, lanes: Lanes, env, spec: S.AutomationSpec, grounder) -> LaneState:
        lane = lanes.lane(env)
        if self.runner.safety is not None:
            lane.guard = self.runner.safety.for_run(spec=spec, secrets=lane.secrets, reviews=LaneReviews(lane),
                                             wait_for_person=lane.wait_for_person)
        lane.executor = lane.host.explicit_executor(env, start_url=spec.start_url, grounder=grounder,
                                                    guard=lane.guard)
        lane.executor.before_act = lambda step, risk: intend(lane, step, risk)
        return lane

    async def _lane(self, lane: LaneState, steps: list) -> None:
        """One lane: take an item, run the block's steps for it on this lane's page, repeat. A lane
        whose browser is gone stops (its item failed by the step); an error of the platform's own
        fails the item in doubt; a superseded run stops every lane at once."""
        flow = F.Flow(lane, lane.executor, steps)
        try:
            while (item := lane.lanes.take()) is not None:
                position, acted = flow.begin_item(item), lane.last_action
                while position != flow.each_at:
                    step, lane.within, lane.at = steps[position], flow.within[position], position
                    lane.sync()
                    try:
                        if isinstance(step, F.Op):
                            position = await flow.control(step, position)
                            continue
                        await self.runner.gate_and_replay(lane, lane.executor, lane.page_steps, lane.output)
                        await self.runner.page_step(lane, lane.executor, step)
                        position += 1
                    except RunFailed as exc:
                        lane.page_steps = []
                        if lane.held:  # it needed a person while the run was parking for another item
                            if lane.last_action is acted:  # nothing it did changed the world yet
                                flow.put_back("it needed a person while the run was parking for another item")
                            else:
                                flow.item_failed("it needed a person while the run was parking for another item, "
                                                 "after it had acted: it may be partly done; check it, then retry it")
                            return
                        try:
                            position = flow.item_failed(str(exc))
                        except RunFailed:
                            lane.lanes.stopped = True
                            raise
                        if lane.lost():
                            return
                    except Parked:
                        lane.parked_at = position
                        raise
        except asyncio.CancelledError:
            if lane.superseded:
                lane.lanes.halt()
            raise
        except (Parked, RunFailed):
            raise
        except Exception:
            if lane.item is not None:
                flow.item_failed_in_doubt("the run stopped on an error while this item was under way; it may be "
                                          "partly done: check it, then retry it")
            raise

    @staticmethod
    def _park_in(run: RunState, lane: LaneState, parked: Parked, path: str) -> LaneParked:
        """The run parks at `lane`'s waiting step: its environment, item and values become the run's."""
        run.env, run.item, run.item_output = lane.env, lane.item, lane.item_output
        run.page_steps, run.captchas_solved = lane.page_steps, lane.captchas_solved
        run.output.clear()
        run.output.update(lane.output)
        run.loops = dict(lane.loops)
        if lane.item is not None:  # a resumed run goes on with this item (Flow.resume_item)
            run.loops[path] = run.items.index(lane.item) + 1
        return LaneParked(parked, lane.parked_at)
