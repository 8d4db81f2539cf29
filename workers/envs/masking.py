"""Screenshot masking: fields that hold vault values never show in an image.

Contract: every image `BrowserEnvironment.observe()` returns (stored step screenshots, review
and trace images, every image sent to the model) has a filled box of `MASK_FILL` over
- every element that received a revealed credential value (tagged with `MASK_ATTR` when the
  value is typed, and remembered by locator in case the page re-renders the element), and
- every `input[type=password]`,
in every frame of the page. Boxes are measured right before and right after the capture and
both are painted, so a scroll or layout shift between the two cannot expose a field. If no
measurement succeeds (the document was replaced mid-capture), the whole image is blanked:
masking fails closed.

The page itself never receives a secret from here; the tag is an empty attribute.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

from PIL import Image, ImageDraw
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

MASK_ATTR = "data-venus-secret"
MASK_SELECTOR = f"[{MASK_ATTR}], input[type=password]"
MASK_FILL = (16, 16, 16)
PAD = 2
JPEG_QUALITY = 80
Box = tuple[float, float, float, float]  # x, y, width, height in viewport pixels

_RECTS_JS = """(sel) => Array.from(document.querySelectorAll(sel)).map(el => {
  const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];
}).filter(b => b[2] > 0 && b[3] > 0)"""
_LOCATOR_RECTS_JS = """els => els.map(el => {
  const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];
}).filter(b => b[2] > 0 && b[3] > 0)"""
_TAG_JS = f"el => el.setAttribute('{MASK_ATTR}', '')"
# The element keystrokes go to; a focused iframe or shadow host is tagged whole (more is masked).
_TAG_FOCUSED_JS = f"""() => {{ const el = document.activeElement;
  if (el && el !== document.body && el !== document.documentElement) el.setAttribute('{MASK_ATTR}', ''); }}"""


class SecretMask:
    """One run's masking state: the fields that received vault values, and the painter."""

    def __init__(self) -> None:
        self._locators: list[Locator] = []

    async def tag(self, locator: Locator) -> None:
        """Mark the element a vault value is about to be typed into (before typing, so no
        screenshot in between shows it)."""
        await locator.evaluate(_TAG_JS)
        self._locators.append(locator)

    async def tag_focused(self, page: Page) -> None:
        """Mark the focused element (raw keyboard input of a vault value goes there)."""
        await page.evaluate(_TAG_FOCUSED_JS)

    async def boxes(self, page: Page) -> list[Box] | None:
        """Boxes to mask on the current viewport; None if the page could not be measured."""
        boxes: list[Box] = []
        try:
            boxes += [tuple(b) for b in await page.main_frame.evaluate(_RECTS_JS, MASK_SELECTOR)]
        except PlaywrightError:
            return None
        for frame in page.frames[1:]:
            boxes += await _frame_boxes(frame)
        for locator in self._locators:
            try:
                boxes += [tuple(b) for b in await locator.evaluate_all(_LOCATOR_RECTS_JS)]
            except PlaywrightError:
                continue  # the element's page is gone; the tag covers any re-typed field
        return boxes

    async def capture(self, page: Page, shoot: Callable[[], Awaitable[bytes]]) -> bytes:
        """A screenshot from shoot() with every secret-holding field painted over."""
        before = await self.boxes(page)
        shot = await shoot()
        after = await self.boxes(page)
        if before is None and after is None:
            return paint(shot, None)
        return paint(shot, [*(before or []), *(after or [])])


async def _frame_boxes(frame) -> list[Box]:
    """Masked boxes inside a child frame, in main-viewport pixels; a frame that cannot be
    measured is masked whole."""
    try:
        element = await frame.frame_element()
        where = await element.bounding_box()
    except PlaywrightError:
        return []  # detached: not on screen any more
    if where is None:
        return []
    try:
        rects = await frame.evaluate(_RECTS_JS, MASK_SELECTOR)
    except PlaywrightError:
        return [(where["x"], where["y"], where["width"], where["height"])]
    return [(where["x"] + x, where["y"] + y, w, h) for x, y, w, h in rects]


def paint(jpeg: bytes, boxes: list[Box] | None) -> bytes:
    """The JPEG with MASK_FILL boxes (padded by PAD) over boxes; None blanks the whole image.
    Returns the input unchanged when there is nothing to mask."""
    if boxes is not None and not boxes:
        return jpeg
    with Image.open(io.BytesIO(jpeg)) as image:
        image = image.convert("RGB")
        draw = ImageDraw.Draw(image)
        for x, y, w, h in boxes if boxes is not None else [(0, 0, image.width, image.height)]:
            draw.rectangle([x - PAD, y - PAD, x + w + PAD, y + h + PAD], fill=MASK_FILL)
        out = io.BytesIO()
        image.save(out, "JPEG", quality=JPEG_QUALITY)
        return out.getvalue()
