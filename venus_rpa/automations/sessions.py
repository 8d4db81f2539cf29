"""The worker's bridge to saved sign-in sessions: `workers.sign_in.LoginSessions` for one run.

Bound to the run's workspace, its version's credentials and allowed domains, so a run can only
reach sessions of its own workspace and credentials, on domains both permit. Every ORM call goes
through one thread of its own (the runtime loop never blocks on the database). A failure here
never fails a run: without a session the run signs in as if there were none. Nothing here logs a
session's content.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone as dt_timezone
from typing import Any

from django.db import connection

from venus_rpa.automations import services
from workers.sign_in import SavedSession

log = logging.getLogger(__name__)


class RunLoginSessions:
    """Implements `workers.sign_in.LoginSessions` for one run."""

    def __init__(self, *, workspace, credentials: list[str], allowed_domains: list[str], run_id: int) -> None:
        self.workspace, self.credentials = workspace, set(credentials)
        self.allowed_domains, self.run_id = list(allowed_domains), run_id
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"run-{run_id}-sessions")

    async def _db(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def load(self, *, credential: str, domain: str) -> SavedSession | None:
        if credential not in self.credentials:
            return None

        def take() -> SavedSession | None:
            found = services.login_session_take(workspace=self.workspace, credential_name=credential, domain=domain,
                                                allowed_domains=self.allowed_domains)
            if found is None:
                return None
            session, state = found
            return SavedSession(state, session.saved_at.timestamp(), session.expires_at.timestamp())

        try:
            return await self._db(take)
        except Exception:  # the run signs in instead
            log.warning("run %s: could not load the saved session of %s for %s", self.run_id, credential, domain)
            return None

    async def save(self, *, credential: str, domain: str, state: dict[str, Any], expires_at: float) -> None:
        if credential not in self.credentials:
            return
        expires = datetime.fromtimestamp(expires_at, tz=dt_timezone.utc)
        try:
            await self._db(lambda: services.login_session_save(
                workspace=self.workspace, credential_name=credential, domain=domain, state=state, expires_at=expires,
                allowed_domains=self.allowed_domains, run_id=self.run_id))
        except Exception:
            log.warning("run %s: could not save the session of %s for %s", self.run_id, credential, domain)

    async def discard(self, *, credential: str, domain: str) -> None:
        try:
            await self._db(lambda: services.login_session_discard(workspace=self.workspace,
                                                                  credential_name=credential, domain=domain))
        except Exception:
            log.warning("run %s: could not discard the session of %s for %s", self.run_id, credential, domain)

    async def close(self) -> None:
        await self._db(_close_connection)
        self.pool.shutdown(wait=False)


def _close_connection() -> None:
    connection.close()  # resolved in this pool's thread: the connection is per-thread


def login_sessions_for(*, run) -> RunLoginSessions:
    """The sessions port for a claimed run (its workspace, credentials and allowed domains)."""
    return RunLoginSessions(workspace=run.workspace, credentials=list(run.version.credentials),
                            allowed_domains=list(run.version.allowed_domains), run_id=run.pk)
