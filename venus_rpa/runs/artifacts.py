"""A run's artifacts: files it produced (the spreadsheet a desktop run saved), stored with the run
and served to members of its workspace (`venus_rpa.media`), listed by the run page and the API.

`run_artifact_add` is the write, `artifact_list` the read; the worker calls the write from the
runtime's artifact hook (`workers.envs.desktop_host`), so `workers/` never touches the ORM.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.files.base import ContentFile
from django.db.models import QuerySet

from venus_rpa.core.errors import InvalidInput
from venus_rpa.runs.models import Artifact, Run
from workers.files import sniff

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def max_artifact_bytes() -> int:
    return max(settings.VENUS_DOWNLOAD_MAX_BYTES, settings.VENUS_INPUT_FILE_MAX_BYTES)


def run_artifact_add(*, run_id: int, name: str, content: bytes, kind: str = Artifact.Kind.FILE,
                     data: dict | None = None) -> Artifact:
    """Store a file the run produced (or was given: kind `input`) under its name; the stored file
    name is made safe. `data`: facts shown with it (type, size, flag, where it came from); the
    size, and the type read from the bytes, are filled in where the caller gave none (a desktop
    run's saved file)."""
    limit = max_artifact_bytes()
    if len(content) > limit:
        raise InvalidInput(f"artifact {name!r} is {len(content)} bytes; the limit is {limit}")
    run = Run.objects.get(pk=run_id)
    data = {"size": len(content), **(data or {})}
    data.setdefault("type", sniff(content))
    artifact = Artifact(run=run, kind=kind, name=name[:200], data=data)
    safe = _UNSAFE.sub("_", name).strip("._") or "artifact"
    artifact.file.save(f"run{run_id}-{safe[-120:]}", ContentFile(content), save=False)
    artifact.save()
    return artifact


def artifact_list(*, run: Run) -> QuerySet[Artifact]:
    return run.artifacts.order_by("created_at", "pk")
