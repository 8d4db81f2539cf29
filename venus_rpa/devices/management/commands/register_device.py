"""`manage.py register_device SERIAL [--adb-server HOST:PORT] [--apps JSON] [--tags JSON] [--workspace SLUG]`:
register an Android device (shared by every workspace unless --workspace is given)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from venus_rpa.accounts.models import Workspace
from venus_rpa.core.errors import ServiceError
from venus_rpa.devices.services import device_register


class Command(BaseCommand):
    help = "Register an Android device in the registry (operators, make up)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("serial")
        parser.add_argument("--adb-server", default="127.0.0.1:5037")
        parser.add_argument("--apps", default="{}", help='JSON: {"Display name": "package[/.Activity]"}')
        parser.add_argument("--tags", default="{}", help="JSON object of tags")
        parser.add_argument("--workspace", default="", help="slug of the owning workspace (default: shared)")

    def handle(self, *args, serial: str, adb_server: str, apps: str, tags: str, workspace: str, **options) -> None:
        host, _, port = adb_server.rpartition(":")
        try:
            owner = Workspace.objects.get(slug=workspace) if workspace else None
            device = device_register(workspace=owner, serial=serial, adb_host=host, adb_port=int(port),
                                     apps=json.loads(apps), tags=json.loads(tags))
        except (ServiceError, ValueError, Workspace.DoesNotExist) as exc:
            fields = sum(getattr(exc, "fields", {}).values(), [])
            raise CommandError(" ".join(fields) or str(exc)) from None
        self.stdout.write(f"Android device {device.serial} registered on the adb server {host}:{port}")
