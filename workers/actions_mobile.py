"""The UI-Venus-2 mobile (Android) action space as typed models.

Points are `point=(x, y)` in normalised 0-1000 screen coordinates, mapped to device pixels of
the current orientation with `map_point_for("mobile", ...)` (floor, reference §3). Class
docstrings double as prompt documentation.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter

from workers.actions import ActionModel, Point, TerminalAction


class Click(ActionModel):
    """Tap the element at the point."""

    type: Literal["Click"] = "Click"
    point: Point


class DoubleClick(ActionModel):
    """Tap the point twice in quick succession."""

    type: Literal["DoubleClick"] = "DoubleClick"
    point: Point


class LongPress(ActionModel):
    """Press and hold the point (context menus, selecting text)."""

    type: Literal["LongPress"] = "LongPress"
    point: Point


class Drag(ActionModel):
    """Press at `start`, hold, move to `end` and release (reorder items, sliders)."""

    type: Literal["Drag"] = "Drag"
    start: Point
    end: Point


class Swipe(ActionModel):
    """A finger swipe from `start` to `end`; swipe upward to reveal content below."""

    type: Literal["Swipe"] = "Swipe"
    start: Point
    end: Point


class Type(ActionModel):
    """Type text into the focused field (tap the field first)."""

    type: Literal["Type"] = "Type"
    content: str


class LaunchApp(ActionModel):
    """Open an app by the name shown under its icon."""

    type: Literal["LaunchApp"] = "LaunchApp"
    app: str = Field(min_length=1)


class Wait(ActionModel):
    """Wait about a second for the screen to settle."""

    type: Literal["Wait"] = "Wait"


class PressBack(ActionModel):
    """Press the system Back key."""

    type: Literal["PressBack"] = "PressBack"


class PressHome(ActionModel):
    """Press the system Home key."""

    type: Literal["PressHome"] = "PressHome"


class PressEnter(ActionModel):
    """Press Enter on the keyboard."""

    type: Literal["PressEnter"] = "PressEnter"


class PressRecent(ActionModel):
    """Open the recent-apps overview."""

    type: Literal["PressRecent"] = "PressRecent"


class GetScreenshot(ActionModel):
    """Save a screenshot of the current screen to the gallery."""

    type: Literal["GetScreenshot"] = "GetScreenshot"


class CallUser(TerminalAction):
    """Stop and ask the user (missing information, several matching options, a risky step)."""

    type: Literal["CallUser"] = "CallUser"
    content: str


class Answer(TerminalAction):
    """Give the answer to a question the task asked; ends the task."""

    type: Literal["Answer"] = "Answer"
    content: str


class Finished(TerminalAction):
    """The task is done; `content` summarises the result."""

    type: Literal["Finished"] = "Finished"
    content: str = ""


MobileAction = Annotated[
    Union[
        Click, DoubleClick, LongPress, Drag, Swipe, Type, LaunchApp, Wait, PressBack, PressHome, PressEnter,
        PressRecent, GetScreenshot, CallUser, Answer, Finished,
    ],
    Field(discriminator="type"),
]
MOBILE_ACTIONS = TypeAdapter(MobileAction)
