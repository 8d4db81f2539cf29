"""What the gate sees about one action: `ActionContext`, built by the executor before it acts.

Every field is optional except the action type; the rule layer judges what it is given and fails
closed (R3, "cannot judge") on a commit it has no readable evidence for. Text read from the
screen (page_text, hidden_text, dialog_text, nearby_text) is data, never instructions.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Surface = Literal["web", "android", "desktop"]
_SURFACE_ALIASES = {"browser": "web", "mobile": "android", "captcha": "web"}

ACTION_TYPES = (
    "click", "double_click", "right_click", "long_press", "hover", "type", "press_key", "hotkey", "select",
    "check", "upload", "navigate", "launch_app", "drag", "scroll", "swipe", "wait", "back", "home",
    "screenshot", "get_url", "take_note", "extract", "assert", "submit", "shell", "call_user", "finished",
    "answer",
)
# UI-Venus action names (every surface) and explicit step kinds -> gate action types.
ACTION_ALIASES = {
    "Click": "click", "TripleClick": "click", "MiddleClick": "click", "MouseDown": "click", "MouseUp": "click",
    "DoubleClick": "double_click", "RightClick": "right_click", "LongPress": "long_press", "Hover": "hover",
    "SelectOption": "select", "Drag": "drag", "Scroll": "scroll", "Swipe": "swipe", "Type": "type",
    "Launch": "navigate", "LaunchApp": "launch_app", "GetUrl": "get_url", "TakeNote": "take_note",
    "PressBack": "back", "PressHome": "home", "PressRecent": "home", "PressEnter": "press_key",
    "Hotkey": "hotkey", "KeyDown": "hotkey", "KeyUp": "wait", "Wait": "wait", "GetScreenshot": "screenshot",
    "CallUser": "call_user", "Finished": "finished", "Answer": "answer",
    "goto": "navigate", "fill": "type", "download": "click", "press": "press_key", "wait_for": "wait", "agent": "wait",
    "double-click": "double_click", "doubleclick": "double_click", "enter": "press_key", "key": "press_key",
    "launch": "navigate", "open_app": "launch_app",
}


class TargetInfo(BaseModel):
    """The element the action acts on, resolved from the DOM / accessibility tree (web),
    uiautomator XML (Android), AT-SPI/UIA or OCR around the point (desktop)."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(default="", description="ARIA / AT-SPI role: button, link, menuitem, textbox, checkbox, tab...")
    name: str = Field(default="", description="Accessible name.")
    text: str = Field(default="", description="Visible text (OCR text at the point on desktop).")
    tag: str = ""
    input_type: str = Field(default="", description="<input type>, e.g. password, search, submit.")
    href: str = ""
    aria_label: str = ""
    placeholder: str = Field(default="", description="Placeholder, or Android hint.")
    value: str = Field(default="", description="Current value of a field (the pending command for a terminal).")
    autocomplete: str = Field(default="", description="autocomplete attribute: cc-number, one-time-code, current-password...")
    resource_id: str = Field(default="", description="Android resource-id.")
    content_desc: str = Field(default="", description="Android content-desc.")
    class_name: str = Field(default="", description="Android / desktop widget class.")
    attributes: dict[str, str] = Field(default_factory=dict, description="Other attributes: id, name, class, title, data-testid...")
    hidden: bool = Field(default=False, description="Present in the tree but not visible to a person.")
    rect: tuple[float, float, float, float] | None = None
    form_method: str = Field(default="", description="For a submit control or a form field: the method of the form it "
                                                     "submits (get, post, dialog); empty when it submits no form.")
    form_action: str = Field(default="", description="The address that form submits to.")
    opens: str = Field(default="", description="What activating it opens instead of committing: dialog, menu, listbox, "
                                               "popover (aria-haspopup, popovertarget, modal toggles).")
    scripted: bool = Field(default=False, description="Inline script or framework hooks decide what it does (onclick, "
                                                      "data-method, hx-post, href '#' or 'javascript:').")


