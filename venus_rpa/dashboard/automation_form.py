"""The automation editor as one object: built from a stored automation or from a POST, it
renders every section and turns itself into the arguments of the automation services."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.http import QueryDict

from venus_rpa.automations import checks
from venus_rpa.automations.calls import calls_problems
from venus_rpa.automations.models import Automation, AutomationVersion
from venus_rpa.automations.services import DEFINITION_DEFAULTS
from venus_rpa.core.errors import ServiceError
from venus_rpa.core.judges import judge_names
from venus_rpa.dashboard import blocks, editor, step_lines
from venus_rpa.dashboard.field_errors import (error_sentence, json_field, plain_message, setting_label, step_field_label,
                                              step_place)
from workers.steps import AutomationSpec

# A new automation's first row: a click to fill in. A run opens the start URL by itself, so a first
# "go to /" row opened it twice (or another page of the site than the start URL).
DEFAULT_STEP = {"kind": "click"}
DEFAULT_CAPTCHA = {"enabled": True, "solvers": ["local", "model", "human"], "max_attempts": 3, "letter_case": "unknown"}
DEFAULT_LIMITS = {"max_steps": 100, "max_seconds": 600}
# The keys whose errors the editor page lists under their own box or section (`section_errors`);
# an error under any other key has no place in the page and is listed at the top.
PLACED = ("name", "slug", "surface", "start_url", "allowed_domains", "description", "goal", "steps", "param_schema",
          "credentials", "sign_in", "success_criteria", "output_schema", "safety", "captcha", "limits")


def domain_entries(text: str) -> list[str]:
    """The Allowed domains box's entries: one per line (or between commas, which no host has).
    Spaces stay inside their entry, so "not a domain" is one entry the service refuses by name,
    never three words of which two pass as domains."""
    return [entry.strip() for entry in re.split(r"[\r\n,]+", text) if entry.strip()]


def _version_number(text: str) -> int | None:
    """The posted base version; None when the page sent none (no check, as before the field)."""
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text.strip()) else None


@dataclass
class AutomationEditor:
    name: str = ""
    slug: str = ""
    description: str = ""
    change_note: str = ""
    definition: dict[str, Any] = field(default_factory=lambda: dict(DEFINITION_DEFAULTS))
    steps: list[editor.StepRow] = field(default_factory=list)
    params: list[editor.ParamRow] | None = field(default_factory=list)
    param_json: str = ""
    param_extra: str = ""
    output_schema_json: str = ""
    safety_json: str = ""
    replay_cache: bool | None = True  # None: the posted form had no such box (keep what is stored)
    errors: dict[str, list[str]] = field(default_factory=dict)
    # The version and the revision the page was opened at, posted back so a save over a newer one
    # is refused (automation_update's base_version, base_revision); None on the new-automation page.
    base_version: int | None = None
    base_revision: int | None = None
    conflict: list[str] = field(default_factory=list)  # why the save was refused: a change made since
    step_paths: dict[str, int] = field(default_factory=dict)  # "steps.1.steps.0" -> index in `steps`
    # The inputs' maxlength (the services refuse longer ones: automations.checks)
    bounds: ClassVar[dict[str, int]] = {"name": checks.NAME_MAX, "description": checks.DESCRIPTION_MAX}

    @property
    def param_mode(self) -> str:
        return "json" if self.params is None else "table"

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def blank(cls) -> "AutomationEditor":
        form = cls()
        form.definition.update(captcha=dict(DEFAULT_CAPTCHA), limits=dict(DEFAULT_LIMITS))
        form.steps = [editor.step_row_from_step(DEFAULT_STEP)]
        return form

    @classmethod
    def from_version(cls, automation: Automation, version: AutomationVersion | None) -> "AutomationEditor":
        definition = version.definition() if version else dict(DEFINITION_DEFAULTS)
        form = cls(name=automation.name, slug=automation.slug, description=automation.description,
                   definition=definition, replay_cache=automation.replay_cache,
                   base_version=version.number if version else 0, base_revision=automation.revision)
        form.steps = blocks.rows_from_steps(definition["steps"])
        _, form.step_paths = blocks.steps_from_rows(form.steps)
        blocks.values_hints(definition["steps"], form.steps, form.step_paths, expand=lambda steps: calls_problems(
            workspace=automation.workspace, spec=AutomationSpec(steps=steps, surface=definition["surface"],
                                                                allowed_domains=definition["allowed_domains"]),
            slug=automation.slug)[0].steps)
        step_lines.close_long(form.steps)
        form.set_param_schema(definition["param_schema"])
        form.output_schema_json = editor.pretty(definition["output_schema"])
        form.safety_json = editor.pretty(definition.get("safety") or {})
        return form

    def set_param_schema(self, schema: dict[str, Any], mode: str | None = None) -> None:
        rows = editor.param_rows_from_schema(schema) if mode != "json" else None
        self.params = rows
        self.param_json = editor.pretty(schema)
        self.param_extra = editor.schema_extra(schema)

    @classmethod
    def from_post(cls, data: QueryDict) -> "AutomationEditor":
        form = cls(name=data.get("name", "").strip(), slug=data.get("slug", "").strip(),
                   description=data.get("description", "").strip(), change_note=data.get("change_note", "").strip(),
                   base_version=_version_number(data.get("base_version", "")),
                   base_revision=_version_number(data.get("base_revision", "")))
        form.steps = editor.step_rows_from_post(data)
        form.params, form.param_json, form.param_extra = None, data.get("param_json", ""), data.get("param_extra", "")
        if data.get("param_mode") != "json":
            form.params = editor.param_rows_from_post(data)
        form.output_schema_json = data.get("output_schema", "")
        form.safety_json = data.get("safety", "")
        form.replay_cache = data.get("replay_cache") == "on" if "replay_cache_shown" in data else None
        form.definition = form._definition_from(data)
        if "safety" in data:  # forms without the box keep the stored policy
            form.definition["safety"] = json_field(form.safety_json, "safety", form.errors)
        return form

    def _definition_from(self, data: QueryDict) -> dict[str, Any]:
        errors = self.errors
        steps, self.step_paths = blocks.steps_from_rows(self.steps)
        for index, row in enumerate(self.steps):  # a row that does not read back, a block never closed
            if row.errors.get(""):
                row.errors[""] = [f"{self.step_named(index)}: {message}" for message in row.errors[""]]
        blocks.values_hints(steps, self.steps, self.step_paths)
        if self.params is None:
            param_schema = json_field(self.param_json, "param_schema", errors)
        else:
            param_schema, messages = editor.schema_from_param_rows(self.params, self.param_extra)
            if messages:
                errors.setdefault("param_schema", []).extend(messages)
        criteria: dict[str, Any] = {"output_valid": data.get("output_valid") == "on"}
        for key in ("url_contains", "text_visible"):
            if data.get(key, "").strip():
                criteria[key] = data[key].strip()
        if judges := [j for j in data.getlist("judges") if j]:
            criteria["judges"] = judges
            criteria["judge_rule"] = data.get("judge_rule", "majority")
        solvers = [data.get(f"captcha_solver_{i}", "") for i in range(1, len(editor.SOLVERS) + 1)]
        return {
            "surface": data.get("surface", "web"),
            "start_url": data.get("start_url", "").strip(),
            "allowed_domains": domain_entries(data.get("allowed_domains", "")),
            "goal": data.get("goal", "").strip(),
            "steps": steps,
            "param_schema": param_schema,
            "credentials": data.getlist("credentials"),
            "success_criteria": criteria,
            "output_schema": json_field(self.output_schema_json, "output_schema", errors),
            "limits": {"max_steps": data.get("max_steps", "").strip() or 100,
                       "max_seconds": data.get("max_seconds", "").strip() or 600},
            "captcha": {"enabled": data.get("captcha_enabled") == "on",
                        "solvers": list(dict.fromkeys(s for s in solvers if s)),
                        "max_attempts": data.get("captcha_max_attempts", "").strip() or 3,
                        "letter_case": data.get("captcha_letter_case", "").strip() or "unknown"},
            "model_grounding": data.get("model_grounding") == "on",
            "sign_in": editor.sign_in_from_post(data, self.steps),
        }

    # -- errors ------------------------------------------------------------------------------
    @property
    def has_errors(self) -> bool:
        """Anything to fix: the form's own errors, the services', or a row's."""
        return bool(self.errors) or any(row.errors for row in self.steps)

    def add_service_error(self, exc: ServiceError) -> None:
        """Attach a refused save's error: a change made meanwhile (`base_version`, `base_revision`)
        as the conflict shown above the form, anything else as field errors."""
        if "base_version" in exc.fields or "base_revision" in exc.fields:
            self.conflict.append(exc.message)
        else:
            self.add_errors(exc.fields or {"definition": [exc.message]})

    def step_named(self, index: int) -> str:
        """Row `index` as the page shows it: "Step 3 (fill “Amount”)" (`field_errors.step_place`)."""
        row = self.steps[index]
        return step_place(index + 1, row.kind, str(row.values.get("name") or ""))

    def add_errors(self, fields: dict[str, list[str]]) -> None:
        """Attach service field errors (`steps.2.click.target`, `limits.max_steps`...) in plain
        words (`field_errors.error_sentence`): a step's under its field on its row (steps inside
        blocks too: "steps.1.steps.0.value"), or at the row's head when the row has no place for
        that field; the others under their box or section. A message already there is not repeated."""
        surface = str(self.definition.get("surface") or "web")
        for key, messages in fields.items():
            found = blocks.row_place(key, self.step_paths) if key.startswith("steps.") else None
            if found is not None:
                index, rest = found
                slot = rest[0] if rest and rest[0] in editor.ROW_ERROR_SLOTS else ""
                where, label = self.step_named(index), step_field_label(rest)
                placed = self.steps[index].errors.setdefault(slot, [])
            else:
                where, label = "", setting_label(key)
                placed = self.errors.setdefault(key, [])
            for message in messages:
                if "." in key or where:  # a setting inside a box, or a step's field: named
                    sentence = error_sentence(message, label=label, where=where, surface=surface)
                else:  # under its own box: pydantic's wording only is made plain
                    sentence = plain_message(message, label, surface=surface)[0]
                if sentence not in placed:
                    placed.append(sentence)

    def section_errors(self, prefix: str) -> list[str]:
        """The messages shown under a box or section: its key's and its sub-keys' (each names its field)."""
        return [m for k, msgs in self.errors.items() if k == prefix or k.startswith(prefix + ".") for m in msgs]

    @property
    def error_count(self) -> int:
        return sum(len(msgs) for msgs in self.errors.values()) + sum(
            len(msgs) for row in self.steps for msgs in row.errors.values())

    @property
    def error_summary(self) -> list[str]:
        """The messages that have no place in the page (`PLACED`), for the list above the form:
        every other one is shown once, under what it is about."""
        return [m for k, msgs in self.errors.items() if k.split(".")[0] not in PLACED for m in msgs]

    # -- template helpers --------------------------------------------------------------------
    @property
    def steps_closed(self) -> bool:
        """Every row is shown closed (a long automation as stored: dashboard.step_lines)."""
        return bool(self.steps) and all(row.closed and not row.errors for row in self.steps)

    @property
    def allowed_domains_text(self) -> str:
        """The allowed domains, or the start URL's host proposed when there are none."""
        domains = self.definition.get("allowed_domains") or []
        return "\n".join(domains) if domains else editor.domain_proposed(self.definition.get("start_url") or "")

    @property
    def captcha(self) -> dict[str, Any]:
        return {**DEFAULT_CAPTCHA, **(self.definition.get("captcha") or {})}

    @property
    def solver_slots(self) -> list[str]:
        chosen = list(self.captcha.get("solvers") or [])
        return chosen + [""] * (len(editor.SOLVERS) - len(chosen))

    @property
    def limits(self) -> dict[str, Any]:
        limits = {**DEFAULT_LIMITS, **(self.definition.get("limits") or {})}
        return {k: f"{v:g}" if isinstance(v, float) else v for k, v in limits.items()}

    @property
    def sign_in(self) -> dict[str, Any]:
        """The sign-in box's values: credential, domain and the check's fields."""
        section = self.definition.get("sign_in") or {}
        check = section.get("check") or {}
        if isinstance(check.get("timeout_s"), float):
            check = {**check, "timeout_s": f"{check['timeout_s']:g}"}
        return {"credential": section.get("credential", ""), "domain": section.get("domain", ""), **check}

    @property
    def criteria(self) -> dict[str, Any]:
        return {"output_valid": True, **(self.definition.get("success_criteria") or {})}

    @property
    def judge_choices(self) -> list[tuple[str, bool]]:
        """The platform's judges (and any the automation names that it no longer offers), ticked when chosen."""
        chosen = list(self.criteria.get("judges") or [])
        return [(name, name in chosen) for name in dict.fromkeys([*judge_names(), *chosen])]
