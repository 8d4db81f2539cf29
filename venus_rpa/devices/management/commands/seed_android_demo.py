"""`manage.py seed_android_demo`: the demo workspace's Android automations (run on the emulated
phone `make up` starts): sign in and save a profile name in any script; open an invoice and pay
it (the Pay button waits in the review queue)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.models import Automation
from venus_rpa.automations.services import automation_create, automation_update, credential_set
from venus_rpa.core import demo

CREDENTIAL = "android-practice-login"
APP = "com.venus.practice"


def _sign_in() -> list[dict]:
    cred = "{{credentials.%s.%%s}}" % CREDENTIAL
    return [
        {"kind": "fill", "name": "Type the username", "target": "Username", "value": cred % "username"},
        {"kind": "fill", "name": "Type the password", "target": {"label": "Password"}, "value": cred % "password"},
        {"kind": "click", "name": "Sign in", "target": {"role": "button", "name": "Sign in"}},
        {"kind": "wait_for", "name": "Wait for the home screen", "text": "Signed in as demo"},
    ]


DEFINITIONS = {
    "demo-android-profile": ("Android: save a profile name", {
        "surface": "android", "start_url": "app:Venus Pay", "credentials": [CREDENTIAL],
        "param_schema": {"type": "object", "properties": {"name": {"type": "string", "default": "王小明"}},
                         "required": ["name"]},
        "steps": [*_sign_in(),
                  {"kind": "click", "target": "Edit profile"},
                  {"kind": "fill", "target": {"label": "Full name"}, "value": "{{name}}"},
                  {"kind": "click", "target": {"role": "button", "name": "Save profile"}}],
        "success_criteria": {"text_visible": "Saved:"},
    }),
    "demo-android-pay": ("Android: pay an invoice (reviewed)", {
        "surface": "android", "start_url": "app:Venus Pay", "credentials": [CREDENTIAL],
        "steps": [*_sign_in(),
                  {"kind": "click", "target": "Invoices"},
                  {"kind": "click", "target": {"resource_id": "invoice_2"}},
                  {"kind": "click", "name": "Pay", "target": {"role": "button", "name": "Pay"}},
                  {"kind": "wait_for", "text": "Payment sent"}],
    }),
}


class Command(BaseCommand):
    help = "Seed the demo workspace's Android automations (after seed_demo)."

    def handle(self, *args, **options) -> None:
        workspace = Workspace.objects.filter(slug=demo.DEMO_WORKSPACE).first()
        if workspace is None:
            raise CommandError("Run seed_demo first: the demo workspace does not exist.")
        credential_set(workspace=workspace, name=CREDENTIAL, domains=[APP],
                       fields={"username": "demo", "password": "demo-password"})
        for slug, (name, definition) in DEFINITIONS.items():
            automation = Automation.objects.filter(workspace=workspace, slug=slug).first()
            if automation is None:
                automation_create(workspace=workspace, user=None, slug=slug, name=name, definition=definition)
            else:
                automation_update(automation=automation, user=None, definition=definition, change_note="Re-seeded")
        self.stdout.write("Android demo automations: " + ", ".join(DEFINITIONS))
