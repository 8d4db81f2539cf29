"""Writes for automations and credentials. Definitions are validated here, once, for every
entry point (API, dashboard, seed command)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import jsonschema
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables
from pydantic import ValidationError as PydanticValidationError

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.selectors import audit_list
from venus_rpa.audit.services import audit_record
from venus_rpa.automations import checks, governance
from venus_rpa.automations.calls import calls_problems, stored_steps
from venus_rpa.automations.crypto import decrypt_json, encrypt_fields, encrypt_json
from venus_rpa.automations.models import Automation, AutomationVersion, Credential, LoginSession, ReplayPath
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.core.judges import judge_names, unknown_judges
from venus_rpa.core.text import NOT_STORABLE, not_storable, shown
from workers import egress, flow_checks, patterns
from workers.sign_in import state_permitted
from workers.steps import SAVING, SECRET_RE, AutomationSpec, template_params
from workers.totp import TOTP_FIELD, normalise_secret

DEFINITION_DEFAULTS: dict[str, Any] = {
    "surface": "web", "start_url": "", "allowed_domains": [], "goal": "", "steps": [], "param_schema": {},
    "credentials": [], "success_criteria": {}, "output_schema": {}, "limits": {}, "captcha": {}, "safety": {},
    "model_grounding": False, "sign_in": {},
}


def _pydantic_fields(exc: PydanticValidationError, prefix: str = "") -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for error in exc.errors():
        loc = ".".join(str(part) for part in error["loc"] if part not in ("function-after",))
        fields.setdefault(f"{prefix}{loc}" or "definition", []).append(error["msg"])
    return fields


def definition_validate(*, workspace: Workspace, definition: dict[str, Any], slug: str = "") -> dict[str, Any]:
    """Check a definition and return it normalised (steps in canonical form). `slug`: the
    automation it is for (a call back to it is a cycle).

    Errors are field errors: steps.2.target, param_schema, credentials...
    """
    data = {**DEFINITION_DEFAULTS, **{k: v for k, v in definition.items() if v is not None}}
    unknown = set(data) - set(DEFINITION_DEFAULTS)
    if unknown:
        raise InvalidInput("Unknown fields.", fields={shown(k): ["Unknown field."] for k in sorted(unknown)})
    parts = [(f"steps.{i}", step) for i, step in enumerate(data["steps"])] if isinstance(data["steps"], list) else []
    parts += [(key, value) for key, value in data.items() if key != "steps" or not parts]
    if unstorable := {where: [NOT_STORABLE] for where, value in parts if not_storable(value)}:
        raise InvalidInput("The automation definition holds text that cannot be stored.", fields=unstorable)
    spec_fields = {k: data[k] for k in AutomationSpec.model_fields}
    try:
        spec = AutomationSpec.model_validate(spec_fields, context=SAVING)  # texts' bounds too (workers.steps)
    except PydanticValidationError as exc:
        fields = _pydantic_fields(exc)
        if problem := checks.definition_size_problem(data):
            fields.setdefault("definition", []).append(problem)
        _unparsed_problems(data, fields)  # every problem at once, not the rest after the next save
        raise InvalidInput("The automation definition is invalid.", fields=fields) from exc
    fields: dict[str, list[str]] = checks.definition_problems(spec)
    expanded, call_problems = calls_problems(workspace=workspace, spec=spec, slug=slug)  # sub-automations
    for where, problems in [*call_problems.items(), *flow_checks.definition_problems(expanded.steps).items()]:
        fields.setdefault(where, []).extend(problems)  # calls; step values and blocks (returned values too)
    domains = _allowed_domains_clean(data, fields)
    checks.off_domain_problems(spec, allowed_domains=domains, fields=fields)  # a run would be blocked there
    schema = data["param_schema"]
    try:
        patterns.schema_check(schema)  # user regexes compile under the bounded engine's rules
        if schema and schema.get("type", "object") != "object":
            raise jsonschema.SchemaError("the parameter schema must describe an object")
    except jsonschema.SchemaError as exc:
        fields["param_schema"] = [f"Not a valid JSON Schema: {exc.message}"]
    for where, ref in egress.schema_remote_refs(schema):  # never fetched: see runs.services.params_validate
        fields.setdefault("param_schema", []).append(
            f"$ref {ref!r} (at {where}) points outside this schema; only references within it (#/...) are allowed.")
    try:
        patterns.schema_check(data["output_schema"])
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
    criteria_texts = _strings(spec.success_criteria.model_dump(exclude_none=True))
    missing = sorted(set().union(set(), *(template_params(t) for t in criteria_texts)) - declared)
    if missing:
        fields.setdefault("success_criteria", []).append(
            f"Uses parameter(s) not in the parameter schema: {', '.join(missing)}")
    if spec.success_criteria.judges and (unknown := unknown_judges(spec.success_criteria.judges)):
        offered = ", ".join(judge_names()) or "none (set VENUS_JUDGES or VENUS_MODEL_URL)"
        fields.setdefault("success_criteria", []).append(
            f"Unknown judge(s): {', '.join(unknown)}. Judges this platform offers: {offered}.")
    if any(SECRET_RE.search(t) for t in criteria_texts):
        fields.setdefault("success_criteria", []).append(
            "A success criterion may not use a credential: it would be compared, and shown, in clear.")
    if "param_schema" not in fields and isinstance(schema, dict):
        defaults = {k: v["default"] for k, v in (schema.get("properties") or {}).items()
                    if isinstance(v, dict) and "default" in v}
        for name, value in defaults.items():
            errors = patterns.schema_errors(schema["properties"][name], value)
            if errors:
                fields.setdefault("param_schema", []).append(f"Default of {name!r} is invalid: {errors[0].message}")
            elif (size := checks.param_size(value)) > settings.VENUS_PARAM_MAX_CHARS:  # every run stores its defaults
                fields.setdefault("param_schema", []).append(
                    f"Default of {name!r} has {size:,} characters; a run parameter has at most "
                    f"{settings.VENUS_PARAM_MAX_CHARS:,}.")
    credentials = list(dict.fromkeys(data["credentials"]) | dict.fromkeys(sorted(used_creds)))
    known = {c.name: c for c in Credential.objects.filter(workspace=workspace, name__in=credentials)}
    if set(credentials) - set(known):
        fields["credentials"] = [f"Unknown credential(s): {', '.join(sorted(set(credentials) - set(known)))}"]
    sign_in = checks.sign_in_problems(spec, allowed_domains=domains, credentials=known, fields=fields)
    normalised = spec.model_dump(mode="json", exclude_none=True)
    normalised["steps"] = stored_steps(normalised["steps"])
    clean = {**data, **normalised, "credentials": credentials, "allowed_domains": domains, "sign_in": sign_in}
    if problem := checks.definition_size_problem(clean):  # as stored: what every run and API answer carries
        fields.setdefault("definition", []).append(problem)
    if fields:
        raise InvalidInput("The automation definition is invalid.", fields=fields)
    return clean


def _metadata_problems(*, name: str | None, description: str | None, change_note: str = "") -> dict[str, list[str]]:
    """Field errors of an automation's name, description (None: not being changed) and change note."""
    fields: dict[str, list[str]] = {}
    if problem := checks.change_note_problem(change_note):
        fields["change_note"] = [problem]
    if name is not None and (problem := checks.name_problem(name)):
        fields["name"] = [problem]
    if description is not None and (problem := checks.description_problem(description)):
        fields["description"] = [problem]
    return fields


