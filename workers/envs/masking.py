"""Screenshot masking: fields that hold vault values never show in an image.

Contract: every image `BrowserEnvironment.observe()` returns (stored step screenshots, review
and trace images, every image sent to the model) has a filled box of `MASK_FILL` over
- every element that received a revealed credential value (tagged with `MASK_ATTR` when the
  value is typed, and remembered by locator in case the page re-renders the element), and
- every `input[type=password]`,
- every text on the page that shows a vault value typed in this run (a page that echoes what
  was typed: "Looked up account Zq8…", a confirmation, an error), once a value has been typed,
in every frame of the page.

Two ways to paint, one guarantee:
- Chromium paints the box itself: a stylesheet every frame adopts at its start
  (`MASK_STYLE_SCRIPT`, installed on each context by the pool) fills those fields with
  `MASK_FILL` and makes their text, caret, selection and shadows transparent, with transitions and
  animations off. Pixels of a masked field never hold its value, whenever the capture happens.
- Python paints over the JPEG (a decode and a re-encode) every box Chromium's painting cannot be
  trusted for, as measured on the page: a field whose computed style is not the mask (a page's
  inline `!important`, its own stylesheet order, an autofilled field), one inside an element
  that filters, blends or fades it, anything that is not a plain text field (a tagged iframe or
  editable element), a re-rendered element found again by its locator, and echoed text.
Boxes are measured right before and right after the capture (one page round trip per frame each:
the main frame's remembered fields are found in the same call, through their locators joined into
one; frames measured concurrently) and both are painted, so a scroll or layout shift
between the two cannot expose a field. If no measurement succeeds (the document was replaced
mid-capture), the whole image is blanked: masking fails closed.

The page itself never receives a secret from here; the tag is an empty attribute, and echoed
text is found by reading the page's visible text into the worker and matching it there.
"""

from __future__ import annotations

import asyncio
import io
import json
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

_FILL_CSS = "rgb({}, {}, {})".format(*MASK_FILL)
_MASK_CSS = f"""@layer venus-mask {{
  {MASK_SELECTOR} {{
    background: {_FILL_CSS} !important; border-color: {_FILL_CSS} !important;
    box-shadow: 0 0 0 {PAD}px {_FILL_CSS} !important; color: transparent !important;
    -webkit-text-fill-color: transparent !important; -webkit-text-stroke-width: 0 !important;
    text-shadow: none !important; caret-color: transparent !important;
    transition: none !important; animation: none !important;
  }}
  [{MASK_ATTR}]::selection, input[type=password]::selection {{
    color: transparent !important; -webkit-text-fill-color: transparent !important; background: transparent !important;
  }}
}}"""
# Adopted (not a <style> node: the page's DOM is unchanged) in every frame before its scripts run.
MASK_STYLE_SCRIPT = f"""(() => {{ try {{
  const sheet = new CSSStyleSheet(); sheet.replaceSync({json.dumps(_MASK_CSS)});
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}} catch (e) {{}} }})();"""

