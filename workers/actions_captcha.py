"""The UI-Venus-2 CAPTCHA action space as typed models.

A CAPTCHA answer is one <action> block holding the whole sequence, comma-separated, in
execution order. Coordinates are `box=(x, y)` on the 0-999 grid the model was trained on
(1000 is accepted and clamped), mapped with `map_point_for("captcha", ...)`. Class docstrings
double as prompt documentation.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter

from workers.actions import ActionModel, Point


class Click(ActionModel):
    """Click the target at the box point (one Click per image or character to select)."""

    type: Literal["Click"] = "Click"
    box: Point


class Drag(ActionModel):
    """Drag from `start` to `end` (slider and rotation puzzles)."""

    type: Literal["Drag"] = "Drag"
    start: Point
    end: Point


class Type(ActionModel):
    """Type the answer into the focused input (Click the input first)."""

    type: Literal["Type"] = "Type"
    content: str


class LongPress(ActionModel):
    """Press and hold the box point (press-and-hold checks)."""

    type: Literal["LongPress"] = "LongPress"
    box: Point


CaptchaAction = Annotated[Union[Click, Drag, Type, LongPress], Field(discriminator="type")]
CAPTCHA_ACTIONS = TypeAdapter(CaptchaAction)
