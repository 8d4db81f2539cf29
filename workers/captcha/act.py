"""Turning solver answers into what a person would do: clicks, typing and drags in CSS pixels.

Images are read at their natural resolution (fetched with the page's own cookies) when they are
<img> elements, or cut from a screenshot otherwise; answers in image pixels are scaled to the
element's on-screen box.
"""

from __future__ import annotations

import asyncio
import base64
import random
import re

from playwright.async_api import Page

from workers.captcha.detect import Widget


async def widget_shot(env, rect: dict, *, margin: float, quality: int) -> tuple[bytes, dict]:
    """A JPEG of the widget and margin around it, with the run's secret mask painted over it
    (a crop that leaves the runtime, for the model or a person, never shows a typed secret);
    returns the image and its clip on the viewport."""
    clip = {"x": max(rect["x"] - margin, 0), "y": max(rect["y"] - margin, 0),
            "width": rect["width"] + 2 * margin, "height": rect["height"] + 2 * margin}

    async def shoot() -> bytes:
        return await env.page.screenshot(type="jpeg", quality=quality, clip=clip)

    mask = getattr(env, "mask", None)
    if mask is None:
        return await shoot(), clip
    return await mask.capture(env.page, shoot, origin=(clip["x"], clip["y"])), clip


def centre(rect: dict) -> tuple[float, float]:
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


async def image_bytes(page: Page, image: dict) -> tuple[bytes, float, float]:
    """The image's pixels and the scale (CSS px per image px) on each axis."""
    src = image.get("src") or ""
    data: bytes | None = None
    if image.get("tag") == "img" and src.startswith("data:") and ";base64," in src:
        data = base64.b64decode(src.split(",", 1)[1])
    elif image.get("tag") == "img" and src.startswith(("http://", "https://")):
        response = await page.context.request.get(src)
        if response.ok:
            data = await response.body()
    if data is None:  # canvas, blob: or unreadable: what the screen shows
        rect = image["rect"]
        data = await page.screenshot(type="png", clip={k: rect[k] for k in ("x", "y", "width", "height")})
        return data, 1.0, 1.0
    from io import BytesIO

    from PIL import Image

    with Image.open(BytesIO(data)) as decoded:
        width, height = decoded.size
    return data, image["rect"]["width"] / width, image["rect"]["height"] / height


def main_image(widget: Widget) -> dict:
    """The challenge picture: the largest image in the widget."""
    return max(widget.images, key=lambda i: i["rect"]["width"] * i["rect"]["height"])


def other_images(widget: Widget, main: dict) -> list[dict]:
    return [i for i in widget.images if i is not main]


async def human_drag(page: Page, start: tuple[float, float], end: tuple[float, float], *, steps: int = 18) -> None:
    """Press, move along a slightly uneven path with an easing, overshoot-free, release."""
    await page.mouse.move(*start)
    await page.mouse.down()
    for i in range(1, steps + 1):
        t = i / steps
        ease = 1 - (1 - t) ** 3
        jitter = 0 if i == steps else random.uniform(-0.6, 0.6)  # noqa: S311 -- mouse jitter, not a secret
        await page.mouse.move(start[0] + (end[0] - start[0]) * ease, start[1] + (end[1] - start[1]) * ease + jitter)
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    await page.mouse.up()


async def click_points(page: Page, points: list[tuple[float, float]]) -> None:
    for x, y in points:
        await page.mouse.click(x, y)
        await asyncio.sleep(0.08)


async def type_into(page: Page, rect: dict, text: str) -> None:
    await page.mouse.click(*centre(rect))
    await page.keyboard.press("ControlOrMeta+A")
    await page.keyboard.insert_text(text)


def confirm_button(widget: Widget) -> dict | None:
    """A verify/confirm button inside the widget (not a refresh or close button)."""
    wanted = re.compile(r"^(verify|confirm|check|submit|ok|done|确认|确定|验证|提交)\b", re.I)
    for button in widget.buttons:
        if wanted.search(button["text"].strip()):
            return button
    return None


REFRESH = re.compile(r"refresh|reload|new (challenge|image|one)|another|try another|↻|⟳|🔄|换一|刷新|看不清|neu|autre|otra|"
                     r"outra|друг|обнов|更新|別の", re.I)


def refresh_button(widget: Widget) -> dict | None:
    """The widget's control for a new challenge: one that says so, or else the only button that
    is not its confirm button."""
    confirm = confirm_button(widget)
    others = [b for b in widget.buttons if b is not confirm]
    named = [b for b in others if REFRESH.search(b["text"])]
    return named[0] if named else (others[0] if len(others) == 1 else None)


async def refresh(page: Page, widget: Widget) -> bool:
    """Ask the widget for a new challenge; False when it has no refresh control."""
    button = refresh_button(widget)
    if button is None:
        return False
    await page.mouse.click(*centre(button["rect"]))
    await asyncio.sleep(0.4)  # the widget swaps its box; the next detect reads the new one
    return True