# Whether Chromium's own painting masks `el` (see the module docstring); the JS shared below.
_CSS_MASKED_JS = f"""const cssMasked = (el) => {{
  const plain = (el.tagName === 'INPUT' && !['image', 'file', 'button', 'submit', 'reset', 'color', 'range',
    'checkbox', 'radio'].includes((el.type || '').toLowerCase())) || el.tagName === 'TEXTAREA';
  if (!plain) return false;
  try {{ if (el.matches(':autofill')) return false; }} catch (e) {{ return false; }}
  const s = getComputedStyle(el), clear = 'rgba(0, 0, 0, 0)';
  if (s.backgroundColor !== '{_FILL_CSS}' || s.backgroundImage !== 'none' || s.color !== clear
      || s.webkitTextFillColor !== clear || s.textShadow !== 'none' || s.transitionProperty !== 'none'
      || s.animationName !== 'none') return false;
  for (let a = el; a; a = a.parentElement) {{
    const t = a === el ? s : getComputedStyle(a);
    if (t.filter !== 'none' || t.opacity !== '1' || t.mixBlendMode !== 'normal'
        || (t.backdropFilter || 'none') !== 'none') return false;
  }}
  return true;
}};
const box = (el) => {{ const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? [r.x, r.y, r.width, r.height] : null; }};"""
# One frame's measurement: boxes to paint over, and (when `echo`) its visible text nodes with their
# boxes; `text` is null past `limit` characters (fail closed).
_MEASURE_JS = f"""({{sel, echo, limit}}) => {{
  {_CSS_MASKED_JS}
  const boxes = [];
  for (const el of document.querySelectorAll(sel)) {{
    const b = box(el);
    if (b && !cssMasked(el)) boxes.push(b);
  }}
  if (!echo) return {{boxes, text: []}};
  const root = document.body || document.documentElement, text = [], range = document.createRange();
  if (!root) return {{boxes, text}};
  const vw = innerWidth, vh = innerHeight, walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let total = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {{
    const value = n.nodeValue;
    if (!value || value.trim().length < 3) continue;
    range.selectNodeContents(n);
    const rects = Array.from(range.getClientRects())
      .filter(r => r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw)
      .map(r => [r.x, r.y, r.width, r.height]);
    if (!rects.length) continue;
    total += value.length;
    if (total > limit) return {{boxes, text: null}};
    text.push([value, rects]);
  }}
  return {{boxes, text}};
}}"""
# A remembered field found again by its locator: tagged again if the page re-rendered it (the
# stylesheet masks it from the next frame on), painted over unless Chromium already masks it.
_LOCATOR_JS = f"""els => {{
  {_CSS_MASKED_JS}
  return els.map(el => {{
    const kept = el.hasAttribute('{MASK_ATTR}');
    if (!kept) el.setAttribute('{MASK_ATTR}', '');
    const b = box(el);
    return b && !(kept && cssMasked(el)) ? b : null;
  }}).filter(b => b);
}}"""
# The main frame's measurement and its remembered fields in one page round trip: `els` are the
# elements the remembered locators (joined with `or`) find now.
_MEASURE_LOCATED_JS = f"""(els, arg) => {{
  if (window !== window.top) return JSON.stringify({{elsewhere: true}});  // a locator inside a frame
  const found = ({_MEASURE_JS})(arg);
  found.boxes.push(...({_LOCATOR_JS})(els));
  return JSON.stringify(found);
}}"""
# The measurement comes back as one JSON string: Playwright's value-by-value serialisation of the
# text and boxes costs more than the measuring itself.
_MEASURE_JSON_JS = f"(arg) => JSON.stringify(({_MEASURE_JS})(arg))"
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

    async def _measure(self, frame, echo: bool, located: Locator | None = None) -> list[Box] | None:
        """Boxes to paint in `frame` (frame pixels), with what `located` finds (a locator of that
        frame) in the same round trip; None when it cannot be trusted (its visible text is past the
        limit). Raises PlaywrightError when the frame cannot be read."""
        arg = {"sel": MASK_SELECTOR, "echo": echo, "limit": TEXT_LIMIT}
        found = json.loads(await (located.evaluate_all(_MEASURE_LOCATED_JS, arg) if located is not None
                                  else frame.evaluate(_MEASURE_JSON_JS, arg)))
        if found.get("elsewhere"):
            raise _Elsewhere
        if found["text"] is None:
            return None
        boxes = [tuple(b) for b in found["boxes"]]
        if echo:
            boxes += [tuple(b) for text, rects in found["text"] if self._secrets.holds_secret(text) for b in rects]
        return boxes

    async def boxes(self, page: Page) -> list[Box] | None:
        """Boxes to paint over on the current viewport; None if the page could not be measured."""
        echo = self._typed and bool(self._secrets)
        main, *rest = await asyncio.gather(
            self._measure_main(page, echo),
            *(_frame_boxes(frame, lambda f: self._measure(f, echo)) for frame in page.frames[1:]),
            return_exceptions=True)
        if main is None or isinstance(main, BaseException):
            if isinstance(main, BaseException) and not isinstance(main, PlaywrightError):
                raise main
            return None
        boxes = list(main)
        for found in rest:
            if isinstance(found, BaseException):
                raise found
            boxes += found
        return boxes

    async def _measure_main(self, page: Page, echo: bool) -> list[Box] | None:
        """The main frame's boxes with the remembered fields' (see `boxes`). The remembered
        locators, when all are this page's, are joined into one and measured in the main frame's
        call; where they cannot be (another page's, one inside a frame, a join Playwright refuses),
        the frame and each locator are measured apart, as before."""
        if not self._locators:
            return await self._measure(page.main_frame, echo)
        if all(locator.page is page for locator in self._locators):
            joined = self._locators[0]
            for locator in self._locators[1:]:
                joined = joined.or_(locator)
            try:
                return await self._measure(page.main_frame, echo, located=joined)
            except (PlaywrightError, _Elsewhere):
                pass
        main, *rest = await asyncio.gather(self._measure(page.main_frame, echo),
                                           *(_locator_boxes(locator) for locator in self._locators))
        return None if main is None else [*main, *(box for found in rest for box in found)]

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


class _Elsewhere(Exception):
    """The joined locators resolved inside a child frame: the main frame was not measured."""


async def _locator_boxes(locator: Locator) -> list[Box]:
    try:
        return [tuple(b) for b in await locator.evaluate_all(_LOCATOR_JS)]
    except PlaywrightError:
        return []  # the element's page is gone; the tag covers any re-typed field


async def _frame_boxes(frame, measure) -> list[Box]:
    """Boxes to paint inside a child frame, in main-viewport pixels; a frame that cannot be
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
        rects = await measure(frame)
    except PlaywrightError:
        return whole
    if rects is None:
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
