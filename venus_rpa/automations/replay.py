"""The worker's bridge to the replay cache: `workers.replay.ReplayStore` for one run.

Bound to the run's automation version: a run can only read and write the paths of its own
version (so never another automation's, nor another workspace's), and only the worker writes:
the runtime hands over the paths of a run it verified (`workers.runner`), and they are written in
the run's final transaction if its final verdict (trace-level judges included) verifies. Whether the cache is on is
read when the run starts and again, under a lock, when it saves. Every ORM call goes through one
thread of its own; a failure here never fails a run (without a cached path the model decides).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from django.db import connection

from venus_rpa.automations import selectors, services
from workers.replay import CachedTurn

log = logging.getLogger(__name__)


class RunReplayStore:
    """Implements `workers.replay.ReplayStore` for one run's automation version."""

    def __init__(self, *, version_id: int, enabled: bool, run_id: int) -> None:
        self.version_id, self.enabled, self.run_id = version_id, enabled, run_id
        self.pending: dict[str, list] = {}
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"run-{run_id}-replay")

    async def _db(self, fn):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn)

    async def load(self, key: str) -> list[CachedTurn] | None:
        if not self.enabled:
            return None
        turns = await self._db(lambda: selectors.replay_path_turns(version_id=self.version_id, step_key=key))
        try:
            return [CachedTurn.from_json(t) for t in turns] if turns else None
        except (KeyError, TypeError, ValueError, AttributeError):  # an entry in an older or damaged shape: no cache
            log.warning("run %s: the replay cache entry %s is unreadable; the model decides", self.run_id, key)
            return None

    async def save(self, paths: dict[str, list[CachedTurn]]) -> None:
        """Hold the paths of a run the runtime verified; `commit` writes them with the run's end."""
        if self.enabled:
            self.pending = {key: [t.to_json() for t in turns] for key, turns in paths.items()}

    def commit(self, *, status: str, verdict: dict) -> int:
        """Write the held paths in the run's final transaction (the recorder's `_finish`, in its
        database thread) when the final verdict verifies: succeeded, criteria passed, and no judge
        against or "needs a look" (trace-level judges vote before it). Returns the paths written."""
        pending, self.pending = self.pending, {}
        if not pending or not verified(status=status, verdict=verdict):
            return 0
        return services.replay_paths_save(version_id=self.version_id, run_id=self.run_id, paths=pending)

    async def close(self) -> None:
        await self._db(_close_connection)
        self.pool.shutdown(wait=False)


def _close_connection() -> None:
    connection.close()  # resolved in this pool's thread: the connection is per-thread


def verified(*, status: str, verdict: dict) -> bool:
    """Whether a finished run's path may be cached: it succeeded with its criteria passed, and the
    trace-level judges (when an automation has some) did not vote it down nor ask for a look."""
    judges = verdict.get("judges") or {}
    return (status == "succeeded" and bool(verdict.get("passed")) and not verdict.get("needs_a_look")
            and judges.get("outcome") in (None, "pass"))


def replay_store_for(*, run) -> RunReplayStore:
    """The replay cache of a claimed run's automation version (off when the automation's is)."""
    return RunReplayStore(version_id=run.version_id, enabled=bool(run.automation.replay_cache), run_id=run.pk)