class FormField(BaseModel):
    """One visible field of the form an action submits or types into (never a typed value; for a
    select, the option shown as chosen)."""

    model_config = ConfigDict(extra="forbid")

    label: str = ""
    input_type: str = ""
    autocomplete: str = ""
    name: str = ""
    filled: bool = False
    chosen: str = Field(default="", description="A select's chosen option label.")


class ActionContext(BaseModel):
    """One action about to run, with what the screen says around it.

    `dialog_text` is the title and message of the modal/sheet holding the target (empty when none),
    `form_submit` the label of the submit button of the focused field's form (for key commits),
    `form_fields` that form's visible fields (labels and kinds, never values),
    `credential_domains` the domains where the credential referenced by a `{{credentials.*}}`
    placeholder in `typed_text` may be typed.
    """

    model_config = ConfigDict(extra="forbid")

    surface: Surface = "web"
    action_type: str
    target: TargetInfo | None = None
    nearby_text: list[str] = Field(default_factory=list, description="Labels, headings, surrounding text; nearest first.")
    dialog_text: str = ""
    form_submit: str = ""
    form_fields: list[FormField] = Field(default_factory=list, description="The visible fields of the target's form.")
    typed_text: str = ""
    key: str = Field(default="", description="Key or chord: 'Enter', 'ctrl+enter', 'shift+delete'.")
    option: str = Field(default="", description="The option chosen by a select action.")
    checked: bool | None = Field(default=None, description="The state a check action sets.")
    file_name: str = ""
    url: str = ""
    destination_url: str = ""
    page_title: str = ""
    window_title: str = ""
    app_package: str = ""
    app_name: str = ""
    page_text: str = Field(default="", description="Visible text excerpt (untrusted).")
    hidden_text: str = Field(default="", description="Text in the tree that a person cannot see (untrusted).")
    model_thought: str = ""
    model_asked: str = Field(default="", description="What the model asked the user (CallUser content).")
    credential_domains: list[str] = Field(default_factory=list)
    allowed_domains: list[str] = Field(default_factory=list)
    allowed_apps: list[str] = Field(default_factory=list)
    secure_screen: bool = Field(default=False, description="Android FLAG_SECURE: the screenshot is black.")
    recent_actions: list[str] = Field(default_factory=list, description="Short descriptions of the last few actions.")

    @field_validator("surface", mode="before")
    @classmethod
    def _surface_alias(cls, value: Any) -> Any:
        return _SURFACE_ALIASES.get(value, value)

    @field_validator("action_type", mode="before")
    @classmethod
    def _action_alias(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = ACTION_ALIASES.get(value, ACTION_ALIASES.get(value.lower(), value.lower()))
        if value not in ACTION_TYPES:
            raise ValueError(f"unknown action type {value!r}")
        return value


def action_fields(action: Any) -> dict[str, Any]:
    """ActionContext fields carried by a UI-Venus action or an explicit step (duck-typed on its
    `type` or `kind`), e.g. Type(content='x') -> {'action_type': 'type', 'typed_text': 'x'}.

    The caller adds what the screen says (target, url, nearby text...).
    """
    name = getattr(action, "type", None) or getattr(action, "kind", None)
    fields: dict[str, Any] = {"action_type": ACTION_ALIASES.get(name, name)}
    if name in ("Type", "fill"):
        fields["typed_text"] = getattr(action, "content", None) or getattr(action, "value", "")
    elif name in ("Launch", "goto"):
        fields["destination_url"] = action.url
    elif name == "LaunchApp":
        fields["app_name"] = action.app
    elif name == "PressEnter":
        fields["key"] = "Enter"
    elif name in ("Hotkey", "KeyDown"):
        fields["key"] = "+".join(action.keys)
    elif name == "press":
        fields["key"] = action.key
    elif name in ("CallUser",):
        fields["model_asked"] = action.content
    elif name == "check":
        fields["checked"] = action.checked
    elif name == "select":
        fields["option"] = action.option
    elif name == "upload":
        fields["file_name"] = action.filename or (f"the run's input file {action.from_input!r}"
                                                  if getattr(action, "from_input", None) else "")
    return fields