def _definition_and_metadata(*, metadata: dict[str, list[str]], **kwargs: Any) -> dict[str, Any]:
    """`definition_validate(**kwargs)`, its problems and the name's and description's reported together."""
    try:
        clean = definition_validate(**kwargs)
    except InvalidInput as exc:
        if metadata:
            raise InvalidInput(exc.message, fields={**metadata, **exc.fields}) from exc
        raise
    if metadata:
        raise InvalidInput("The automation is invalid.", fields=metadata)
    return clean


def _unparsed_problems(data: dict[str, Any], fields: dict[str, list[str]]) -> None:
    """When the definition does not parse, the problems of its parts that need no parsing: the
    allowed domains, a web start URL and the two schemas (each only where the parse said nothing)."""
    if "allowed_domains" not in fields:
        _allowed_domains_clean(data, fields)
    url = data.get("start_url")
    if ("start_url" not in fields and isinstance(url, str) and url.strip() and data.get("surface", "web") == "web"
            and (problem := checks.web_url_problem(url))):
        fields["start_url"] = [problem]
    for name in ("param_schema", "output_schema"):
        if name not in fields and isinstance(data.get(name), dict):
            try:
                patterns.schema_check(data[name])
            except jsonschema.SchemaError as exc:
                fields[name] = [f"Not a valid JSON Schema: {exc.message}"]


