"""The UI-Venus-2 browser action space as typed models.

One union shared by parsing, validation, execution, storage and the dashboard. Coordinates are
the model's normalised integers (0-1000 for the browser surface, see
reference/ui-venus-protocol.md §3); `map_point` turns them into CSS pixels of the image sent.
Field descriptions double as prompt documentation.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

Coord = Annotated[int, Field(ge=0, le=1000)]
Point = tuple[Coord, Coord]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Click(_Action):
    """Click the element at the point."""

    type: Literal["Click"] = "Click"
    point: Point


class DoubleClick(_Action):
    """Double-click the element at the point."""

    type: Literal["DoubleClick"] = "DoubleClick"
    point: Point


class Hover(_Action):
    """Move the mouse over the point (opens menus and tooltips)."""

    type: Literal["Hover"] = "Hover"
    point: Point


class SelectOption(_Action):
    """Choose option number `index` (0-based) of the select element clicked last."""

    type: Literal["SelectOption"] = "SelectOption"
    index: int = Field(ge=0)


class Drag(_Action):
    """Press at `start`, move to `end`, release."""

    type: Literal["Drag"] = "Drag"
    start: Point
    end: Point


class Scroll(_Action):
    """Scroll at the point; 'down' reveals content below."""

    type: Literal["Scroll"] = "Scroll"
    point: Point
    direction: Literal["up", "down", "left", "right"]


class Type(_Action):
    """Type text into the focused field. No Enter is pressed: add PressEnter() to submit."""

    type: Literal["Type"] = "Type"
    content: str


class Launch(_Action):
    """Open the URL in a new tab, which becomes the active page."""

    type: Literal["Launch"] = "Launch"
    url: str

    @field_validator("url")
    @classmethod
    def _http_only(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return value


class GetUrl(_Action):
    """Report the current URL in the next message."""

    type: Literal["GetUrl"] = "GetUrl"


class TakeNote(_Action):
    """Remember text; notes are repeated in later messages."""

    type: Literal["TakeNote"] = "TakeNote"
    content: str


class LongPress(_Action):
    """Hold the mouse button at the point for `duration` seconds."""

    type: Literal["LongPress"] = "LongPress"
    point: Point
    duration: float = Field(default=20, gt=0, le=60)


class PressBack(_Action):
    """Go back in history."""

    type: Literal["PressBack"] = "PressBack"


class PressHome(_Action):
    """Press the Home key (scroll to the top)."""

    type: Literal["PressHome"] = "PressHome"


class PressEnter(_Action):
    """Press Enter."""

    type: Literal["PressEnter"] = "PressEnter"


class Hotkey(_Action):
    """Press a key combination of at most 3 keys, e.g. ('ctrl', 'c')."""

    type: Literal["Hotkey"] = "Hotkey"
    keys: tuple[str, ...] = Field(min_length=1, max_length=3)


class Wait(_Action):
    """Wait about 3 seconds for the page to settle."""

    type: Literal["Wait"] = "Wait"


class CallUser(_Action):
    """Ask the user a question (missing information, several matching options)."""

    type: Literal["CallUser"] = "CallUser"
    content: str


class Finished(_Action):
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
# Actions that end the agent's turn instead of touching the page.
TERMINAL_ACTIONS = (CallUser, Finished)
BROWSER_DIVISOR = 1000


def parse_browser_action(data: dict) -> BrowserAction:
    """Validate a dict such as {"type": "Click", "point": [10, 20]} into an action."""
    return BROWSER_ACTIONS.validate_python(data)


def map_point(point: Point, *, width: int, height: int, divisor: int = BROWSER_DIVISOR) -> tuple[int, int]:
    """Map normalised model coordinates to pixels of a width×height image, clamped inside it."""
    x = round(point[0] / divisor * width)
    y = round(point[1] / divisor * height)
    return min(max(x, 0), width - 1), min(max(y, 0), height - 1)
