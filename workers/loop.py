"""One asyncio loop per worker process, in its own thread, that owns the browser.

Celery runs tasks in threads; each task submits its coroutine here and waits. This gives one
Chromium per worker process shared by concurrent runs, each in its own context.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


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


runtime_loop = RuntimeLoop()