def _allowed_domains_clean(data: dict[str, Any], fields: dict[str, list[str]]) -> list[str]:
    """The allowed domains in canonical form; problems go to fields["allowed_domains"]. A web
    automation must list at least one: its runs may visit only these (workers/egress.py)."""
    raw = data.get("allowed_domains") or []
    problems, domains = [], []
    for entry in raw if isinstance(raw, list) else []:
        try:
            domains.append(checks.domain_normalize(entry))
        except ValueError as exc:
            problems.append(str(exc))
    if not raw and data.get("surface", "web") == "web":
        problems.append("List the domains runs may visit, such as the start URL's host.")
    if problems:
        fields["allowed_domains"] = problems
    return list(dict.fromkeys(domains))


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
                      definition: dict[str, Any], change_note: str = "", replay_cache: bool = True,
                      audit: bool = True) -> Automation:
    """Create an automation and its version 1. An empty slug is made from the name; a policy below
    the default safety review needs an owner or reviewer (`governance`). Audited unless `audit`
    is False (a caller that records its own event: a clone)."""
    given_slug, slug = bool(slug), slug or checks.slug_propose(name)
    if problem := checks.slug_problem(slug):
        raise InvalidInput("The slug is invalid.", fields={"slug": [problem]})
    clean = _definition_and_metadata(metadata=_metadata_problems(name=name, description=description,
                                                                  change_note=change_note),
                                     workspace=workspace, definition=definition, slug=slug)
    lowered = governance.safety_change_authorize(workspace=workspace, user=user, automation=None, before=None,
                                                 after=clean["safety"])
    conflict = Conflict(f"An automation with slug {slug!r} exists already.", fields={"slug": ["Already in use."]}
                        if given_slug else {"name": [  # the slug was made from the name: say so where it was typed
                            f"Another automation has a name that gives the same address ({slug!r}): "
                            "choose another name, or give this one a slug of its own."]})
    if Automation.objects.filter(workspace=workspace, slug=slug).exists():
        raise conflict
    try:
        with transaction.atomic():  # a concurrent create with the same slug loses here, as a 409
            automation = Automation.objects.create(
                workspace=workspace, slug=slug, name=name, description=description, created_by=user,
                replay_cache=replay_cache,
            )
    except IntegrityError:
        raise conflict from None
    version = _version_create(automation=automation, user=user, definition=clean, change_note=change_note or "Created")
    governance.safety_change_record(user=user, automation=automation, version=version, before=None, lowered=lowered)
    if audit:
        audit_record(workspace=workspace, actor=user, action=AuditAction.AUTOMATION_CREATED, automation=automation,
                     version_number=version.number, changes=[f"created “{name}” (v1)"], before={},
                     after={"automation": slug, "version": version.number})
    return automation


