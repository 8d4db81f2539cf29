"""Automation definitions the runtime executes: explicit steps, blocks, criteria, limits.

These models are the contract between the stored automation (validated by the web app when a
user saves it) and the executor. Strings may hold `{{param}}` placeholders, filled from the
run's parameters before a step runs, `{{steps.NAME.value}}` placeholders, filled from the values
earlier steps stored (`workers.templating`, `workers.flow`), and `{{credentials.NAME.FIELD}}`
placeholders, which stay in every record and are replaced by the secret only when the executor
types. Blocks (`if`, `repeat`) hold steps of their own (`workers.flow` runs them).

This module holds the step vocabulary (`Target`, the step kinds, `Condition`, the blocks, the `Step`
union) and `AutomationSpec`, which puts the steps together with the automation-wide settings of
`workers.automation_settings` (success criteria, CAPTCHA, safety, sign-in, limits; re-exported here).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

# The automation-wide settings live in workers.automation_settings and templating in
# workers.templating; their names are re-exported here for existing callers.
from workers.automation_settings import (SAVING, CaptchaPolicy, Limits, SafetySettings, SignIn,  # noqa: F401
                                         SignInCheck, SuccessCriteria, bounded)
from workers.templating import (PARAM_RE, SECRET_RE, fill_error, placeholders, render,  # noqa: F401
                                render_step, step_strings, template_params, template_values)

# Bounds of a definition's texts (venus_rpa.automations.checks bounds the number of steps and the
# stored definition's size as well). A definition is typed by people and kept with every run: these
# are far above any real use, and far below what makes a page or an API answer unwieldy.
LABEL_MAX = 500  # a target's text, role name, label or placeholder; an option; a text looked for
URL_MAX = 2000  # a start or goto URL (as AutomationVersion.start_url), a url_contains, a CSS selector
TEXT_MAX = 10_000  # a value typed, an agent's goal, the automation's goal
CONTENT_MAX = 100_000  # the content of a text file an upload step makes
NAME_MAX = 60  # a stored value's or input file's name

Label = bounded(LABEL_MAX)
Url = bounded(URL_MAX)
Text = bounded(TEXT_MAX)

TARGET_ROLES = Literal[
    "button", "link", "textbox", "checkbox", "radio", "combobox", "listbox", "option", "tab",
    "menuitem", "heading", "cell", "row", "img", "searchbox", "spinbutton", "switch", "slider",
]


class Target(BaseModel):
    """What to act on, found without a model.

    A plain string means "the element whose accessible name, label, placeholder, text or
    tooltip is this" (case, spacing and the kind of quote do not matter). The object form
    narrows it: a role and name, a label, a placeholder, exact text, or (last resort) a CSS
    selector. `within` keeps matches inside a region named by its heading, legend, landmark
    label, dialog title or form label ("Log In"); `near` keeps the matches closest to a visible
    text. On Android, a `resource_id` (`package:id/name` or `name`) of the UI hierarchy.
    `nth` picks one of several matches on purpose.
    """

    model_config = ConfigDict(extra="forbid")

    text: Label | None = None
    role: TARGET_ROLES | None = None
    name: Label | None = None
    label: Label | None = None
    placeholder: Label | None = None
    css: Url | None = None
    resource_id: str | None = Field(default=None, max_length=300, description="Android resource id.")
    nth: int | None = Field(default=None, ge=0)
    within: str | None = Field(default=None, max_length=200,
                               description="Heading, legend, landmark, dialog or form name of the region.")
    near: str | None = Field(default=None, max_length=200, description="A visible text the target is closest to.")

    @field_validator("within", "near")
    @classmethod
    def _words(cls, value: str | None, info) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(f"{info.field_name} needs visible words (a heading, a label), not an empty string")
        return value

    @model_validator(mode="after")
    def _one_way(self) -> "Target":
        if not any([self.text, self.role, self.label, self.placeholder, self.css, self.resource_id]):
            raise ValueError("a target needs text, role, label, placeholder, css or resource_id"
                             + (" (within and near only narrow one of these)" if self.within or self.near else ""))
        return self

    def describe(self) -> str:
        scope = (f" within {self.within!r}" if self.within else "") + (f" near {self.near!r}" if self.near else "")
        return self._what() + scope

    def _what(self) -> str:
        if self.role:
            return f"{self.role} {self.name!r}" if self.name else self.role
        for key in ("label", "placeholder", "text", "css", "resource_id"):
            value = getattr(self, key)
            if value:
                return f"{key} {value!r}" if key != "text" else repr(value)
        return "target"


def _as_target(value: Any) -> Any:
    return {"text": value} if isinstance(value, str) else value


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=200, description="What this step does, for people.")
    timeout_s: float = Field(default=10.0, gt=0, le=300, description="How long to wait for the target.")
    sign_in: bool | None = Field(default=None, description="Part of the sign-in block (see `SignIn`): skipped "
                                                           "while a saved session is still signed in.")

    @model_validator(mode="before")
    @classmethod
    def _string_targets(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("target"), str):
            data = {**data, "target": _as_target(data["target"])}
        return data


class GotoStep(_Step):
    kind: Literal["goto"] = "goto"
    url: Url = Field(min_length=1, description="Absolute URL, or a path relative to the start URL.")


class ClickStep(_Step):
    kind: Literal["click"] = "click"
    target: Target


class FillStep(_Step):
    kind: Literal["fill"] = "fill"
    target: Target
    value: Text


class SelectStep(_Step):
    kind: Literal["select"] = "select"
    target: Target
    option: Label = Field(min_length=1, description="Visible label (or value) of the option.")


class CheckStep(_Step):
    kind: Literal["check"] = "check"
    target: Target
    checked: bool = True


NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"


class UploadStep(_Step):
    """Sets a file on the page's file input: the file given with the run for `from_input` (the
    launcher and the API ask for it), or a text file made of `filename` and `content`."""

    kind: Literal["upload"] = "upload"
    target: Target
    from_input: str | None = Field(default=None, max_length=NAME_MAX, pattern=NAME_PATTERN,
                                   description="Name of the run's input file to upload (given at launch).")
    filename: str = Field(default="", max_length=200)
    content: bounded(CONTENT_MAX) = Field(default="", description="Text content of the file.")
    mime_type: bounded(200) = "text/plain"

    @model_validator(mode="after")
    def _a_file(self) -> "UploadStep":
        if self.from_input and (self.filename or self.content):
            raise ValueError("upload takes a file from the run's inputs (from_input) or a filename and content, not both")
        if not self.from_input and not self.filename:
            raise ValueError("upload needs from_input (a file given with the run) or a filename")
        return self


class DownloadStep(_Step):
    """Clicks `target` and waits (up to `timeout_s`) for the download it starts. The file is kept
    as a run artifact (size-limited, its type read from its bytes; programs are refused) and, with
    `into`, stored under that name: `{{steps.NAME.value}}` is its file name, and an `extract`
    step reads it with `from_file: NAME`."""

    kind: Literal["download"] = "download"
    target: Target
    into: str | None = Field(default=None, max_length=NAME_MAX, pattern=NAME_PATTERN,
                             description="Name the file is stored under for later steps.")
    timeout_s: float = Field(default=30.0, gt=0, le=300, description="How long to wait for the download.")


class PressStep(_Step):
    kind: Literal["press"] = "press"
    key: bounded(100) = Field(min_length=1, description="A Playwright key name such as Enter or Control+A.")
    target: Target | None = None


class WaitForStep(_Step):
    kind: Literal["wait_for"] = "wait_for"
    target: Target | None = None
    text: Label | None = None
    url_contains: Url | None = None

    @model_validator(mode="after")
    def _something(self) -> "WaitForStep":
        if not (self.target or self.text or self.url_contains):
            raise ValueError("wait_for needs a target, text or url_contains")
        return self


class AssertStep(_Step):
    kind: Literal["assert"] = "assert"
    target: Target | None = None
    text: Label | None = None
    url_contains: Url | None = None
    absent: bool = Field(default=False, description="Assert that the text or target is NOT there.")

    @model_validator(mode="after")
    def _something(self) -> "AssertStep":
        if not (self.target or self.text or self.url_contains):
            raise ValueError("assert needs a target, text or url_contains")
        return self


class ExtractStep(_Step):
    """Reads the text (or value) of `target` on the page, or, with `from_file`, the text of a
    file a `download` step stored under that name (CSV, TXT, JSON, or an XLSX's first sheet as
    tab-separated lines); `pattern` picks the part to keep."""

    kind: Literal["extract"] = "extract"
    target: Target | None = None
    from_file: str | None = Field(default=None, max_length=NAME_MAX, pattern=NAME_PATTERN,
                                  description="Read the file a download step stored under this name, not the page.")
    into: str = Field(max_length=NAME_MAX, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                      description="Output field to store the value in.")
    attribute: Literal["text", "value"] = "text"
    all: bool = Field(default=False, description="Extract every match as a list.")
    pattern: str | None = Field(default=None, description="Regex; the first group (or whole match) is kept.")
    append: bool = Field(default=False, description="Add to the list already stored under `into` (e.g. one page "
                                                    "of a list per iteration of a repeat block).")

    @model_validator(mode="after")
    def _a_source(self) -> "ExtractStep":
        if (self.target is None) == (self.from_file is None):
            raise ValueError("extract reads a target on the page or a downloaded file (from_file): exactly one of them")
        if self.from_file and self.attribute != "text":
            raise ValueError("extract from a file reads its text; attribute must be 'text'")
        return self


class AgentStep(_Step):
    kind: Literal["agent"] = "agent"
    goal: Text = Field(min_length=1, description="A natural-language sub-goal for the UI-Venus loop.")
    max_actions: int = Field(default=30, ge=1, le=200, description="Model turns before the step gives up.")
    timeout_s: float = Field(default=300.0, gt=0, le=3600, description="Time budget, not counting waits for a person.")
    repeat_limit: int = Field(default=5, ge=2, le=50, description="Identical consecutive actions that count as stuck.")
    into: str | None = Field(default=None, max_length=NAME_MAX, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                             description="Output field for Finished(content); default 'result'.")


MAX_BLOCK_DEPTH = 4  # blocks inside blocks, at most this deep


class Condition(BaseModel):
    """A check of the page or of the values, made without a model. Exactly one of:
    `text_visible` (the text is shown), `element` (a target is present, as an explicit step's
    target), `url_matches` (a regular expression searched in the current URL, run bounded),
    `value` (a step value's NAME compared by `op` with `to`: a literal, or another value or a
    parameter as `{{steps.OTHER.value}}` / `{{param}}`). `negate` turns the answer around;
    `wait_s` is how long a page check waits for the text or element to appear."""

    model_config = ConfigDict(extra="forbid")

    text_visible: str | None = Field(default=None, min_length=1, max_length=500)
    element: Target | None = None
    url_matches: str | None = Field(default=None, min_length=1, max_length=300)
    value: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="A step value's name.")
    op: Literal["equals", "not_equals", "contains", "greater_than", "less_than", "is_empty"] = "equals"
    to: str = Field(default="", max_length=500)
    negate: bool = False
    wait_s: float = Field(default=1.0, ge=0, le=60)

    @model_validator(mode="before")
    @classmethod
    def _string_element(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("element"), str):
            data = {**data, "element": _as_target(data["element"])}
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> "Condition":
        chosen = [k for k in ("text_visible", "element", "url_matches", "value") if getattr(self, k) is not None]
        if len(chosen) != 1:
            raise ValueError("a condition needs exactly one of text_visible, element, url_matches or value"
                             + (f" (it has {', '.join(chosen)})" if chosen else ""))
        return self

    def describe(self) -> str:
        words = (f"text {self.text_visible!r} is visible" if self.text_visible is not None else
                 f"{self.element.describe()} is present" if self.element is not None else
                 f"the URL matches {self.url_matches!r}" if self.url_matches is not None else
                 f"value {self.value!r} {self.op.replace('_', ' ')}" + ("" if self.op == "is_empty" else f" {self.to!r}"))
        return f"not ({words})" if self.negate else words


MAX_LANES = 4  # items of one run worked on at once (ForEachBlock.lanes)


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=200, description="What this block does, for people.")


class IfBlock(_Block):
    """Runs `steps` only if `condition` holds, else the `else` steps (none by default)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    kind: Literal["if"] = "if"
    condition: Condition
    steps: list["Step"] = Field(min_length=1)
    else_steps: list["Step"] = Field(default_factory=list, alias="else")


