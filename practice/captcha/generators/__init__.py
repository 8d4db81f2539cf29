"""Challenge generators, one module per VenusBench-CAPTCHA type (Django-free, Pillow only)."""

from __future__ import annotations

from typing import cast

from practice.captcha.generators import (
    drag_end,
    icon_click,
    image_rotation,
    ocr,
    oneclick_login,
    slider_puzzle,
    text_click,
    visual_reasoning,
)
from practice.captcha.generators.base import Generated, Generator

GENERATORS: dict[str, Generator] = {
    "ocr": cast(Generator, ocr),
    "slider_puzzle": cast(Generator, slider_puzzle),
    "drag_end": cast(Generator, drag_end),
    "icon_click": cast(Generator, icon_click),
    "text_click": cast(Generator, text_click),
    "image_rotation": cast(Generator, image_rotation),
    "oneclick_login": cast(Generator, oneclick_login),
    "visual_reasoning": cast(Generator, visual_reasoning),
}
CAPTCHA_TYPES = tuple(GENERATORS)

__all__ = ["CAPTCHA_TYPES", "GENERATORS", "Generated", "Generator"]
