"""A run taken over while its lanes work (workers.journal.Superseded) ends in bounded time: the
lanes take no other item, a lane that misses its cancellation is not waited for past
`LANE_STOP_S`, and the waits a click makes keep a cancellation that arrives as the navigation
commits (Python 3.11's `asyncio.wait_for` loses it), and closing a context the browser does not
answer for ends. A lane given up on records nothing more and files no review. No browser: the
lanes are plain tasks."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from workers import lane_runner
from workers.envs.page_input import navigation_watch
from workers.items import Item
from workers.lane_runner import LaneRunner
from workers.lanes import Lanes


class Run:
    """What `Lanes` reads of a run: its items."""

    def __init__(self, count: int) -> None:
        self.items = [Item(n, {"n": n}, of=count) for n in range(1, count + 1)]


def test_no_lane_takes_an_item_once_the_run_was_taken_over():
    async def main():
        lanes = Lanes(Run(4))
        first = lanes.take()
        lanes.tasks = [asyncio.current_task()]
        lanes.halt()  # from the lane whose click was refused
        return first, lanes.take(), len(lanes.waiting)

    first, after, left = asyncio.run(main())
    assert first.number == 1 and after is None and left == 3


def test_a_lane_that_misses_its_cancellation_is_not_waited_for(monkeypatch, caplog):
    monkeypatch.setattr(lane_runner, "LANE_STOP_S", 0.5)

    async def main():
        lanes = Lanes(Run(4))

        async def refused():
            await asyncio.sleep(0.05)
            lanes.halt()
            raise asyncio.CancelledError("run 7 was retried as attempt 2")

        closed = asyncio.Event()  # what closing its context does to a lane stuck in the browser

        async def deaf():  # a lane whose wait lost the cancellation (or a call that never answers)
            while not closed.is_set():
                try:
                    await closed.wait()
                except asyncio.CancelledError:
                    continue
            raise RuntimeError("Target page, context or browser has been closed")

        lanes.tasks = [asyncio.create_task(refused()), asyncio.create_task(deaf())]
        started = time.monotonic()
        results = await LaneRunner._ended(lanes)
        took = time.monotonic() - started
        closed.set()
        await asyncio.sleep(0.05)  # the lane given up on ends; its error is retrieved (_quiet)
        return results, took, lanes.tasks[1]

    with caplog.at_level(logging.WARNING, logger="workers.lane_runner"):
        results, took, deaf_task = asyncio.run(main())
    assert all(isinstance(result, asyncio.CancelledError) for result in results)
    assert 0.5 <= took < 3 and deaf_task.done()
    assert "1 lane(s) still going 0.5s after the lanes were halted" in caplog.text


def test_lanes_that_stop_are_waited_for_with_their_outcomes():
    async def main():
        lanes = Lanes(Run(2))

        async def failing():
            await asyncio.sleep(0.05)
            raise RuntimeError("the platform's own error")

        async def fine():
            await asyncio.sleep(0.1)

        lanes.tasks = [asyncio.create_task(failing()), asyncio.create_task(fine())]
        return await LaneRunner._ended(lanes)

    error, ended = asyncio.run(main())
    assert isinstance(error, RuntimeError) and ended is None


def test_a_cancelled_block_halts_its_lanes_and_takes_no_other_item():
    """The run's time limit or a cancel reaches the block: its lanes are cancelled and halted (one
    that missed the cancellation takes no other item), and a lane that ended on an error has it
    retrieved."""
    async def main():
        lanes = Lanes(Run(4))

        async def failed_before():
            raise RuntimeError("an item's error")

        lanes.tasks = [asyncio.create_task(asyncio.sleep(3600)), asyncio.create_task(failed_before())]
        block = asyncio.create_task(LaneRunner._ended(lanes))
        await asyncio.sleep(0.05)
        block.cancel()
        with pytest.raises(asyncio.CancelledError):
            await block
        return lanes.tasks[0].cancelled(), lanes.halted, lanes.take(), lanes.tasks[1]._log_traceback

    cancelled, halted, taken, unretrieved = asyncio.run(main())
    assert cancelled and halted and taken is None and not unretrieved


class CommittingPage:
    """What `navigation_watch` reads of a page: the click started a navigation (beforeunload
    counted), and `commit()` fires the main frame's `framenavigated`."""

    main_frame = object()

    def __init__(self) -> None:
        self.listener = None

    def on(self, event: str, listener) -> None:
        self.listener = listener

    def remove_listener(self, event: str, listener) -> None:
        self.listener = None

    async def evaluate(self, script: str) -> bool:
        return True

    def commit(self) -> None:
        self.listener(self.main_frame)


