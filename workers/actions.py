"""The UI-Venus-2 action spaces as typed models, and the mapping of their coordinates to pixels.

This module holds the browser surface and what every surface shares: the base model, the
coordinate types, the terminal marker, `map_point_for` and the surface registry
(`action_space`). The other surfaces live next to it, one module each, because their action
names clash (every surface has a `Click`): `workers.actions_mobile`, `workers.actions_desktop`
and `workers.actions_captcha`.

One union per surface is shared by parsing, validation, execution, storage and the dashboard.
Coordinates stay the model's normalised integers, 0-1000 inclusive on every surface (desktop
and CAPTCHA are trained on 0-999 but 1000 is accepted and clamped when mapped); see
reference/ui-venus-protocol.md §3. Class docstrings double as prompt documentation.
"""

from __future__ import annotations

import functools
import importlib
import math
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

Coord = Annotated[int, Field(ge=0, le=1000)]
Point = tuple[Coord, Coord]


class ActionModel(BaseModel):
    """Base of every action on every surface: immutable, unknown arguments rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class TerminalAction(ActionModel):
    """Marker base of the actions that end the agent's turn instead of touching the screen
    (CallUser, Finished everywhere; Answer on mobile)."""


class Click(ActionModel):
    """Click the element at the point."""

    type: Literal["Click"] = "Click"
    point: Point


class DoubleClick(ActionModel):
    """Double-click the element at the point."""

    type: Literal["DoubleClick"] = "DoubleClick"
    point: Point


class Hover(ActionModel):
    """Move the mouse over the point (opens menus and tooltips)."""

    type: Literal["Hover"] = "Hover"
    point: Point


class SelectOption(ActionModel):
    """Choose option number `index` (0-based) of the select element clicked last."""

    type: Literal["SelectOption"] = "SelectOption"
    index: int = Field(ge=0)


class Drag(ActionModel):
    """Press at `start`, move to `end`, release."""

    type: Literal["Drag"] = "Drag"
    start: Point
    end: Point


class Scroll(ActionModel):
    """Scroll at the point; 'down' reveals content below."""

    type: Literal["Scroll"] = "Scroll"
    point: Point
    direction: Literal["up", "down", "left", "right"]


class Type(ActionModel):
    """Type text into the focused field. No Enter is pressed: add PressEnter() to submit."""

    type: Literal["Type"] = "Type"
    content: str


class Launch(ActionModel):
    """Open the URL in a new tab, which becomes the active page."""

    type: Literal["Launch"] = "Launch"
    url: str

    @field_validator("url")
    @classmethod
    def _http_only(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return value


class GetUrl(ActionModel):
    """Report the current URL in the next message."""

    type: Literal["GetUrl"] = "GetUrl"


class TakeNote(ActionModel):
    """Remember text; notes are repeated in later messages."""

    type: Literal["TakeNote"] = "TakeNote"
    content: str


class LongPress(ActionModel):
    """Hold the mouse button at the point for `duration` seconds."""

    type: Literal["LongPress"] = "LongPress"
    point: Point
    duration: float = Field(default=20, gt=0, le=60)


class PressBack(ActionModel):
    """Go back in history."""

    type: Literal["PressBack"] = "PressBack"


class PressHome(ActionModel):
    """Press the Home key (scroll to the top)."""

    type: Literal["PressHome"] = "PressHome"


class PressEnter(ActionModel):
    """Press Enter."""

    type: Literal["PressEnter"] = "PressEnter"


class Hotkey(ActionModel):
    """Press a key combination of at most 3 keys, e.g. ('ctrl', 'c')."""

    type: Literal["Hotkey"] = "Hotkey"
    keys: tuple[str, ...] = Field(min_length=1, max_length=3)


class Wait(ActionModel):
    """Wait about 3 seconds for the page to settle."""

    type: Literal["Wait"] = "Wait"


class CallUser(TerminalAction):
    """Ask the user a question (missing information, several matching options)."""

    type: Literal["CallUser"] = "CallUser"
    content: str


class Finished(TerminalAction):
    """The task is done; `content` is the answer or result."""

    type: Literal["Finished"] = "Finished"
    content: str = ""


BrowserAction = Annotated[
    Union[
        Click, DoubleClick, Hover, SelectOption, Drag, Scroll, Type, Launch, GetUrl, TakeNote, LongPress,
        PressBack, PressHome, PressEnter, Hotkey, Wait, CallUser, Finished,
    ],
    Field(discriminator="type"),
]
BROWSER_ACTIONS = TypeAdapter(BrowserAction)
# Actions that end the agent's turn instead of touching the page. The marker base makes the
# same isinstance check work for every surface's CallUser / Finished / Answer.
TERMINAL_ACTIONS = (TerminalAction,)
BROWSER_DIVISOR = 1000


def parse_browser_action(data: dict) -> BrowserAction:
    """Validate a dict such as {"type": "Click", "point": [10, 20]} into an action."""
    return BROWSER_ACTIONS.validate_python(data)


def map_point(point: Point, *, width: int, height: int, divisor: int = BROWSER_DIVISOR) -> tuple[int, int]:
    """Map normalised model coordinates to pixels of a width×height image, clamped inside it."""
    x = round(point[0] / divisor * width)
    y = round(point[1] / divisor * height)
    return min(max(x, 0), width - 1), min(max(y, 0), height - 1)


# --- every surface ----------------------------------------------------------------------

SURFACES = ("browser", "mobile", "desktop", "captcha")
# Divisor D of §3, per surface: desktop and CAPTCHA were trained on 0-999.
DIVISORS = {"browser": 1000, "mobile": 1000, "desktop": 999, "captcha": 999, "grounding": 1000}


def _clamp(value: int, size: int) -> int:
    return min(max(value, 0), size - 1)


def map_point_for(surface: str, point: tuple[float, float], *, width: int, height: int) -> tuple[int, int]:
    """Map a model point to pixels of the region the screenshot shows, clamped inside it.

    `width` and `height` are in executor units (CSS viewport pixels, device pixels, monitor
    pixels), never the size of a downscaled image. The rounding rule is the surface's trained
    convention (§3): browser, CAPTCHA and grounding round; mobile and desktop floor. For a crop
    or a secondary monitor, add its origin to the result.
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"screen size must be positive, got {width}x{height}")
    try:
        divisor = DIVISORS[surface]
    except KeyError:
        raise ValueError(f"unknown surface {surface!r}; expected one of {', '.join(DIVISORS)}") from None
    if surface == "browser":
        return map_point(point, width=width, height=height)
    if surface in ("mobile", "desktop"):
        x, y = math.floor(point[0] * width / divisor), math.floor(point[1] * height / divisor)
    else:
        x, y = round(point[0] * width / divisor), round(point[1] * height / divisor)
    return _clamp(x, width), _clamp(y, height)