class RepeatBlock(_Block):
    """Runs `steps` again and again until `until` holds, checked before each iteration (so "click
    Next until it is gone" stops on the last page). `max_iterations` is a required hard cap; when
    it is reached and `until` still does not hold, `on_cap` says whether the run fails (default)
    or goes on after the block."""

    kind: Literal["repeat"] = "repeat"
    until: Condition
    max_iterations: int = Field(ge=1, le=1000, description="Hard cap on iterations (required).")
    on_cap: Literal["fail", "stop"] = "fail"
    steps: list["Step"] = Field(min_length=1)


class ForEachBlock(_Block):
    """Runs `steps` once per item of the run's items (a JSON array or a CSV/XLSX sheet given at
    launch), each item with its own status, error and output; `{{item.FIELD}}` is the current
    item's FIELD. A failed item ends its own iteration and the next item goes on, unless
    `stop_on_failure` (then the run fails at the first failed item; the items not reached stay
    pending and can be retried). At most one per automation, at the top level.

    `lanes` (web automations): how many items are worked on at once, each lane in its own browser
    context that starts signed in as the run is (its cookies, local and session storage, at the
    page the run is on when the block begins). 1 (the default) works through the items one after
    another on the run's own page. See docs/workflows.md, "Lanes"."""

    kind: Literal["for_each"] = "for_each"
    stop_on_failure: bool = Field(default=False, description="Fail the run at the first failed item.")
    lanes: int = Field(default=1, ge=1, le=MAX_LANES,
                       description="Items worked on at once (web only), each in its own signed-in browser context.")
    steps: list["Step"] = Field(min_length=1)