@transaction.atomic
def automation_update(*, automation: Automation, user, name: str | None = None, description: str | None = None,
                      definition: dict[str, Any] | None = None, change_note: str = "",
                      replay_cache: bool | None = None, audit: bool = True,
                      base_version: int | None = None, base_revision: int | None = None) -> Automation:
    """Update metadata; a changed definition becomes a new version (old versions stay as they were).
    `replay_cache` False switches the replay cache off and forgets its paths (no new version).
    What changed is audited unless `audit` is False (a caller that records its own event: a restore).

    `base_version`: the version number the caller's edit started from (the editor's page, an API
    client's last read). When it is not the current version, nothing is changed and Conflict is
    raised (fields: base_version), naming the version that came in between: two editors never
    silently overwrite each other. None: no check (the caller sends the whole truth it wants).
    `base_revision`: the same for the automation's `revision`, which every change moves on (the
    name, description or replay cache alone make no version): a save from a page opened before
    any change since is refused (fields: base_revision), whatever either of them changed.
    The checks run under the automation's row lock, so of two saves from the same base only the
    first passes. They can only refuse a save: they grant nothing the caller could not do without."""
    automation = Automation.objects.select_for_update().get(pk=automation.pk)
    if automation.archived_at is not None:
        raise Conflict(f"“{automation.name}” is archived; restore it from the archive to change it.")
    if base_version is not None:
        _base_version_check(automation=automation, base_version=base_version)
    if base_revision is not None:
        _base_revision_check(automation=automation, base_revision=base_revision)
    metadata = _metadata_problems(name=name if name is not None and name != automation.name else None,
                                  description=description if description != automation.description else None,
                                  change_note=change_note)
    if metadata and definition is None:
        raise InvalidInput("The automation is invalid.", fields=metadata)
    changes = []
    if name is not None and name != automation.name:
        changes.append(f"name: “{automation.name}” → “{name}”")
        automation.name = name
    if description is not None and description != automation.description:
        changes.append("description changed")
        automation.description = description
    if replay_cache is not None and replay_cache != automation.replay_cache:
        changes.append(f"replay cache switched {'on' if replay_cache else 'off'}")
        automation.replay_cache = replay_cache
        if not replay_cache:
            ReplayPath.objects.filter(version__automation=automation).delete()
    version = None
    if definition is not None:
        current = automation.current_version.definition() if automation.current_version else {}
        clean = _definition_and_metadata(metadata=metadata, workspace=automation.workspace,
                                         definition={**current, **definition}, slug=automation.slug)
        if clean != current:
            lowered = governance.safety_change_authorize(workspace=automation.workspace, user=user,
                                                         automation=automation, before=current.get("safety"),
                                                         after=clean["safety"])
            version = _version_create(automation=automation, user=user, definition=clean, change_note=change_note)
            governance.safety_change_record(user=user, automation=automation, version=version,
                                            before=current.get("safety"), lowered=lowered)
            changed = sorted(k for k in clean if clean.get(k) != current.get(k))
            changes.append(f"v{version.number}: {', '.join(k.replace('_', ' ') for k in changed)} changed"
                           + (f" ({change_note[:200]})" if change_note else ""))
    if changes:
        automation.revision += 1
    automation.save()
    if audit and changes:
        audit_record(workspace=automation.workspace, actor=user, action=AuditAction.AUTOMATION_EDITED,
                     automation=automation, version_number=version.number if version else None, changes=changes,
                     before={}, after={"version": version.number} if version else {})
    return automation


def _base_version_check(*, automation: Automation, base_version: int) -> None:
    """Conflict unless `base_version` is the automation's current version (the caller holds its
    row lock, so no version can be made between this check and the caller's own)."""
    current = automation.current_version
    number = current.number if current else 0
    if base_version == number:
        return
    if current is None or base_version > number:  # not a version a reader could have seen
        raise Conflict(f"Version {base_version} is not this automation's current version ({number}): reload it.",
                       fields={"base_version": [f"The current version is {number}."]})
    who = f" by {current.created_by.username}" if current.created_by else ""
    when = timezone.localtime(current.created_at).strftime("%Y-%m-%d %H:%M %Z")
    raise Conflict(f"This automation was changed (version {number}{who}, {when}) since you opened version "
                   f"{base_version}: reload to see it.",
                   fields={"base_version": [f"Version {base_version} is not the current version ({number})."]})


def _base_revision_check(*, automation: Automation, base_revision: int) -> None:
    """Conflict unless `base_revision` is the automation's current revision, naming who changed it
    last and when (the latest edit in its audit log; the caller holds the row lock)."""
    current = automation.revision
    if base_revision == current:
        return
    if base_revision > current:  # not a revision a reader could have seen
        raise Conflict(f"Revision {base_revision} is not this automation's current revision ({current}): reload it.",
                       fields={"base_revision": [f"The current revision is {current}."]})
    last = audit_list(workspace=automation.workspace, automation=automation).filter(
        action__in=[AuditAction.AUTOMATION_EDITED, AuditAction.VERSION_RESTORED]).first()
    who = f"by {last.actor_name}, " if last and last.actor_name else ""
    when = timezone.localtime(last.created_at if last else automation.updated_at).strftime("%Y-%m-%d %H:%M %Z")
    raise Conflict(f"This automation was changed ({who}{when}) since you opened it: reload to see it.",
                   fields={"base_revision": [f"Revision {base_revision} is not the current revision ({current})."]})


