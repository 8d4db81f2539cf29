"""Give every automation a slug the URLs accept. Before issue 9 the editor saved any text (e.g.
"Bad Slug!"), and reversing its URLs made /automations/ a 500 for the whole workspace."""

from django.core.validators import slug_re
from django.db import migrations
from django.utils.text import slugify


def _fixed(slug: str, name: str, pk: int, taken: set[str]) -> str:
    base = (slugify(slug) or slugify(name) or f"automation-{pk}")[:70].strip("-") or f"automation-{pk}"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def fix_slugs(apps, schema_editor):
    Automation = apps.get_model("automations", "Automation")
    for automation in Automation.objects.order_by("pk"):
        if slug_re.fullmatch(automation.slug) and len(automation.slug) <= 80:
            continue
        taken = set(Automation.objects.filter(workspace_id=automation.workspace_id)
                    .exclude(pk=automation.pk).values_list("slug", flat=True))
        automation.slug = _fixed(automation.slug, automation.name, automation.pk, taken)
        automation.save(update_fields=["slug"])


class Migration(migrations.Migration):
    dependencies = [("automations", "0004_safety_policy")]
    operations = [migrations.RunPython(fix_slugs, migrations.RunPython.noop)]