class CallBlock(_Block):
    """Runs another automation of the workspace here, as a step (a shared sign-in, a shared "open
    the report"). `automation`: its slug; `version`: a pinned version number, or none to follow its
    current version (resolved when a run starts and kept for the whole run); `params`: its
    parameters, each a template filled from this automation's parameters and values
    (`{{invoice}}`, `{{steps.total.value}}`, or plain text). The values its steps store are
    returned: later steps use them as `{{steps.NAME.value}}`.

    `steps` is filled by the platform when a run starts (the called version's steps, its start URL
    opened first, its parameters substituted); it is never part of a saved definition."""

    kind: Literal["call"] = "call"
    automation: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$",
                            description="Slug of the automation to run here.")
    version: int | None = Field(default=None, ge=1, description="A pinned version; none: its current version.")
    params: dict[str, str] = Field(default_factory=dict, max_length=50,
                                   description="Its parameters: name -> template filled from this run.")
    steps: list["Step"] = Field(default_factory=list, description="Filled when a run starts; never saved.")
    resolved: str = Field(default="", max_length=200, description="Filled when a run starts: "
                                                                  "what was called ('shared-sign-in v3').")

    @field_validator("params")
    @classmethod
    def _param_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,79}", name):
                raise ValueError(f"{name!r} is not a parameter name")
            if len(text) > 2000:
                raise ValueError(f"the value of {name!r} is longer than 2000 characters")
        return value