@transaction.atomic
def replay_paths_save(*, version_id: int, run_id: int | None, paths: dict[str, list[dict[str, Any]]]) -> int:
    """Replace the cached paths of these steps of one version with a verified run's (the worker
    calls it, `venus_rpa.automations.replay`). Nothing is written when the automation's cache was
    switched off meanwhile. Returns the number of paths written."""
    automation = Automation.objects.select_for_update().filter(versions__pk=version_id).first()
    if automation is None or not automation.replay_cache:
        return 0
    now = timezone.now()
    for key, turns in paths.items():
        ReplayPath.objects.update_or_create(version_id=version_id, step_key=key[:100],
                                            defaults={"turns": turns, "run_id": run_id, "saved_at": now})
    return len(paths)


def _version_create(*, automation: Automation, user, definition: dict[str, Any], change_note: str) -> AutomationVersion:
    number = (automation.versions.aggregate(m=Max("number"))["m"] or 0) + 1
    version = AutomationVersion.objects.create(
        automation=automation, number=number, created_by=user, change_note=change_note, **definition
    )
    automation.current_version = version
    automation.save(update_fields=["current_version", "updated_at"])
    return version


@sensitive_variables("fields")  # the secret values, in this frame and every one below
def credential_set(*, workspace: Workspace, name: str, fields: dict[str, str], domains: list[str],
                   user=None) -> Credential:
    """Create or replace a credential. The secret values are encrypted before they are stored.
    A `totp` field is a TOTP secret (base32 or an otpauth:// address), checked and stored in
    canonical form; `{{credentials.NAME.totp}}` then types the current one-time code. Audited
    with its field names and domains (never a value); `user` None is the system (a seed)."""
    if not fields or not all(isinstance(k, str) and isinstance(v, str) for k, v in fields.items()):
        raise InvalidInput("A credential needs string fields.", fields={"fields": ["Give at least one name: value pair."]})
    if problem := checks.credential_fields_problem(fields):
        raise InvalidInput("A credential field name is invalid.", fields={"fields": [problem]})
    if problem := checks.credential_totp_problem(fields):
        raise InvalidInput("The credential's TOTP secret is invalid.", fields={f"fields.{TOTP_FIELD}": [problem]})
    domains = credential_domains_clean(domains)
    if TOTP_FIELD in fields:  # stored in one form: the setup key without spaces, or the QR code's secret
        fields = {**fields, TOTP_FIELD: normalise_secret(fields[TOTP_FIELD])}
    credential, created = Credential.objects.update_or_create(
        workspace=workspace, name=name,
        defaults={"domains": domains, "field_names": sorted(fields), "ciphertext": encrypt_fields(fields)},
    )
    if not created:  # new values or domains: sessions signed in with the old ones are not this credential's
        credential.sessions.all().delete()
    audit_record(workspace=workspace, actor=user,
                 action=AuditAction.CREDENTIAL_CREATED if created else AuditAction.CREDENTIAL_CHANGED,
                 changes=[f"credential {name}: fields {', '.join(sorted(fields))}; domains {', '.join(domains)}"
                          + ("" if created else " (values replaced; its saved sign-ins were revoked)")],
                 before={}, after={"credential": name, "fields": sorted(fields), "domains": domains})
    return credential


def credential_domains_clean(domains: Any) -> list[str]:
    """A credential's domains in canonical form, by the automations' rule (`checks.domain_normalize`:
    one host per entry, spaces refused by name). At least one: a credential is typed only on its
    own domains, and one without any would not be typed anywhere (InvalidInput otherwise)."""
    entries = [str(d).strip() for d in domains] if isinstance(domains, list | tuple) else []
    problems, clean = [], []
    for entry in (e for e in entries if e):
        try:
            clean.append(checks.domain_normalize(entry))
        except ValueError as exc:
            problems.append(str(exc))
    if not clean and not problems:
        problems.append("List the domains this credential may be typed on, such as erp.example.com.")
    if problems:
        raise InvalidInput("The credential's domains are invalid.", fields={"domains": problems})
    return list(dict.fromkeys(clean))


