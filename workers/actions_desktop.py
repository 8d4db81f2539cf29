"""The UI-Venus-2 desktop action space as typed models.

Coordinates are `box=(x, y)` on the 0-999 grid the model was trained on (1000 is accepted and
clamped), mapped to monitor pixels with `map_point_for("desktop", ...)`. Actions whose box is
optional act at the current cursor, so the executor tracks the cursor; KeyDown and MouseDown
hold state across turns until released. `Sequence` runs 2-32 actions open-loop: each child
still goes through the gate and the trace. Class docstrings double as prompt documentation.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter, model_validator

from workers.actions import ActionModel, Point, TerminalAction

Keys = Annotated[tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1, max_length=128)]


class Click(ActionModel):
    """Left-click at the box point, or at the cursor when box is left out."""

    type: Literal["Click"] = "Click"
    box: Point | None = None


class DoubleClick(ActionModel):
    """Double-click at the box point, or at the cursor when box is left out."""

    type: Literal["DoubleClick"] = "DoubleClick"
    box: Point | None = None


class TripleClick(ActionModel):
    """Triple-click (select a whole line or field) at the box point or the cursor."""

    type: Literal["TripleClick"] = "TripleClick"
    box: Point | None = None


class RightClick(ActionModel):
    """Right-click (context menu) at the box point or the cursor."""

    type: Literal["RightClick"] = "RightClick"
    box: Point | None = None


class MiddleClick(ActionModel):
    """Middle-click at the box point or the cursor."""

    type: Literal["MiddleClick"] = "MiddleClick"
    box: Point | None = None


class Hover(ActionModel):
    """Move the cursor to the box point (submenus, tooltips, before Swipe)."""

    type: Literal["Hover"] = "Hover"
    box: Point


class Drag(ActionModel):
    """Drag with the left button to `end`, from `start` or from the cursor when start is left out."""

    type: Literal["Drag"] = "Drag"
    end: Point
    start: Point | None = None


class Swipe(ActionModel):
    """Scroll at the cursor by `amount` (-4096..4096). Vertical: positive scrolls up, negative
    reveals content below. Horizontal: positive scrolls right."""

    type: Literal["Swipe"] = "Swipe"
    amount: int = Field(ge=-4096, le=4096)
    axis: Literal["vertical", "horizontal"] = "vertical"


class Type(ActionModel):
    """Type text at the keyboard focus; every newline in the text presses Enter."""

    type: Literal["Type"] = "Type"
    content: str


class Hotkey(ActionModel):
    """Press a key combination together, `repeat` times, e.g. keys=['ctrl', 's']."""

    type: Literal["Hotkey"] = "Hotkey"
    keys: Keys
    repeat: int = Field(default=1, ge=1, le=128)


class KeyDown(ActionModel):
    """Press and keep holding keys until KeyUp releases them."""

    type: Literal["KeyDown"] = "KeyDown"
    keys: Keys


class KeyUp(ActionModel):
    """Release keys held by KeyDown."""

    type: Literal["KeyUp"] = "KeyUp"
    keys: Keys


class MouseDown(ActionModel):
    """Press and keep holding the left button, at the box point or the cursor."""

    type: Literal["MouseDown"] = "MouseDown"
    box: Point | None = None


class MouseUp(ActionModel):
    """Release the left button, at the box point or the cursor."""

    type: Literal["MouseUp"] = "MouseUp"
    box: Point | None = None


class Wait(ActionModel):
    """Wait a few seconds for a slow operation to finish."""

    type: Literal["Wait"] = "Wait"


class CallUser(TerminalAction):
    """Hand over to the user: information is missing, a person must act, or the task cannot be done
    (say why)."""

    type: Literal["CallUser"] = "CallUser"
    content: str


class Finished(TerminalAction):
    """The task was completed successfully; `content` summarises the result."""

    type: Literal["Finished"] = "Finished"
    content: str = ""


DesktopStep = Annotated[
    Union[
        Click, DoubleClick, TripleClick, RightClick, MiddleClick, Hover, Drag, Swipe, Type, Hotkey, KeyDown, KeyUp,
        MouseDown, MouseUp, Wait, CallUser, Finished,
    ],
    Field(discriminator="type"),
]


class Sequence(ActionModel):
    """Run 2-32 actions in order without looking at the screen in between. No Sequence inside a
    Sequence; CallUser or Finished only as the last action."""

    type: Literal["Sequence"] = "Sequence"
    actions: tuple[DesktopStep, ...] = Field(min_length=2, max_length=32)

    @model_validator(mode="after")
    def _terminal_only_last(self) -> Sequence:
        for child in self.actions[:-1]:
            if isinstance(child, TerminalAction):
                raise ValueError(f"{child.type} may only be the last action of a Sequence")
        return self


DesktopAction = Annotated[Union[DesktopStep.__origin__, Sequence], Field(discriminator="type")]
DESKTOP_ACTIONS = TypeAdapter(DesktopAction)
