"""The worker's bridge to the replay cache: `workers.replay.ReplayStore` for one run.

Bound to the run's automation version: a run can only read and write the paths of its own
version (so never another automation's, nor another workspace's), and only the worker writes,
after the run succeeded with its criteria passed (`workers.runner`). Whether the cache is on is
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
        if not self.enabled:
            return
        await self._db(lambda: services.replay_paths_save(
            version_id=self.version_id, run_id=self.run_id,
            paths={key: [t.to_json() for t in turns] for key, turns in paths.items()}))

    async def close(self) -> None:
        await self._db(_close_connection)
        self.pool.shutdown(wait=False)


def _close_connection() -> None:
    connection.close()  # resolved in this pool's thread: the connection is per-thread


def replay_store_for(*, run) -> RunReplayStore:
    """The replay cache of a claimed run's automation version (off when the automation's is)."""
    return RunReplayStore(version_id=run.version_id, enabled=bool(run.automation.replay_cache), run_id=run.pk)