def test_a_cancellation_arriving_as_the_navigation_commits_is_kept():
    """A lane cancelled (the run taken over) in the same turn of the loop as its click's
    navigation commits stops, instead of settling the page and going on to the next step."""
    settled = []

    async def main():
        page = CommittingPage()

        async def settle():
            settled.append(True)

        async def click():
            async with navigation_watch(page, settle):
                pass

        task = asyncio.create_task(click())
        for _ in range(3):  # the click's probe has answered: it waits for the commit
            await asyncio.sleep(0)
        page.commit()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert settled == []



class StuckContext:
    """A browser context whose browser stopped answering: closing it never returns."""

    pages: list = []

    def on(self, event: str, listener) -> None:
        pass

    async def close(self) -> None:
        await asyncio.sleep(3600)


def test_closing_a_context_the_browser_does_not_answer_for_is_bounded(monkeypatch, caplog):
    """What closes a lane given up on (and any run's context) ends even when the browser does not."""
    from workers.envs import browser
    from workers.secrets import SecretBox

    monkeypatch.setattr(browser, "CONTEXT_CLOSE_TIMEOUT_S", 0.3)
    env = browser.BrowserEnvironment(StuckContext(), None, allowed_domains=["127.0.0.1"], secrets=SecretBox())

    async def main():
        started = time.monotonic()
        await env.close()
        return time.monotonic() - started

    with caplog.at_level(logging.WARNING, logger="workers.envs.browser"):
        took = asyncio.run(main())
    assert 0.3 <= took < 2
    assert "did not close within 0.3s" in caplog.text


def test_a_lane_given_up_on_records_nothing_more_and_files_no_review(monkeypatch):
    from workers.lanes import LaneReviews, LaneState
    from workers.run_state import StepRecord

    monkeypatch.setattr(lane_runner, "LANE_STOP_S", 0.2)
    put: list = []

    class Recorder:
        async def open_review(self, question):
            put.append(("review", question))
            return "review-1"

    async def main():
        lanes = Lanes(Run(2))
        parent = type("Parent", (), {"next_index": 5})()
        lane = LaneState.__new__(LaneState)  # only what emit, item_event and the guard's reviews read
        lane.parent, lane.lanes, lane.next_index, lane.recorder = parent, lanes, 5, Recorder()
        lane.pipe = type("Pipe", (), {"put": staticmethod(put.append)})()
        lane.item, lane.within, lane.item_output = None, "", {}
        lane.secrets = type("Box", (), {"scrub": staticmethod(lambda t: t)})()
        item = lanes.take()
        lane.item_event(item, "running")  # recorded while the lanes run
        release = asyncio.Event()

        async def deaf():
            while not release.is_set():
                try:
                    await release.wait()
                except asyncio.CancelledError:
                    continue
            lane.emit(StepRecord(index=0, kind="click", name="late click", action={}, status="succeeded"))
            lane.item_event(item, "succeeded")
            await LaneReviews(lane).open_review("pay 10 EUR?")

        lanes.tasks = [asyncio.create_task(deaf())]
        await asyncio.sleep(0.01)  # the lane is under way
        lanes.halt()
        await LaneRunner._ended(lanes)
        release.set()
        await asyncio.sleep(0.05)
        return lanes, lanes.tasks[0], parent

    lanes, task, parent = asyncio.run(main())
    assert lanes.abandoned and task.cancelled()  # its review was refused: the lane stopped there
    assert len(put) == 1 and put[0].status == "running"  # the item's first status only
    assert parent.next_index == 5  # no index taken by a dropped record
