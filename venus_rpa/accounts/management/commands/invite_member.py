"""`manage.py invite_member --workspace SLUG USERNAME --role ROLE [--email E]`: create an account for
someone who has none, add it to the workspace, and print its sign-up link (no e-mail is sent).

For administrators without the dashboard; it does what an owner's "Invite" does (audited, with no
actor). The link is printed once, to stdout only: send it to the person yourself.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from venus_rpa.accounts.models import Role, Workspace
from venus_rpa.accounts.services import member_invite
from venus_rpa.core.errors import ServiceError


class Command(BaseCommand):
    help = "Invite someone without an account into a workspace and print their sign-up link."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--workspace", required=True, help="slug of the workspace")
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--email", default="", help="their e-mail address (optional; nothing is sent)")

    def handle(self, *args, username: str, workspace: str, role: str, email: str, **options) -> None:
        try:
            membership, path = member_invite(workspace=Workspace.objects.get(slug=workspace), actor=None,
                                             username=username, role=role, email=email)
        except Workspace.DoesNotExist:
            raise CommandError(f"No workspace has the slug “{workspace}”.") from None
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{membership.user.username} is a member of {membership.workspace.name} as "
                          f"{membership.role}. Send them this sign-up link (no e-mail is sent); it works once:")
        self.stdout.write(settings.VENUS_PUBLIC_URL.rstrip("/") + path)
