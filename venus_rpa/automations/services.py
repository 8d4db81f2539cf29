"""Writes for automations and credentials. Definitions are validated here, once, for every
entry point (API, dashboard, seed command)."""

from __future__ import annotations

from typing import Any

import jsonschema
from django.db import IntegrityError, transaction
from django.db.models import Max
from pydantic import ValidationError as PydanticValidationError

from venus_rpa.accounts.models import Workspace
from venus_rpa.automations.crypto import encrypt_fields
from venus_rpa.automations.models import Automation, AutomationVersion, Credential
from venus_rpa.core.errors import Conflict, InvalidInput
from workers.steps import SECRET_RE, AutomationSpec, template_params

DEFINITION_DEFAULTS: dict[str, Any] = {
    "surface": "web", "start_url": "", "allowed_domains": [], "goal": "", "steps": [], "param_schema": {},
    "credentials": [], "success_criteria": {}, "output_schema": {}, "limits": {}, "captcha": {}, "safety": {},
    "model_grounding": False,
}


def _pydantic_fields(exc: PydanticValidationError, prefix: str = "") -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for error in exc.errors():
        loc = ".".join(str(part) for part in error["loc"] if part not in ("function-after",))
        fields.setdefault(f"{prefix}{loc}" or "definition", []).append(error["msg"])
    return fields


def definition_validate(*, workspace: Workspace, definition: dict[str, Any]) -> dict[str, Any]:
    """Check a definition and return it normalised (steps in canonical form).

    Errors are field errors: steps.2.target, param_schema, credentials...
    """
    data = {**DEFINITION_DEFAULTS, **{k: v for k, v in definition.items() if v is not None}}
    unknown = set(data) - set(DEFINITION_DEFAULTS)
    if unknown:
        raise InvalidInput("Unknown fields.", fields={k: ["Unknown field."] for k in sorted(unknown)})
    spec_fields = {k: data[k] for k in AutomationSpec.model_fields}
    try:
        spec = AutomationSpec.model_validate(spec_fields)
    except PydanticValidationError as exc:
        raise InvalidInput("The automation definition is invalid.", fields=_pydantic_fields(exc)) from exc
    fields: dict[str, list[str]] = {}
    schema = data["param_schema"]
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        if schema and schema.get("type", "object") != "object":
            raise jsonschema.SchemaError("the parameter schema must describe an object")
    except jsonschema.SchemaError as exc:
        fields["param_schema"] = [f"Not a valid JSON Schema: {exc.message}"]
    try:
        jsonschema.Draft202012Validator.check_schema(data["output_schema"])
    except jsonschema.SchemaError as exc:
        fields["output_schema"] = [f"Not a valid JSON Schema: {exc.message}"]
    declared = set((schema.get("properties") or {}).keys()) if isinstance(schema, dict) else set()
    used_creds: set[str] = set()
    for index, step in enumerate(spec.steps):
        step_texts = _strings(step.model_dump(exclude_none=True))
        missing = sorted(set().union(*(template_params(t) for t in step_texts)) - declared) if step_texts else []
        if missing:
            fields[f"steps.{index}"] = [f"Uses parameter(s) not in the parameter schema: {', '.join(missing)}"]
        used_creds |= {m.group(1) for t in step_texts for m in SECRET_RE.finditer(t)}
    for name in ("start_url", "goal"):
        missing = sorted(template_params(data[name]) - declared)
        if missing:
            fields.setdefault(name, []).append(f"Uses parameter(s) not in the parameter schema: {', '.join(missing)}")
    if "param_schema" not in fields and isinstance(schema, dict):
        defaults = {k: v["default"] for k, v in (schema.get("properties") or {}).items()
                    if isinstance(v, dict) and "default" in v}
        for name, value in defaults.items():
            errors = list(jsonschema.Draft202012Validator(schema["properties"][name]).iter_errors(value))
            if errors:
                fields.setdefault("param_schema", []).append(f"Default of {name!r} is invalid: {errors[0].message}")
    credentials = list(dict.fromkeys(data["credentials"]) | dict.fromkeys(sorted(used_creds)))
    known = set(Credential.objects.filter(workspace=workspace, name__in=credentials).values_list("name", flat=True))
    if set(credentials) - known:
        fields["credentials"] = [f"Unknown credential(s): {', '.join(sorted(set(credentials) - known))}"]
    if fields:
        raise InvalidInput("The automation definition is invalid.", fields=fields)
    normalised = spec.model_dump(mode="json", exclude_none=True)
    return {**data, **normalised, "credentials": credentials}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@transaction.atomic
def automation_create(*, workspace: Workspace, user, slug: str, name: str, description: str = "",
                      definition: dict[str, Any], change_note: str = "") -> Automation:
    clean = definition_validate(workspace=workspace, definition=definition)
    conflict = Conflict(f"An automation with slug {slug!r} exists already.", fields={"slug": ["Already in use."]})
    if Automation.objects.filter(workspace=workspace, slug=slug).exists():
        raise conflict
    try:
        with transaction.atomic():  # a concurrent create with the same slug loses here, as a 409
            automation = Automation.objects.create(
                workspace=workspace, slug=slug, name=name, description=description, created_by=user
            )
    except IntegrityError:
        raise conflict from None
    _version_create(automation=automation, user=user, definition=clean, change_note=change_note or "Created")
    return automation


@transaction.atomic
def automation_update(*, automation: Automation, user, name: str | None = None, description: str | None = None,
                      definition: dict[str, Any] | None = None, change_note: str = "") -> Automation:
    """Update metadata; a changed definition becomes a new version (old versions stay as they were)."""
    automation = Automation.objects.select_for_update().get(pk=automation.pk)
    if name is not None:
        automation.name = name
    if description is not None:
        automation.description = description
    if definition is not None:
        current = automation.current_version.definition() if automation.current_version else {}
        clean = definition_validate(workspace=automation.workspace, definition={**current, **definition})
        if clean != current:
            _version_create(automation=automation, user=user, definition=clean, change_note=change_note)
    automation.save()
    return automation


def _version_create(*, automation: Automation, user, definition: dict[str, Any], change_note: str) -> AutomationVersion:
    number = (automation.versions.aggregate(m=Max("number"))["m"] or 0) + 1
    version = AutomationVersion.objects.create(
        automation=automation, number=number, created_by=user, change_note=change_note, **definition
    )
    automation.current_version = version
    automation.save(update_fields=["current_version", "updated_at"])
    return version


def credential_set(*, workspace: Workspace, name: str, fields: dict[str, str], domains: list[str]) -> Credential:
    """Create or replace a credential. The secret values are encrypted before they are stored."""
    if not fields or not all(isinstance(k, str) and isinstance(v, str) for k, v in fields.items()):
        raise InvalidInput("A credential needs string fields.", fields={"fields": ["Give at least one name: value pair."]})
    credential, _ = Credential.objects.update_or_create(
        workspace=workspace, name=name,
        defaults={"domains": domains, "field_names": sorted(fields), "ciphertext": encrypt_fields(fields)},
    )
    return credential
