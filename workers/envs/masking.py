"""Screenshot masking: fields that hold vault values never show in an image.

Contract: every image `BrowserEnvironment.observe()` returns (stored step screenshots, review
and trace images, every image sent to the model) has a filled box of `MASK_FILL` over
- every element that received a revealed credential value (tagged with `MASK_ATTR` when the
  value is typed, and remembered by locator in case the page re-renders the element), and
- every `input[type=password]`,
- every text on the page that shows a vault value typed in this run (a page that echoes what
  was typed: "Looked up account Zq8…", a confirmation, an error), once a value has been typed,
in every frame of the page. Boxes are measured right before and right after the capture and
both are painted, so a scroll or layout shift between the two cannot expose a field. If no
measurement succeeds (the document was replaced mid-capture), the whole image is blanked:
masking fails closed.

The page itself never receives a secret from here; the tag is an empty attribute, and echoed
text is found by reading the page's visible text into the worker and matching it there.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

from PIL import Image, ImageDraw
from typing import TYPE_CHECKING
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

MASK_ATTR = "data-venus-secret"
MASK_SELECTOR = f"[{MASK_ATTR}], input[type=password]"
MASK_FILL = (16, 16, 16)
PAD = 2
JPEG_QUALITY = 80
Box = tuple[float, float, float, float]  # x, y, width, height in viewport pixels
TEXT_LIMIT = 400_000  # characters of visible text read per frame; past it the image is blanked

if TYPE_CHECKING:
    from workers.secrets import SecretBox

_RECTS_JS = """(sel) => Array.from(document.querySelectorAll(sel)).map(el => {
  const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];
}).filter(b => b[2] > 0 && b[3] > 0)"""
_LOCATOR_RECTS_JS = """els => els.map(el => {
  const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];
}).filter(b => b[2] > 0 && b[3] > 0)"""
# Visible text nodes with their boxes on the viewport; null past `limit` characters (fail closed).
_TEXT_JS = """(limit) => {
  const root = document.body || document.documentElement, out = [], range = document.createRange();
  if (!root) return out;
  const vw = innerWidth, vh = innerHeight, walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let total = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue;
    if (!text || text.trim().length < 3) continue;
    range.selectNodeContents(n);
    const rects = Array.from(range.getClientRects())
      .filter(r => r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw)
      .map(r => [r.x, r.y, r.width, r.height]);
    if (!rects.length) continue;
    total += text.length;
    if (total > limit) return null;
    out.push([text, rects]);
  }
  return out;
}"""
_TAG_JS = f"el => el.setAttribute('{MASK_ATTR}', '')"
# The element keystrokes go to; a focused iframe or shadow host is tagged whole (more is masked).
_TAG_FOCUSED_JS = f"""() => {{ const el = document.activeElement;
  if (el && el !== document.body && el !== document.documentElement) el.setAttribute('{MASK_ATTR}', ''); }}"""


class SecretMask:
    """One run's masking state: the fields that received vault values, and the painter."""

    def __init__(self, secrets: SecretBox | None = None) -> None:
        self._locators: list[Locator] = []
        self._secrets = secrets
        self._typed = False  # a vault value went into the page: look for it echoed as text

    async def tag(self, locator: Locator) -> None:
        """Mark the element a vault value is about to be typed into (before typing, so no
        screenshot in between shows it)."""
        self._typed = True
        await locator.evaluate(_TAG_JS)
        self._locators.append(locator)

    async def tag_focused(self, page: Page) -> None:
        """Mark the focused element (raw keyboard input of a vault value goes there)."""
        self._typed = True
        await page.evaluate(_TAG_FOCUSED_JS)

    async def _echo_boxes(self, frame) -> list[Box] | None:
        """Boxes of visible text in frame that holds a whole vault value (or an encoded form)."""
        found = await frame.evaluate(_TEXT_JS, TEXT_LIMIT)
        if found is None:
            return None
        return [tuple(box) for text, rects in found if self._secrets.holds_secret(text) for box in rects]

    async def boxes(self, page: Page) -> list[Box] | None:
        """Boxes to mask on the current viewport; None if the page could not be measured."""
        boxes: list[Box] = []
        echoes = self._typed and bool(self._secrets)
        try:
            boxes += [tuple(b) for b in await page.main_frame.evaluate(_RECTS_JS, MASK_SELECTOR)]
            if echoes:
                echoed = await self._echo_boxes(page.main_frame)
                if echoed is None:
                    return None
                boxes += echoed
        except PlaywrightError:
            return None
        for frame in page.frames[1:]:
            boxes += await _frame_boxes(frame, self._echo_boxes if echoes else None)
        for locator in self._locators:
            try:
                boxes += [tuple(b) for b in await locator.evaluate_all(_LOCATOR_RECTS_JS)]
            except PlaywrightError:
                continue  # the element's page is gone; the tag covers any re-typed field
        return boxes

    async def capture(self, page: Page, shoot: Callable[[], Awaitable[bytes]], *,
                      origin: tuple[float, float] = (0.0, 0.0)) -> bytes:
        """A screenshot from shoot() with every secret-holding field painted over. For a clipped
        shot (a CAPTCHA crop), origin is the clip's top-left corner on the viewport."""
        before = await self.boxes(page)
        shot = await shoot()
        after = await self.boxes(page)
        if before is None and after is None:
            return paint(shot, None)
        dx, dy = origin
        return paint(shot, [(x - dx, y - dy, w, h) for x, y, w, h in [*(before or []), *(after or [])]])


async def _frame_boxes(frame, echo_boxes=None) -> list[Box]:
    """Masked boxes inside a child frame, in main-viewport pixels; a frame that cannot be
    measured is masked whole."""
    try:
        element = await frame.frame_element()
        where = await element.bounding_box()
    except PlaywrightError:
        return []  # detached: not on screen any more
    if where is None:
        return []
    whole = [(where["x"], where["y"], where["width"], where["height"])]
    try:
        rects = [tuple(b) for b in await frame.evaluate(_RECTS_JS, MASK_SELECTOR)]
        if echo_boxes is not None:
            echoed = await echo_boxes(frame)
            if echoed is None:
                return whole
            rects += echoed
    except PlaywrightError:
        return whole
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