class SkipItemStep(BaseModel):
    """Inside a `for_each` block (usually in an `if`): ends the current item's iteration with the
    status `skipped` and `reason` ("already filed"); the next item goes on."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["skip_item"] = "skip_item"
    name: str = Field(default="", max_length=200, description="What this step does, for people.")
    reason: str = Field(default="skipped by a condition", min_length=1, max_length=300)


Step = Annotated[
    Union[
        GotoStep, ClickStep, FillStep, SelectStep, CheckStep, UploadStep, DownloadStep, PressStep, WaitForStep,
        AssertStep, ExtractStep, AgentStep, IfBlock, RepeatBlock, ForEachBlock, CallBlock, SkipItemStep,
    ],
    Field(discriminator="kind"),
]
BLOCKS = (IfBlock, RepeatBlock, ForEachBlock, CallBlock)
CONTROL = (SkipItemStep,)  # steps that neither act nor read: the flow carries them out (workers.flow)
IfBlock.model_rebuild()
RepeatBlock.model_rebuild()
ForEachBlock.model_rebuild()
CallBlock.model_rebuild()
STEPS = TypeAdapter(list[Step])


# Step kinds that act on a web page's own controls (a native select, a checkbox, a file input, a
# download): the Android and desktop executors have none, and an automation there is refused them at save.
WEB_ONLY_KINDS = ("select", "check", "upload", "download")


class AutomationSpec(BaseModel):
    """Everything the runtime needs to execute one version of an automation."""

    model_config = ConfigDict(extra="forbid")

    surface: Literal["web", "android", "desktop"] = "web"
    start_url: Url = ""
    allowed_domains: list[str] = Field(default_factory=list)
    goal: Text = ""
    steps: list[Step] = Field(default_factory=list)
    success_criteria: SuccessCriteria = Field(default_factory=SuccessCriteria)
    output_schema: dict = Field(default_factory=dict)
    limits: Limits = Field(default_factory=Limits)
    captcha: CaptchaPolicy = Field(default_factory=CaptchaPolicy)
    safety: SafetySettings = Field(default_factory=SafetySettings)
    model_grounding: bool = Field(
        default=False, description="Ask the model where a click/fill target is when the DOM grounder cannot find it."
    )
    sign_in: SignIn | None = None

    @field_validator("sign_in", mode="before")
    @classmethod
    def _no_sign_in(cls, value: Any) -> Any:
        return None if value == {} else value  # stored as {} when the automation has no sign-in block

    def sign_in_positions(self) -> list[int]:
        """Indices (in `steps`) of the steps marked as sign-in steps."""
        return [i for i, step in enumerate(self.steps) if getattr(step, "sign_in", None)]
