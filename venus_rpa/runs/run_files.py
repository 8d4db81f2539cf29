"""A run's files: the input files given at launch (for `upload` steps with `from_input`) and the
store the worker hands downloads to (`workers.envs.run_files.FileStore`).

Input files are checked before the run exists (`input_files_prepare`: every file the automation
uploads is given, no other; each within `VENUS_INPUT_FILE_MAX_BYTES`, its type read from its
bytes, programs refused, its name made safe) and stored with the run in the same transaction
(`run_input_files_create`), as `Artifact`s of kind `input`. A retry takes the files of the run it
retries. The worker reads them through `RunFileStore.input` and keeps downloads through
`RunFileStore.keep` (kind `file`, with the facts of the capture in `data`), in a thread of its
own, so `workers/` never touches the ORM.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection

from venus_rpa.core.errors import InvalidInput
from venus_rpa.runs.artifacts import run_artifact_add
from venus_rpa.runs.models import Artifact, Run
from workers import flow
from workers.files import RunFile, file_check, safe_name
from workers.steps import AutomationSpec


@dataclass(frozen=True)
class GivenFile:
    """A file as given at launch, before it is checked."""

    name: str
    content: bytes

    @classmethod
    def from_json(cls, key: str, value: Any) -> "GivenFile":
        """`{"name": "receipt.pdf", "content": "<base64>"}` (the API's JSON form)."""
        field = f"files.{key}"
        if not isinstance(value, dict) or not isinstance(value.get("content"), str):
            raise InvalidInput("An input file is an object with name and content (base64).",
                               fields={field: ['Give {"name": "…", "content": "<base64>"}.']})
        try:
            content = base64.b64decode(value["content"], validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("An input file is not valid base64.", fields={field: ["Not valid base64."]}) from None
        return cls(str(value.get("name") or key), content)


def max_bytes() -> int:
    return settings.VENUS_INPUT_FILE_MAX_BYTES


def input_files_prepare(*, spec: AutomationSpec, given: dict[str, GivenFile] | None,
                        retry_of: Run | None = None) -> list[tuple[str, RunFile]]:
    """The run's input files, checked (InvalidInput on `files.NAME`, nothing stored); a retry
    without files of its own takes those of the run it retries."""
    wanted = flow.input_files(spec.steps)
    given = dict(given or {})
    if not given and retry_of is not None:
        given = {a.data.get("param", ""): GivenFile(a.name, _read(a)) for a in input_artifacts(run=retry_of)}
    fields: dict[str, list[str]] = {}
    for name in sorted(set(given) - set(wanted)):
        fields[f"files.{name}"] = [f"Not an input file of this automation (its files: {', '.join(wanted) or 'none'})."]
    prepared: list[tuple[str, RunFile]] = []
    for name in wanted:
        if name not in given:
            fields[f"files.{name}"] = ["This file is required: an upload step takes it from the run."]
            continue
        file = given[name]
        safe = safe_name(file.name, default=name)
        check = file_check(safe, file.content, max_bytes=max_bytes())
        if check.refused:
            fields[f"files.{name}"] = [f"Not accepted: {check.refused}."]
            continue
        prepared.append((name, RunFile(safe, file.content, check.type)))
    if fields:
        raise InvalidInput("The run's input files are not usable; nothing was started.", fields=fields)
    return prepared


def run_input_files_create(*, run: Run, prepared: list[tuple[str, RunFile]]) -> None:
    """Store the checked input files with the run (inside the caller's transaction)."""
    for param, file in prepared:
        run_artifact_add(run_id=run.pk, name=file.name, content=file.content, kind=Artifact.Kind.INPUT,
                         data={"param": param, "type": file.type, "size": file.size})


def input_artifacts(*, run: Run):
    return run.artifacts.filter(kind=Artifact.Kind.INPUT).order_by("pk")


def _read(artifact: Artifact) -> bytes:
    with artifact.file.open("rb") as handle:
        return handle.read()


_THREAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="run-files")  # shared by the process's runs


class RunFileStore:
    """The worker's `FileStore` for one run: keeps downloads as artifacts, reads input files."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id

    async def _db(self, fn, *args):
        def call():
            close_old_connections()
            try:
                return fn(*args)
            finally:
                connection.close()

        return await asyncio.get_running_loop().run_in_executor(_THREAD, call)

    async def keep(self, file: RunFile, facts: dict[str, Any]) -> str:
        data = {k: v for k, v in facts.items() if k in ("type", "flag", "from")} | {"size": file.size,
                                                                                   "source": "download"}
        artifact = await self._db(lambda: run_artifact_add(run_id=self.run_id, name=file.name, content=file.content,
                                                           data=data))
        return str(artifact.pk)

    async def input(self, name: str) -> RunFile | None:
        def load() -> RunFile | None:
            artifact = Artifact.objects.filter(run_id=self.run_id, kind=Artifact.Kind.INPUT, data__param=name).first()
            if artifact is None:
                return None
            return RunFile(artifact.name, _read(artifact), artifact.data.get("type", "binary"), str(artifact.pk))

        return await self._db(load)


def run_file_store(run_id: int | None) -> RunFileStore | None:
    """The browser pool's `files_for`: a run's store (None outside a run)."""
    return RunFileStore(run_id) if run_id is not None else None
