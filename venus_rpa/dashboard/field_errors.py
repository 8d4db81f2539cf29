"""Errors in the user's words, under the inputs they are about: the one way every dashboard form
places a service's field errors.

Services answer with field errors keyed as in the API (`params.title`, `param_schema`,
`steps.2.url`, `param_mapping.order_id`). `errors_place` puts each under the form input it is
about and returns the rest for the form's summary, each named by its label (never an internal
key). `json_object_read` reads a JSON object typed into a box, with "line L, column C: what is
wrong" as its message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from venus_rpa.core.parsers import json_error_text, json_loads_bounded

LABELS = {
    "param_schema": "Parameters", "params": "Parameters", "output_schema": "Output schema", "start_url": "Start URL",
    "allowed_domains": "Allowed domains", "success_criteria": "Success criteria", "credentials": "Credentials",
    "param_mapping": "Parameter mapping", "sign_in": "Sign-in", "captcha": "CAPTCHA", "limits": "Limits",
    "safety": "Safety policy", "goal": "Goal", "steps": "Steps", "slug": "Slug", "name": "Name", "surface": "Surface",
    "cron": "Schedule", "timezone": "Time zone", "automation": "Automation", "url": "URL", "domains": "Domains",
    "fields": "Fields", "body": "Body", "definition": "Definition", "model_grounding": "Model grounding",
    "max_steps": "Maximum steps", "max_seconds": "Maximum seconds", "non_field_errors": "",
}


def _words(part: str) -> str:
    return f"item {int(part) + 1}" if part.isdigit() else part.replace("_", " ")


def field_label(key: str) -> str:
    """`param_schema` → "Parameters", `steps.2.url` → "Step 3 › url", `params.due_date` → "Due date"."""
    parts = [p for p in key.split(".") if p]
    if not parts:
        return ""
    if parts[0] == "steps" and len(parts) > 1 and parts[1].isdigit():
        head, rest = f"Step {int(parts[1]) + 1}", parts[2:]
    elif parts[0] == "params" and len(parts) > 1:
        head, rest = _words(parts[1]).capitalize(), parts[2:]
    else:
        head, rest = LABELS.get(parts[0], _words(parts[0]).capitalize()), parts[1:]
    return " › ".join([head, *(_words(p) for p in rest)]) if head else " › ".join(_words(p) for p in rest)


def errors_place(fields: dict[str, list[str]], inputs: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
    """(errors by input name, the rest as "Label: message" lines for the form's summary).

    A key goes under the input of its own name; `params.<name>` under the input `<name>` when the
    form has one (the launcher), else under the input `params` as "Name: message" (a JSON box);
    `param_mapping.order_id` under `param_mapping` as "order id: message". Nothing is dropped.
    """
    names = set(inputs)
    placed: dict[str, list[str]] = {}
    rest: list[str] = []
    for key, messages in fields.items():
        head, _, tail = key.partition(".")
        first = tail.split(".")[0]
        if key in names:
            placed.setdefault(key, []).extend(messages)
        elif head == "params" and first in names:
            placed.setdefault(first, []).extend(messages)
        elif head in names:
            label = field_label(key) if head == "params" else field_label(tail)
            placed.setdefault(head, []).extend(f"{label}: {m}" for m in messages)
        else:
            label = field_label(key)
            rest.extend(f"{label}: {m}" if label else m for m in messages)
    return placed, rest


def json_object_read(text: str, label: str, errors: list[str]) -> dict[str, Any]:
    """A JSON object typed into a box (empty: {}); a problem is appended to `errors` as
    "<label>: line L, column C: what is wrong" and {} returned."""
    if not text.strip():
        return {}
    try:
        value = json_loads_bounded(text)
    except ValueError as exc:
        text = json_error_text(exc)
        errors.append(f"{label}: {text}" if label else text[:1].upper() + text[1:])
        return {}
    if not isinstance(value, dict):
        errors.append(f"{label}: must be a JSON object, in {{ }}." if label else "Must be a JSON object, in { }.")
        return {}
    return value


def json_field(text: str, name: str, errors: dict[str, list[str]]) -> dict[str, Any]:
    """`json_object_read` for a form's JSON box: a problem goes under the input `name`."""
    problems: list[str] = []
    value = json_object_read(text, "", problems)
    if problems:
        errors.setdefault(name, []).extend(problems)
    return value


# -- the automation editor's messages --------------------------------------------------------------
# The services answer with pydantic's own wording ("Input should be less than or equal to 300",
# "Value error, a target needs ...") under internal keys (`steps.3.fill.timeout_s`). The editor
# shows every such message as one plain sentence naming the step as its row shows it and the field
# by its label: `error_sentence` is the one place that wording is made.

# The editor's labels of a step's fields (as _step_row.html shows them) and of a target's parts.
STEP_LABELS = {
    "url": "URL", "target": "Target", "value": "Value", "option": "Option", "checked": "Checked", "key": "Key",
    "text": "Text", "url_contains": "URL contains", "absent": "Must be absent", "from_input": "File given at launch",
    "filename": "File name", "content": "File content", "mime_type": "MIME type", "into": "Into",
    "from_file": "From a downloaded file", "attribute": "Read", "all": "Every match", "pattern": "Pattern",
    "append": "Add to the list", "goal": "Goal", "max_actions": "Max actions", "repeat_limit": "Repeat limit",
    "timeout_s": "Timeout (s)", "name": "Step name", "sign_in": "Sign-in step", "kind": "Kind",
    "automation": "Automation to run here", "version": "Version", "params": "Its parameters",
    "condition": "Condition", "until": "Condition", "max_iterations": "Max iterations", "on_cap": "At the cap",
    "stop_on_failure": "Stop at the first failed item", "lanes": "Items at once", "reason": "Reason",
    "steps": "The block's steps", "else": "The steps after else",
}
TARGET_LABELS = {
    "text": "Target", "role": "Role", "name": "Name", "label": "Label", "placeholder": "Placeholder", "css": "CSS",
    "resource_id": "Resource id", "nth": "Nth match", "within": "Within", "near": "Near",
    "text_visible": "Text", "url_matches": "URL pattern", "element": "Element", "value": "Value name",
    "op": "Compare", "to": "With", "wait_s": "Wait (s)", "negate": "Not",
}
# The labels of the editor's settings boxes, by key (the boxes themselves: LABELS).
SETTING_LABELS = {
    "limits.max_steps": "Max steps", "limits.max_seconds": "Max seconds", "captcha.enabled": "Handle CAPTCHAs",
    "captcha.solvers": "Solver order", "captcha.max_attempts": "Attempts per automated solver",
    "captcha.letter_case": "Letter case in text CAPTCHAs", "success_criteria.url_contains": "URL contains",
    "success_criteria.text_visible": "Text visible", "success_criteria.judges": "Judge models",
    "success_criteria.judge_rule": "Votes combine by", "sign_in.check": "The signed-in check",
    "sign_in.check.text_visible": "Signed in when this text is visible",
    "sign_in.check.url_contains": "…and the URL contains", "sign_in.check.url_excludes": "…and the URL does not contain",
    "sign_in.check.timeout_s": "Wait for the text (s)", "sign_in.credential": "Credential", "sign_in.domain": "Domain",
}
# Names the runtime's own messages use for fields, in the editor's words; "css or resource_id"
# becomes "CSS or resource id" (Android) or "CSS" (other surfaces: ANDROID_ONLY).
MESSAGE_WORDS = {
    "css": "CSS", "resource_id": "resource id", "url_contains": "URL contains", "url_excludes": "URL does not contain",
    "text_visible": "text visible", "url_matches": "URL pattern", "from_input": "“File given at launch”",
    "from_file": "“From a downloaded file”", "filename": "file name", "max_iterations": "max iterations",
}
ANDROID_ONLY = {"resource_id"}  # Target fields that only Android automations use (workers.envs.android)
PATTERN_WORDS = {
    r"^[A-Za-z_][A-Za-z0-9_]*$": "must start with a letter or _ and hold only letters, digits and _",
    r"^[a-z0-9][a-z0-9-]*$": "must be an automation's slug: lowercase letters, digits and hyphens",
}
_EXPECTED = r"'[^']*'(?:, '[^']*')*(?: or '[^']*')?"
# pydantic_core's message templates, in order, and what the editor says instead ({0}: the label).
_TEMPLATES: list[tuple[re.Pattern[str], str]] = [(re.compile(p), s) for p, s in [
    (r"Field required", "{0} is required"),
    (r"String should have at least 1 character", "{0} is required"),
    (r"String should have at least (\d+) characters", "{0} must be at least {1} characters long"),
    (r"String should have at most (\d+) characters? \(this one has (\d+)\)",
     "{0} is too long: at most {1} characters (this one has {2})"),
    (r"String should have at most (\d+) characters?", "{0} is too long: at most {1} characters"),
    (r"String should match pattern '(.*)'", "{0} {pattern}"),
    (r"Input should be greater than or equal to (\S+)", "{0} must be {1} or more"),
    (r"Input should be greater than (\S+)", "{0} must be more than {1}"),
    (r"Input should be less than or equal to (\S+)", "{0} must be {1} or less"),
    (r"Input should be less than (\S+)", "{0} must be less than {1}"),
    (r"Input should be a valid integer.*", "{0} must be a whole number"),
    (r"Input should be a (?:valid|finite) number.*", "{0} must be a number"),
    (r"Input should be a valid boolean.*", "{0} must be on or off (true or false)"),
    (r"Input should be a valid string", "{0} must be text"),
    (r"Input should be a valid (?:list|array|tuple|set).*", "{0} must be a list"),
    (r"Input should be (?:a valid dictionary|an object).*", "{0} must be a JSON object, in {{ }}"),
    (rf"Input should be ({_EXPECTED})", "{0} must be one of {1}"),
    (r"(?:List|Dictionary|Tuple) should have at least 1 item after validation.*", "{0} must not be empty"),
    (r"(?:List|Dictionary|Tuple) should have at least (\d+) items after validation.*", "{0} must hold at least {1}"),
    (r"(?:List|Dictionary|Tuple) should have at most (\d+) items? after validation, not (\d+)",
     "{0} holds too many: at most {1} (this one has {2})"),
    (r"Extra inputs are not permitted", "{0} is not a setting of this kind of step"),
    (rf"Input tag '(.*)' found using 'kind' does not match any of the expected tags: {_EXPECTED}",
     "‘{1}’ is not a kind of step"),
    (r"Unable to extract tag using discriminator 'kind'", "The step has no kind"),
]]
_VALUE_ERROR = re.compile(r"^(?:Value error|Assertion failed), ")
_LIST = re.compile(r"\b((?:[\w-]+, )*[\w-]+) or ([\w-]+)\b")


def step_place(number: int, kind: str, name: str = "") -> str:
    """A step as the editor shows its row: "Step 3 (fill “Amount”)", numbered as the page numbers
    its rows (blocks' if/else/end rows included)."""
    name = " ".join(str(name or "").split())
    name = name if len(name) <= 60 else name[:59] + "…"
    return f"Step {number} ({kind} “{name}”)" if name else f"Step {number} ({kind})"


def step_field_label(parts: list[str]) -> str:
    """The label of a step's field by the path after the step: ["target", "nth"] → "Target › Nth
    match", ["params", "order"] → "Its parameters › order", [] → "" (the step itself)."""
    if not parts:
        return ""
    head = STEP_LABELS.get(parts[0], _words(parts[0]).capitalize())
    rest = [TARGET_LABELS.get(p, _words(p)) for p in parts[1:]]
    if parts[:2] == ["target", "text"]:  # the Target box itself
        rest = rest[1:]
    return " › ".join([head, *rest])


def setting_label(key: str) -> str:
    """The label of a setting's key: "limits.max_steps" → "Max steps", "captcha.solvers.0" →
    "Solver order › item 1"; other keys as `field_label`."""
    parts = key.split(".")
    for cut in range(len(parts), 0, -1):
        if (label := SETTING_LABELS.get(".".join(parts[:cut]))) is not None:
            return " › ".join([label, *(_words(p) for p in parts[cut:])])
    return field_label(key)


def _runtime_words(text: str, surface: str) -> str:
    """A runtime message's field names in the editor's words; Android-only ones dropped from
    "a, b or c" lists elsewhere (a web automation has no resource id to give)."""
    def listed(match: re.Match[str]) -> str:
        items = [*match.group(1).split(", "), match.group(2)]
        if surface != "android":
            items = [item for item in items if item not in ANDROID_ONLY] or items
        return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"

    text = _LIST.sub(listed, text)
    return re.sub(r"\b[a-z][a-z_]*\b", lambda m: MESSAGE_WORDS.get(m.group(0), m.group(0)), text)


def _sentence(text: str) -> str:
    text = text.strip()
    if "_" not in text.split(" ", 1)[0]:  # a step kind as the editor lists it (wait_for) stays as it is
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def plain_message(message: str, label: str, *, surface: str = "web") -> tuple[str, bool]:
    """One service message in plain words: (the sentence, whether it names `label` itself).
    pydantic's templates become "<label> must be 300 or less."; a validator's "Value error, a
    target needs ..." its own sentence ("Target needs ...", the internal names in the editor's
    words); any other message (the services' own, already in words) is kept as it is."""
    message = message.strip()
    for pattern, words in _TEMPLATES:
        if match := pattern.fullmatch(message):
            groups = match.groups()
            pattern_words = PATTERN_WORDS.get(groups[0], "is not in the expected form") if "{pattern}" in words else ""
            text = words.format(label or "This value", *groups, pattern=pattern_words)
            return _sentence(text), "{0}" in words and bool(label)
    if not _VALUE_ERROR.match(message):
        return _sentence(message) if message[:1].islower() else message, False
    text = _runtime_words(_VALUE_ERROR.sub("", message), surface)
    subject = re.sub(r"^(?:a|an|the) ", "", text, flags=re.IGNORECASE)
    last = label.rsplit(" › ", 1)[-1]
    if last and subject.lower().startswith(last.lower() + " "):  # "a target needs ..." under Target
        return _sentence(label + subject[len(last):]), True
    return _sentence(text), False


def error_sentence(message: str, *, label: str = "", where: str = "", surface: str = "web") -> str:
    """A service message as the editor shows it: "Step 4 (fill “Amount”): Timeout (s) must be
    300 or less.", "Step 2 (goto) › URL: Not a web address: ...", "Max steps must be 1 or more.".
    `where`: the step (`step_place`), `label`: the field; either may be empty."""
    sentence, named = plain_message(message, label, surface=surface)
    place = where if named or not label else (f"{where} › {label}" if where else label)
    return f"{place}: {sentence}" if place else sentence
