"""`manage.py register_display :99 [--size 1280x800]`: add an X display of this machine to the
display pool (the desktop surface leases it per run). Idempotent; `make up` runs it."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from venus_rpa.pools.displays import display_register
from venus_rpa.pools.services import LeaseError


class Command(BaseCommand):
    help = "Register an X display (Xvfb) of this machine in the desktop display pool."

    def add_arguments(self, parser) -> None:
        parser.add_argument("display", help="The display, e.g. :99")
        parser.add_argument("--size", default="1280x800", help="WIDTHxHEIGHT of its screen")

    def handle(self, *args, display: str, size: str, **options) -> None:
        try:
            width, height = (int(v) for v in size.lower().split("x"))
            resource = display_register(display=display, width=width, height=height)
        except (LeaseError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"display {resource.key} registered for host {resource.tags['host']}")
