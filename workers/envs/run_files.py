"""A web run's files: every download its browser context starts, and the files given at launch.

Contract:
- `attach(context)` watches every page of the context, present and future (a download from a
  popup counts too). Each download is captured once, whoever asks for it (the page's event, a
  `download` step): its suggested name made safe (`workers.files.safe_name`), its size checked
  against `max_bytes` before its bytes are read (over it: refused, nothing read or kept), its
  type read from its bytes (`workers.files.file_check`: a program is refused, a name that claims
  another type is kept with a flag). A kept file goes to the store (`FileStore.keep`, the run's
  artifacts) and the browser's copy is deleted either way. A file that holds a whole vault value
  of the run (`holds_secret`: in its text, or in the text members of an xlsx/docx/zip) is refused,
  as an `extract` of such text is: a secret never leaves the vault by way of a kept file.
- Each capture ends in facts for the trace: name, size, type, status (`kept` / `refused` /
  `failed`), reason or flag, the store's ref, the address it came from (no query string: it may
  carry a token). `settle()` waits for the captures under way and hands over the facts not yet
  reported (the step that started them shows them).
- `files` holds what `download` steps stored by name (memory of this execution only);
  `input(name)` loads a file given with the run at launch from the store.

`workers/` stays free of Django: the store is a small protocol the platform implements
(`venus_rpa.runs.run_files`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from workers.errors import StepError
from workers.files import DEFAULT_MAX_BYTES, RunFile, file_check, file_holds, safe_name
from workers.loop import bounded

log = logging.getLogger(__name__)


@dataclass
class Capture:
    """One download's capture: the facts for the trace and, until they are reported, the kept
    file (then dropped, so a run of many downloads does not hold them all in memory; a
    `download` step takes its file before that)."""

    facts: dict[str, Any]
    file: RunFile | None = None


class FileStore(Protocol):
    """Where a run's files live (the platform's run artifacts)."""

    async def keep(self, file: RunFile, facts: dict[str, Any]) -> str:
        """Store a kept download with its facts; returns its ref (the artifact's id)."""

    async def input(self, name: str) -> RunFile | None:
        """The file given with the run at launch as `name`, or None."""


class RunFiles:
    """See the module docstring."""

    def __init__(self, *, store: FileStore | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 holds_secret: Callable[[str], bool] | None = None) -> None:
        self.store, self.max_bytes, self.holds_secret = store, max_bytes, holds_secret
        self.files: dict[str, RunFile] = {}
        self._tasks: dict[Any, asyncio.Task] = {}
        self._unreported: list[Capture] = []
        self._started = asyncio.Event()

    # -- watching ------------------------------------------------------------------------
    def attach(self, context) -> None:
        for page in context.pages:
            self._watch(page)
        context.on("page", self._watch)

    def _watch(self, page) -> None:
        page.on("download", self.capture)

    def capture(self, download) -> asyncio.Task:
        """The capture of `download` (started on first sight, once)."""
        task = self._tasks.get(download)
        if task is None:
            task = self._tasks[download] = asyncio.get_running_loop().create_task(self._capture(download))
            self._started.set()
        return task

    async def next_download(self, since: int, timeout_s: float) -> asyncio.Task:
        """The first capture started after `since` captures (`count()` before the click)."""
        deadline = time.monotonic() + timeout_s
        while len(self._tasks) <= since:
            self._started.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            with contextlib.suppress(TimeoutError):
                await bounded(self._started.wait(), left)
        return list(self._tasks.values())[since]

    def count(self) -> int:
        return len(self._tasks)

    async def settle(self, timeout_s: float = 30.0) -> list[dict[str, Any]]:
        """Wait (at most `timeout_s`) for captures under way; the facts not reported yet."""
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout_s)
        return self._report()

    def _report(self) -> list[dict[str, Any]]:
        reported, self._unreported = self._unreported, []
        for capture in reported:
            capture.file = None
        return [capture.facts for capture in reported]

    def take_finished(self) -> list[dict[str, Any]]:
        """The facts of captures already finished and not reported yet, without waiting (an agent
        turn's record; one still under way shows in a later record)."""
        return self._report()

    def reported(self, facts: dict[str, Any]) -> None:
        """A step shows these facts itself: `settle` leaves them out."""
        self._unreported = [c for c in self._unreported if c.facts is not facts]

    # -- capturing -----------------------------------------------------------------------
    async def _capture(self, download) -> Capture:
        name = safe_name(download.suggested_filename)
        where = urlsplit(download.url)
        facts: dict[str, Any] = {"name": name, "from": f"{where.scheme}://{where.netloc}{where.path}"[:300]}
        file = None
        try:
            file = await self._read(download, facts)
        except PlaywrightError as exc:
            facts.update(status="failed", reason=f"the download failed: {_first_line(exc)}")
        except Exception as exc:  # the store failed: the trace says so, the run goes on
            log.warning("could not keep download %s", name, exc_info=True)
            facts.update(status="failed", reason=f"the file could not be stored: {type(exc).__name__}")
        finally:
            with contextlib.suppress(PlaywrightError):
                await download.delete()
        capture = Capture(facts, file)
        self._unreported.append(capture)
        return capture

    async def _read(self, download, facts: dict[str, Any]) -> RunFile | None:
        failure = await download.failure()
        if failure:
            facts.update(status="failed", reason=f"the download failed: {failure}")
            return None
        path = await download.path()
        size = await asyncio.to_thread(os.path.getsize, path)
        facts["size"] = size
        if size > self.max_bytes:
            facts.update(status="refused", reason=f"the file is {size:,} bytes; at most {self.max_bytes:,} are kept "
                                                  "(VENUS_DOWNLOAD_MAX_BYTES)")
            return None
        content = await asyncio.to_thread(_read_bytes, path)
        check = file_check(facts["name"], content, max_bytes=self.max_bytes)
        facts.update(check.facts())
        if check.refused:
            facts.update(status="refused", reason=facts.pop("refused"))
            return None
        if self.holds_secret is not None and await asyncio.to_thread(file_holds, content, check.type, self.holds_secret):
            facts.update(status="refused", reason="the file holds a secret from the vault; it is not kept")
            return None
        file = RunFile(facts["name"], content, check.type)
        ref = await self.store.keep(file, facts) if self.store is not None else ""
        facts.update(status="kept", **({"ref": ref} if ref else {}))
        return RunFile(file.name, content, check.type, ref)

    # -- a run's files -------------------------------------------------------------------
    def stored(self, name: str) -> RunFile:
        """The file a download step stored as `name`; StepError if none did in this execution."""
        file = self.files.get(name)
        if file is None:
            raise StepError(f"no file is stored as {name!r}: the download step that stores it has not run in this "
                            "execution (a run that waited for a person downloads it again after the wait)")
        return file

    async def input(self, name: str) -> RunFile:
        """The run's input file `name` (given at launch); StepError if it was not given."""
        file = await self.store.input(name) if self.store is not None else None
        if file is None:
            raise StepError(f"the run has no input file {name!r}: give it at launch (the launcher's file field, "
                            f"or files.{name} in the API)")
        return file


def _read_bytes(path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]
