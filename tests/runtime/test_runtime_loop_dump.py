"""The runtime loop's dump (SIGUSR2 on a worker): where each run waits, and a loop that is blocked."""

from __future__ import annotations

import asyncio
import time

from workers.loop import RuntimeLoop


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
