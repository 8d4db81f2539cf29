"""Export a workspace's finished runs as a trajectory dataset into a folder (docs/datasets.md).

    manage.py export_trajectories OUT --workspace demo [--automation SLUG] [--verdict passed|failed]
        [--surface web|android|desktop] [--from YYYY-MM-DD] [--to YYYY-MM-DD]

Run it again on the same folder with the same filter to resume an interrupted export; a folder
holding another export is refused. This is an operator's tool (shell access to the server);
through the API only workspace owners export. Exit status: 0 done, 2 bad input or folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from pydantic import ValidationError

from venus_rpa.accounts.models import Workspace
from venus_rpa.core.errors import ServiceError
from venus_rpa.datasets import services
from venus_rpa.datasets.spec import ExportFilter


class Command(BaseCommand):
    help = "Export finished runs as a UI-Venus trajectory dataset (JSONL + images + card); resumes."

    def add_arguments(self, parser):
        parser.add_argument("out", help="folder to write (empty, or an interrupted export to resume)")
        parser.add_argument("--workspace", required=True, help="workspace slug")
        parser.add_argument("--automation", help="automation slug")
        parser.add_argument("--verdict", choices=["passed", "failed"])
        parser.add_argument("--surface", choices=["web", "android", "desktop"])
        parser.add_argument("--from", dest="date_from", metavar="YYYY-MM-DD")
        parser.add_argument("--to", dest="date_to", metavar="YYYY-MM-DD")

    def handle(self, *args, out: str, workspace: str, **opts):
        found = Workspace.objects.filter(slug=workspace).first()
        if found is None:
            raise CommandError(f"no workspace {workspace!r}", returncode=2)
        try:
            spec = ExportFilter(**{k: opts.get(k) for k in ("automation", "verdict", "surface", "date_from", "date_to")})
        except ValidationError as exc:
            raise CommandError(f"bad filter: {exc.errors()[0]['msg']}", returncode=2) from None
        try:
            card = services.export_to_folder(workspace=found, spec=spec, out=Path(out),
                                             on_run=lambda run_id: self.stderr.write(f"run {run_id} written"))
        except ServiceError as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(json.dumps({k: card[k] for k in ("runs", "records", "images", "surfaces", "verdicts")}))