@dataclass(frozen=True)
class ActionSpace:
    """One surface's action set, as the parser and the prompt checks see it.

    `classes` maps the action name the model writes to its model class; `coord_field` is the
    name of the surface's coordinate argument ("point" or "box", the other is accepted as an
    alias); `multi` says whether one <action> block may hold a comma-separated list.
    """

    surface: str
    classes: dict[str, type[ActionModel]]
    adapter: TypeAdapter
    coord_field: str
    multi: bool
    divisor: int


# surface -> (module, union name, adapter name, coordinate field, comma lists allowed)
_SPACES = {
    "browser": ("workers.actions", "BrowserAction", "BROWSER_ACTIONS", "point", True),
    "mobile": ("workers.actions_mobile", "MobileAction", "MOBILE_ACTIONS", "point", True),
    "desktop": ("workers.actions_desktop", "DesktopAction", "DESKTOP_ACTIONS", "box", False),
    "captcha": ("workers.actions_captcha", "CaptchaAction", "CAPTCHA_ACTIONS", "box", True),
}


@functools.cache
def action_space(surface: str) -> ActionSpace:
    """The action set of `surface` (one of SURFACES)."""
    if surface not in _SPACES:
        raise ValueError(f"unknown surface {surface!r}; expected one of {', '.join(SURFACES)}")
    module_name, union_name, adapter_name, coord_field, multi = _SPACES[surface]
    # Imported here: the surface modules import the shared types from this one.
    module = importlib.import_module(module_name)
    members = getattr(module, union_name).__origin__.__args__
    classes = {cls.model_fields["type"].default: cls for cls in members}
    return ActionSpace(
        surface=surface, classes=classes, adapter=getattr(module, adapter_name),
        coord_field=coord_field, multi=multi, divisor=DIVISORS[surface],
    )


def parse_action(data: dict[str, Any], *, surface: str) -> ActionModel:
    """Validate a stored dict such as {"type": "Click", "box": [10, 20]} into `surface`'s action."""
    return action_space(surface).adapter.validate_python(data)
