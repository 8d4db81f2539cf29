"""The runtime loop's dump (SIGUSR2 on a worker): where each run waits, and a loop that is blocked;
and `bounded`, the runtime's wait with a time limit that keeps a cancellation."""

from __future__ import annotations

import asyncio
import time

import pytest

from workers.loop import RuntimeLoop, bounded


async def waiting_for_the_reviewer(event: asyncio.Event) -> None:
    await the_decision(event)


async def the_decision(event: asyncio.Event) -> None:
    await event.wait()


def test_the_dump_shows_where_each_task_waits():
    loop = RuntimeLoop()
    event_box: list[asyncio.Event] = []

    async def start() -> None:
        event_box.append(asyncio.Event())
        asyncio.get_running_loop().create_task(waiting_for_the_reviewer(event_box[0]), name="run-7")

    loop.run(start())
    text = loop.dump()
    assert "run-7" in text and "waiting_for_the_reviewer" in text and "event.wait()" in text
    # the whole await chain, down to the call the run waits in (not only the task's own coroutine)
    assert text.index("waiting_for_the_reviewer") < text.index("in the_decision\n") < text.index("in wait\n")
    assert "runtime loop thread:" in text
    loop.loop.call_soon_threadsafe(event_box[0].set)


def test_a_blocked_loop_is_named_with_the_code_that_blocks_it():
    loop = RuntimeLoop()

    async def blocks_the_loop() -> None:
        time.sleep(3)  # synchronous: nothing else on the loop runs meanwhile

    future = asyncio.run_coroutine_threadsafe(blocks_the_loop(), loop.loop)
    time.sleep(0.3)
    text = loop.dump(wait_s=0.5)
    assert "did not answer within 0.5s (it is blocked)" in text
    assert "blocks_the_loop" in text and "time.sleep(3)" in text
    future.result(timeout=10)


def test_bounded_keeps_a_cancellation_that_arrives_as_the_wait_ends():
    """`workers.loop.bounded`, the runtime's wait_for: a run cancelled in the turn its wait ends
    stops (Python 3.11's asyncio.wait_for returns the result and the run goes on)."""
    went_on = []

    async def main():
        event = asyncio.Event()

        async def run():
            await bounded(event.wait(), 10)
            went_on.append(True)

        task = asyncio.create_task(run())
        for _ in range(3):
            await asyncio.sleep(0)
        event.set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(TimeoutError):
            await bounded(asyncio.sleep(5), 0.05)
        return await bounded(asyncio.sleep(0, result="done"), None)

    assert asyncio.run(main()) == "done" and went_on == []
