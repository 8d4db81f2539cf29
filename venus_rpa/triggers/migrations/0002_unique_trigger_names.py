"""Schedule and webhook names unique in a workspace, in any letter case. Names saved before the
rule may repeat: the later of each set of equal names (by id) is renamed "NAME (2)", "NAME (3)"…,
the first free one, so the constraints can be added and nothing is lost."""

from django.db import migrations, models
from django.db.models import Value
from django.db.models.functions import Lower

NAME_COLUMN_MAX = 200  # Schedule.name and WebhookTrigger.name


def _free_name(model, *, workspace_id: int, name: str) -> str:
    """"NAME (n)" for the smallest n >= 2 that no row of the workspace has (in any letter case)."""
    same_workspace = model.objects.filter(workspace_id=workspace_id).annotate(key=Lower("name"))
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[:NAME_COLUMN_MAX - len(suffix)].rstrip() + suffix
        if not same_workspace.filter(key=Lower(Value(candidate))).exists():
            return candidate
        n += 1


def rename_duplicates(apps, schema_editor):
    for model_name in ("Schedule", "WebhookTrigger"):
        model = apps.get_model("triggers", model_name)
        rows = list(model.objects.annotate(key=Lower("name")).order_by("workspace_id", "key", "pk")
                    .values_list("pk", "workspace_id", "key", "name"))
        kept = set()
        for pk, workspace_id, key, name in rows:
            if (workspace_id, key) not in kept:
                kept.add((workspace_id, key))
                continue
            model.objects.filter(pk=pk).update(name=_free_name(model, workspace_id=workspace_id, name=name))


class Migration(migrations.Migration):

    dependencies = [
        ('triggers', '0001_initial'),
    ]

    operations = [
        migrations.RunPython(rename_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='schedule',
            constraint=models.UniqueConstraint(models.F('workspace'), Lower('name'), name='one_schedule_name_per_workspace', violation_error_message='Another schedule of this workspace has this name.'),
        ),
        migrations.AddConstraint(
            model_name='webhooktrigger',
            constraint=models.UniqueConstraint(models.F('workspace'), Lower('name'), name='one_webhook_name_per_workspace', violation_error_message='Another webhook of this workspace has this name.'),
        ),
    ]
