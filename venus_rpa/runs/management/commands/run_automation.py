"""Start an automation through the broker and a worker; optionally follow it to the end.

    manage.py run_automation demo-expense --param title="Team lunch" --param amount=18.20 --wait
    manage.py run_automation expense-sheet --items expenses.xlsx --wait   # a for_each automation's items
    manage.py run_automation send-receipt --file receipt=receipt.pdf      # an upload step's input file

Exit status with --wait: 0 succeeded, 1 ended otherwise, 2 bad input, 3 still running at --timeout.
"""

from __future__ import annotations

import json
import os
import time

from django.core.management.base import BaseCommand, CommandError

from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import ServiceError
from venus_rpa.runs import run_files, selectors, services
from venus_rpa.runs.run_files import GivenFile
from venus_rpa.runs.items import ItemsInput, limits
from venus_rpa.runs.models import Run, RunStatus, Trigger


def parse_params(pairs: list[str], schema: dict) -> dict:
    """k=v pairs; values are coerced to the schema's type (number, integer, boolean, JSON)."""
    props = (schema or {}).get("properties") or {}
    params: dict = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"--param needs key=value, got {pair!r}")
        kind = (props.get(key) or {}).get("type")
        try:
            if kind in ("number", "integer", "boolean", "array", "object"):
                params[key] = json.loads(raw)
            else:
                params[key] = raw
        except json.JSONDecodeError as exc:
            raise CommandError(f"--param {key}: {raw!r} is not a valid {kind}") from exc
    return params


def _items_file(path: str) -> ItemsInput:
    try:
        with open(path, "rb") as handle:
            return ItemsInput(file=handle.read(limits().file_bytes + 1), field="items")
    except OSError as exc:
        raise CommandError(f"--items: cannot read {path}: {exc.strerror}", returncode=2) from exc


def _input_files(pairs: list[str]) -> dict[str, GivenFile]:
    """NAME=PATH pairs: the input files upload steps take (runs.run_files checks them)."""
    files: dict[str, GivenFile] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise CommandError(f"--file needs NAME=PATH, got {pair!r}", returncode=2)
        try:
            with open(path, "rb") as handle:
                files[name] = GivenFile(os.path.basename(path), handle.read(run_files.max_bytes() + 1))
        except OSError as exc:
            raise CommandError(f"--file {name}: cannot read {path}: {exc.strerror}", returncode=2) from exc
    return files


class Command(BaseCommand):
    help = "Start a run of an automation (via Celery); with --wait, print its steps and verdict."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
        parser.add_argument("--workspace", help="workspace slug (needed when several have the automation)")
        parser.add_argument("--wait", action="store_true", help="follow the run and exit 0 only if it succeeded")
        parser.add_argument("--timeout", type=float, default=900, help="seconds to wait with --wait")
        parser.add_argument("--items", metavar="FILE", help="a CSV or XLSX sheet of items (automations with for_each)")
        parser.add_argument("--file", action="append", default=[], metavar="NAME=PATH",
                            help="an input file an upload step takes (from_input NAME)")

    def handle(self, *args, slug: str, param: list[str], workspace: str | None, wait: bool, timeout: float,
               items: str | None = None, file: list[str] | None = None, **opts):
        automations = Automation.objects.filter(slug=slug).select_related("current_version", "workspace")
        if workspace:
            automations = automations.filter(workspace__slug=workspace)
        found = list(automations)
        if not found:
            raise CommandError(f"no automation {slug!r}" + (f" in workspace {workspace!r}" if workspace else ""))
        if len(found) > 1:
            raise CommandError(f"{slug!r} exists in several workspaces; pass --workspace")
        automation = found[0]
        try:
            run = services.run_start(
                automation=automation, params=parse_params(param, automation.current_version.param_schema),
                trigger=Trigger.CLI, items=_items_file(items) if items else None, files=_input_files(file or []),
            )
        except ServiceError as exc:
            details = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.fields.items())
            raise CommandError(f"{exc.message} {details}".strip(), returncode=2) from exc
        self.stdout.write(f"run {run.pk} queued ({automation.slug} v{run.version.number})")
        if not wait:
            return
        code = self._follow(run, timeout)
        if code:
            raise SystemExit(code)

    def _follow(self, run: Run, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        last_index, last_status = -1, run.status
        while time.monotonic() < deadline:
            run.refresh_from_db()
            for step in selectors.step_list(run=run, after_index=last_index):
                mark = "ok  " if step.status == "succeeded" else "FAIL"
                label = step.name or f"{step.kind}"
                timing = f"{step.act_ms + step.observe_ms:.0f} ms"
                line = f"  step {step.index:>2} {mark} {label:<34} {timing:>8}  {step.grounding.get('strategy', '')}"
                self.stdout.write(line.rstrip())
                if step.error:
                    self.stdout.write(f"           {step.error}")
                last_index = step.index
            if run.status != last_status:
                last_status = run.status
                if run.status == RunStatus.RUNNING:
                    self.stdout.write(f"run {run.pk} running on {run.worker}")
            if run.is_terminal:
                self.stdout.write(f"run {run.pk} {run.status}: {run.status_reason}")
                if run.output:
                    self.stdout.write(f"output: {json.dumps(run.output)}")
                return 0 if run.status == RunStatus.SUCCEEDED else 1
            time.sleep(0.2)
        self.stderr.write(f"run {run.pk} still {run.status} after {timeout:g}s")
        return 3