# -- saved sign-in sessions (persistent logins) ---------------------------------------------------

def _session_domains(*, credential: Credential, allowed_domains: list[str]) -> list[list[str]]:
    """The domain lists a session must satisfy: the automation's, and the credential's own (a
    credential without domains is typed on the automation's allowed domains, see SecretBox)."""
    return [list(allowed_domains), list(credential.domains or allowed_domains)]


def _session_credential(*, workspace, name: str, domain: str, allowed_domains: list[str]) -> Credential:
    credential = Credential.objects.filter(workspace=workspace, name=name).first()
    if credential is None:
        raise InvalidInput(f"Unknown credential {name!r}.", fields={"credential": ["Unknown credential."]})
    if not domain or not all(egress.domain_allowed(domain, d) for d in _session_domains(
            credential=credential, allowed_domains=allowed_domains)):
        raise InvalidInput(f"A session of {name!r} may not be kept for {domain!r}.",
                           fields={"domain": ["Not permitted by the allowed domains and the credential's domains."]})
    return credential


def login_session_save(*, workspace, credential_name: str, domain: str, state: dict[str, Any],
                       expires_at: datetime, allowed_domains: list[str], run_id: int | None = None) -> LoginSession:
    """Store (replace) the sign-in session for (workspace, credential, domain), encrypted, holding
    only cookies and storage of permitted hosts; it expires at `expires_at`, or sooner
    (VENUS_LOGIN_SESSION_MAX_AGE_SECONDS)."""
    credential = _session_credential(workspace=workspace, name=credential_name, domain=domain,
                                     allowed_domains=allowed_domains)
    permit = _session_domains(credential=credential, allowed_domains=allowed_domains)
    now = timezone.now()
    expires_at = min(expires_at, now + timedelta(seconds=settings.VENUS_LOGIN_SESSION_MAX_AGE_SECONDS))
    session, _ = LoginSession.objects.update_or_create(credential=credential, domain=domain, defaults={
        "workspace": workspace, "saved_at": now, "last_used_at": None, "expires_at": expires_at,
        "saved_by_run_id": run_id,
        "ciphertext": encrypt_json(state_permitted(state, domain=domain, permit=permit)),
    })
    return session


def login_session_take(*, workspace, credential_name: str, domain: str,
                       allowed_domains: list[str]) -> tuple[LoginSession, dict[str, Any]] | None:
    """The unexpired session for (workspace, credential, domain) with its decrypted state (only
    permitted hosts), marked used now; None when there is none or it may not be used here."""
    try:
        credential = _session_credential(workspace=workspace, name=credential_name, domain=domain,
                                         allowed_domains=allowed_domains)
    except InvalidInput:
        return None
    now = timezone.now()
    session = LoginSession.objects.filter(workspace=workspace, credential=credential, domain=domain,
                                          expires_at__gt=now).first()
    if session is None:
        return None
    try:
        state = decrypt_json(session.ciphertext, what="saved session")
    except ValueError:
        session.delete()  # stored under another key: useless, sign in again
        return None
    LoginSession.objects.filter(pk=session.pk).update(last_used_at=now)
    permit = _session_domains(credential=credential, allowed_domains=allowed_domains)
    return session, state_permitted(state, domain=domain, permit=permit)


def login_session_discard(*, workspace, credential_name: str, domain: str) -> None:
    """Forget a session the site no longer accepts (the automation's check found it signed out)."""
    LoginSession.objects.filter(workspace=workspace, credential__name=credential_name, domain=domain).delete()


def login_session_revoke(*, credential: Credential, session: LoginSession | None = None) -> int:
    """Revoke one saved session of the credential (`session`, found through
    `selectors.login_session_get`) or all of them; the next run signs in again."""
    sessions = LoginSession.objects.filter(credential=credential, workspace=credential.workspace)
    if session is not None:
        sessions = sessions.filter(pk=session.pk)
    deleted, _ = sessions.delete()
    return deleted
