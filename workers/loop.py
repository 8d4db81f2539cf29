"""One asyncio loop per worker process, in its own thread, that owns the browser.

Celery runs tasks in threads; each task submits its coroutine here and waits. This gives one
Chromium per worker process shared by concurrent runs, each in its own context.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import linecache
import sys
import threading
import traceback
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def bounded(awaitable: Awaitable[T], seconds: float | None) -> T:
    """`asyncio.wait_for` that keeps a cancellation: Python 3.11's wait_for drops one that arrives
    in the turn `awaitable` finishes (a run cancelled, or a lane stopped by a takeover, would go
    on). TimeoutError past `seconds` (None: no limit), as wait_for."""
    async with asyncio.timeout(seconds):
        return await awaitable


def await_chain(task: asyncio.Task, limit: int = 60) -> list[str]:
    """Where `task` waits: each coroutine of its await chain, outermost first, as traceback lines
    (`Task.print_stack` shows only the outermost, which says "a run" and not "in which call")."""
    lines: list[str] = []
    awaiting: Any = task.get_coro()
    while awaiting is not None and len(lines) < limit:
        frame = getattr(awaiting, "cr_frame", None) or getattr(awaiting, "gi_frame", None)
        if frame is not None:
            code = frame.f_code
            source = linecache.getline(code.co_filename, frame.f_lineno).strip()
            lines.append(f'  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}\n'
                         + (f"    {source}\n" if source else ""))
        awaiting = getattr(awaiting, "cr_await", None) or getattr(awaiting, "gi_yieldfrom", None)
    return lines


def tasks_waiting(loop: asyncio.AbstractEventLoop) -> str:
    """Every task of `loop` by name, with where it waits (`await_chain`)."""
    return "".join(f"-- {task.get_name()}\n" + "".join(await_chain(task)) for task in asyncio.all_tasks(loop))


class RuntimeLoop:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="venus-runtime", daemon=True)
                thread.start()
                self._loop = loop
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run coro on the runtime loop and block this thread until it finishes."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def dump(self, wait_s: float = 2.0) -> str:
        """What the loop is doing now, for an operator looking at a stalled run: the loop thread's
        own stack (code blocking the loop shows there) and, when the loop answers within `wait_s`,
        where each of its tasks is waiting."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return "the runtime loop has not started"
        out = io.StringIO()
        for thread in threading.enumerate():
            if thread.name == "venus-runtime" and thread.ident in (frames := sys._current_frames()):
                out.write("runtime loop thread:\n" + "".join(traceback.format_stack(frames[thread.ident])))

        def tasks() -> str:
            return tasks_waiting(loop)

        answer: concurrent.futures.Future[str] = concurrent.futures.Future()
        loop.call_soon_threadsafe(lambda: answer.set_result(tasks()))
        try:
            out.write(answer.result(timeout=wait_s))
        except concurrent.futures.TimeoutError:
            out.write(f"the loop did not answer within {wait_s:g}s (it is blocked)\n")
        return out.getvalue()


runtime_loop = RuntimeLoop()
