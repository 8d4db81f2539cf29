"""System prompts per surface: our own wording, replaceable by operator files.

The built-in templates in `prompt_packs/` follow the UI-Venus-2 structure (reference §5.1): a
role line, the actions with one line each (names and arguments exactly those of the action
models), the coordinate-range sentence, rules, the output format (`<think>…</think>` then one
`<action>…</action>`), and the user task as the last line on navigation surfaces. They are not
the official prompts; measure any wording change on the evaluation suite before release.

Overrides: when `VENUS_PROMPT_DIR` (or the `prompt_dir` argument) names a folder, a file
`<folder>/<surface>.txt` there replaces the built-in template of that surface; surfaces with
no file keep ours. Surfaces: browser, mobile, desktop, captcha, grounding, judge, step_judge.

Slots, filled by literal search and replace only (templates may hold other braces, which are
left alone; nothing in a template is ever formatted or evaluated):

| Placeholder | Also accepted | Surfaces | Filled with |
|---|---|---|---|
| `{task}` | `{user_task}` | browser, mobile, desktop (required) | the user's task text |
| `{current_date}` | | browser | today's date, as the caller writes it |
| `{password}` | `{sudo_password}` | desktop | a secret *placeholder token*; the executor puts the real value in when a Type action contains the token |
| `{instruction}` | | grounding (required) | the element description, per call (`fill_instruction`) |
| `{goal}` | | judge, step_judge (required) | the automation's goal (judge: voting on a whole trace), or the agent step's goal (step_judge: one action) |

Startup checks (`load_prompt`, `check_prompts`): the file is readable, valid UTF-8, not empty,
and holds the required slot; otherwise a `PromptError` names the file and the problem. Every
`Prompt` carries the SHA-256 of its template, to be recorded in each run's trace.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from workers.errors import ConfigurationError

PROMPT_DIR_ENV = "VENUS_PROMPT_DIR"
PROMPT_SURFACES = ("browser", "mobile", "desktop", "captcha", "grounding", "judge", "step_judge")
NAVIGATION_SURFACES = ("browser", "mobile", "desktop")
BUILTIN_DIR = Path(__file__).parent / "prompt_packs"


class PromptError(ConfigurationError):
    """A prompt template cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Prompt:
    """A filled prompt. `sha256` is the hash of the template file's bytes (before the slots are
    filled), so it identifies the prompt version; `source` is "builtin:<surface>" or the path of
    the override file."""

    text: str
    sha256: str
    source: str


@dataclass(frozen=True)
class Slot:
    """One documented placeholder (see the module docstring)."""

    placeholder: str
    aliases: tuple[str, ...]
    surfaces: tuple[str, ...]
    required: bool
    meaning: str


SLOTS = (
    Slot("{task}", ("{user_task}",), NAVIGATION_SURFACES, True, "the user's task, last in the prompt"),
    Slot("{current_date}", (), ("browser",), False, "today's date"),
    Slot(
        "{password}", ("{sudo_password}",), ("desktop",), False,
        "a secret placeholder token the executor replaces when typing",
    ),
    Slot("{instruction}", (), ("grounding",), True, "the description of the element to locate"),
    Slot("{goal}", (), ("judge", "step_judge"), True, "the goal a judge model checks (the automation's, or the agent step's)"),
)
# Slots load_prompt fills, by the keyword argument that supplies them.
_FILLED = {"{task}": "task", "{user_task}": "task", "{goal}": "task", "{current_date}": "current_date",
           "{password}": "password", "{sudo_password}": "password"}
_FILL_RE = re.compile("|".join(re.escape(name) for name in _FILLED))


def documented_slots() -> list[Slot]:
    """The placeholders templates may use, for documentation and operator tooling."""
    return list(SLOTS)


def load_prompt(
    surface: str, *, task: str = "", current_date: str = "", password: str = "", prompt_dir: str | None = None
) -> Prompt:
    """The system prompt for `surface` with its slots filled (grounding's `{instruction}` stays
    for `fill_instruction`). `prompt_dir` defaults to the `VENUS_PROMPT_DIR` environment variable."""
    template, raw, source = _read_template(surface, prompt_dir)
    _check_slots(surface, template, source)
    values = {"task": task, "current_date": current_date, "password": password}
    # One pass over the template, so text put into one slot is never searched for another.
    text = _FILL_RE.sub(lambda match: values[_FILLED[match.group(0)]], template)
    return Prompt(text=text, sha256=hashlib.sha256(raw).hexdigest(), source=source)


def check_prompts(prompt_dir: str | None = None) -> dict[str, Prompt]:
    """Load every surface's template once, as a worker's startup check; raises PromptError."""
    return {surface: load_prompt(surface, prompt_dir=prompt_dir) for surface in PROMPT_SURFACES}


def fill_instruction(prompt: Prompt, instruction: str) -> str:
    """The grounding prompt text for one element description (a trailing full stop dropped)."""
    return prompt.text.replace("{instruction}", instruction.strip().rstrip(".。").strip())


def _read_template(surface: str, prompt_dir: str | None) -> tuple[str, bytes, str]:
    """(template text, its bytes, source) for surface, from the override folder if it has one."""
    if surface not in PROMPT_SURFACES:
        raise PromptError(f"unknown prompt surface {surface!r}; expected one of {', '.join(PROMPT_SURFACES)}")
    folder = prompt_dir if prompt_dir is not None else os.environ.get(PROMPT_DIR_ENV, "")
    path, source = BUILTIN_DIR / f"{surface}.txt", f"builtin:{surface}"
    if folder:
        if not Path(folder).is_dir():
            raise PromptError(f"prompt folder {folder} ({PROMPT_DIR_ENV}) is not a readable directory")
        override = Path(folder) / f"{surface}.txt"
        if override.exists():
            path, source = override, str(override)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PromptError(f"prompt file {path} cannot be read: {exc.strerror or exc}") from None
    try:
        template = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PromptError(f"prompt file {path} is not valid UTF-8 (byte {exc.start})") from None
    if not template.strip():
        raise PromptError(f"prompt file {path} is empty")
    return template, raw, source


def _check_slots(surface: str, template: str, source: str) -> None:
    for slot in SLOTS:
        if slot.required and surface in slot.surfaces:
            names = (slot.placeholder, *slot.aliases)
            if not any(name in template for name in names):
                raise PromptError(
                    f"prompt file {source} ({surface}) lacks the {slot.placeholder} slot for {slot.meaning}: "
                    f"add {' or '.join(names)} where it belongs"
                )
