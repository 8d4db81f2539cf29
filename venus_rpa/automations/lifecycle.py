"""An automation's life beyond editing: clone, archive and restore from the archive, restore an
earlier version, delete a credential. Each action is recorded in the workspace audit log.

Archiving is a soft delete: the automation and its versions, runs, schedules and webhooks stay;
`runs.services.run_start` refuses an archived automation for every path (dashboard, API,
schedule, webhook) and its schedules' beat entries are switched off until it is restored.
History is never rewritten: restoring version N makes a new version equal to N.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.automations import checks
from venus_rpa.automations.models import Automation, AutomationVersion, Credential
from venus_rpa.automations.services import automation_create, automation_update
from venus_rpa.core.errors import Conflict
from venus_rpa.automations.signals import automation_archive_changed

CLONE_PREFIX = "Copy of "


def archived_refusal(automation: Automation) -> Conflict:
    """The one refusal every start path gives for an archived automation."""
    return Conflict(f"“{automation.name}” is archived, so it cannot be started. Restore it from the archive first.",
                    fields={"automation": ["This automation is archived."]})


def _free_name_and_slug(*, automation: Automation) -> tuple[str, str]:
    """“Copy of NAME”, then “Copy of NAME (2)”, … with a slug to match, both unused."""
    taken_names = set(Automation.objects.filter(workspace=automation.workspace).values_list("name", flat=True))
    taken_slugs = set(Automation.objects.filter(workspace=automation.workspace).values_list("slug", flat=True))
    base = f"{CLONE_PREFIX}{automation.name}"[:checks.NAME_MAX - len(" (999)")].rstrip()
    for n in range(1, 1000):
        name = base if n == 1 else f"{base} ({n})"
        slug = checks.slug_propose(name)[:80].strip("-") or f"copy-{automation.pk}-{n}"
        if name not in taken_names and slug not in taken_slugs:
            return name, slug
    raise Conflict("Too many copies of this automation exist already; rename some first.")


def _shortened(text: str, limit: int) -> str:
    """`text` within `limit` characters (a description saved before the limit), an ellipsis ending it."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


@transaction.atomic
def automation_clone(*, automation: Automation, user) -> Automation:
    """A new automation with the current definition (steps, schemas, domains, policies, and the
    credentials by name: no secret is duplicated); not its runs, schedules or webhooks. Saved
    through `automation_create`, so it is validated and governed like any new automation."""
    version = automation.current_version
    if version is None:
        raise Conflict("This automation has no version to copy.")
    name, slug = _free_name_and_slug(automation=automation)
    clone = automation_create(workspace=automation.workspace, user=user, slug=slug, name=name,
                              description=_shortened(automation.description, checks.DESCRIPTION_MAX),
                              definition=version.definition(),
                              change_note=f"Copied from {automation.name} v{version.number}", audit=False)
    audit_record(workspace=automation.workspace, actor=user, action=AuditAction.AUTOMATION_CLONED, automation=clone,
                 version_number=1, changes=[f"copied from {automation.slug} v{version.number}"],
                 before={"automation": automation.slug, "version": version.number}, after={"automation": clone.slug})
    return clone


def _set_archived(*, automation: Automation, user, archived: bool) -> Automation:
    automation = Automation.objects.select_for_update().get(pk=automation.pk)
    if (automation.archived_at is not None) == archived:
        raise Conflict(f"“{automation.name}” is {'already' if archived else 'not'} archived.")
    automation.archived_at = timezone.now() if archived else None
    automation.archived_by = user if archived and getattr(user, "pk", None) else None
    automation.save(update_fields=["archived_at", "archived_by", "updated_at"])
    action = AuditAction.AUTOMATION_ARCHIVED if archived else AuditAction.AUTOMATION_UNARCHIVED
    audit_record(workspace=automation.workspace, actor=user, action=action, automation=automation,
                 version_number=getattr(automation.current_version, "number", None),
                 changes=["archived" if archived else "restored from the archive"],
                 before={"archived": not archived}, after={"archived": archived})
    # Listeners (the triggers app) switch the automation's schedules off or back on.
    automation_archive_changed.send(sender=Automation, automation_id=automation.pk, archived=archived)
    return automation


@transaction.atomic
def automation_archive(*, automation: Automation, user) -> Automation:
    """Archive (soft delete). Runs in progress go on; no new run starts until it is restored."""
    return _set_archived(automation=automation, user=user, archived=True)


@transaction.atomic
def automation_unarchive(*, automation: Automation, user) -> Automation:
    """Restore from the archive: it can run again and its enabled schedules fire again."""
    return _set_archived(automation=automation, user=user, archived=False)


@transaction.atomic
def automation_version_restore(*, automation: Automation, number: int, user) -> AutomationVersion:
    """Make a new version whose definition equals version `number` (validated and governed as
    any edit: a credential deleted since, or a lowered safety review, is refused)."""
    old = AutomationVersion.objects.filter(automation=automation, number=number).first()
    if old is None:
        raise Conflict(f"Version {number} does not exist.", fields={"version": ["Unknown version."]})
    current = automation.current_version
    if current is not None and current.definition() == old.definition():
        raise Conflict(f"The current version (v{current.number}) already has the definition of v{number}.")
    automation = automation_update(automation=automation, user=user, definition=old.definition(),
                                   change_note=f"Restored from v{number}", audit=False)
    version = automation.current_version
    if current is not None and version.pk == current.pk:  # normalisation made them equal after all
        raise Conflict(f"The current version (v{current.number}) already has the definition of v{number}.")
    audit_record(workspace=automation.workspace, actor=user, action=AuditAction.VERSION_RESTORED,
                 automation=automation, version_number=version.number,
                 changes=[f"v{version.number} restores the definition of v{number}"],
                 before={"version": getattr(current, "number", None)}, after={"version": version.number,
                                                                           "restored_from": number})
    return version


@transaction.atomic
def credential_delete(*, credential: Credential, user) -> None:
    """Delete a credential and its saved sessions, unless an automation that is not archived
    names it in its current version (its runs could not sign in): those are listed."""
    users = sorted(Automation.objects.filter(workspace=credential.workspace, archived_at__isnull=True,
                                             current_version__credentials__contains=[credential.name])
                   .values_list("name", flat=True))
    if users:
        raise Conflict(f"“{credential.name}” is used by {', '.join(users)}. Remove it from "
                       f"{'that automation' if len(users) == 1 else 'those automations'} first.",
                       fields={"credential": [f"Used by: {', '.join(users)}"]})
    audit_record(workspace=credential.workspace, actor=user, action=AuditAction.CREDENTIAL_DELETED,
                 changes=[f"deleted credential {credential.name}"],
                 before={"credential": credential.name, "fields": credential.field_names}, after={})
    credential.delete()
