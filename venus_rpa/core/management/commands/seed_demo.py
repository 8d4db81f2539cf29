"""Create (or refresh) the demo workspace, user, API token, credential and automation."""

from __future__ import annotations

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from venus_rpa.accounts.models import ApiToken, Workspace
from venus_rpa.accounts.services import api_token_create, workspace_create
from venus_rpa.automations.models import Automation
from venus_rpa.automations.services import automation_create, automation_update, credential_set
from venus_rpa.core import demo


class Command(BaseCommand):
    help = "Seed the demo workspace, user, credential and the demo-expense automation (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--practice-url", default=settings.VENUS_PRACTICE_URL)

    def handle(self, *args, practice_url: str, **options):
        User = get_user_model()
        user = User.objects.filter(username=demo.DEMO_USER).first()
        if user is None:
            user = User.objects.create_superuser(demo.DEMO_USER, "demo@example.com", demo.DEMO_PASSWORD)
        workspace = Workspace.objects.filter(slug=demo.DEMO_WORKSPACE).first() or workspace_create(
            name="Demo workspace", slug=demo.DEMO_WORKSPACE, owner=user
        )
        credential_set(
            workspace=workspace, name=demo.PRACTICE_CREDENTIAL, domains=["127.0.0.1", "localhost"],
            fields={"username": os.environ.get("PRACTICE_USER", "demo"),
                    "password": os.environ.get("PRACTICE_PASSWORD", "demo-password")},
        )
        definition = demo.demo_expense_definition(practice_url)
        automation = Automation.objects.filter(workspace=workspace, slug=demo.DEMO_AUTOMATION).first()
        if automation is None:
            automation_create(workspace=workspace, user=user, slug=demo.DEMO_AUTOMATION,
                              name="Sign in and file an expense report", definition=definition,
                              description="Demo: signs in to the practice site and files an expense report.")
        else:
            automation_update(automation=automation, user=user, definition=definition, change_note="Re-seeded")
        _seed_desktop_demo(workspace, user)
        token_line = ""
        if not ApiToken.objects.filter(workspace=workspace, user=user, name="demo").exists():
            _, raw = api_token_create(workspace=workspace, user=user, name="demo")
            token_path = settings.LOCAL_DIR / "demo_api_token"
            token_path.write_text(raw)
            token_path.chmod(0o600)
            token_line = f"\n  API token:  {raw}  (also in {token_path})"
        self.stdout.write(
            f"Demo ready:\n  user:       {demo.DEMO_USER} / {demo.DEMO_PASSWORD}\n  workspace:  {workspace.slug}"
            f"\n  automation: {demo.DEMO_AUTOMATION}{token_line}"
        )


def _seed_desktop_demo(workspace, user) -> None:
    """The desktop surface's demo: fill and save the practice workbook (venus_rpa/core/demo_desktop.py)."""
    from venus_rpa.core.demo_desktop import DEMO_DESKTOP_AUTOMATION, demo_desktop_definition

    definition = demo_desktop_definition()
    automation = Automation.objects.filter(workspace=workspace, slug=DEMO_DESKTOP_AUTOMATION).first()
    if automation is None:
        automation_create(workspace=workspace, user=user, slug=DEMO_DESKTOP_AUTOMATION, definition=definition,
                          name="Add an expense row to the workbook (desktop)",
                          description="Demo: opens the practice workbook in Gnumeric, fills a row and saves it.")
    else:
        automation_update(automation=automation, user=user, definition=definition, change_note="Re-seeded")
