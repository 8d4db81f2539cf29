"""What a reviewer sees of a web commit (issue 12): the whole form being submitted, the page's
amounts and totals, and a full-page screenshot with the target marked.

- `form_and_amounts(page, locator)` reads, in one round trip, the visible fields of the form the
  target submits (or the focused field's form) with their labels and values, and the page's lines
  that show an amount. Values are masked here, in the worker, before they go anywhere
  (`mask_fields`): passwords, one-time codes, CVCs and expiry dates entirely, card numbers down to
  their last four digits, any stored credential value and any API key or token.
- `full_page(page, mask, box)` captures the whole page viewport by viewport through the run's
  `SecretMask` (every part is masked as every observation is), stitches the parts and returns the
  image with the target's box moved into page coordinates. Capped at `MAX_HEIGHT` pixels; the
  page is scrolled back to where it was.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

from PIL import Image
from playwright.async_api import Error as PlaywrightError, Locator, Page

from workers.gates.safety import card_numbers
from workers.gates.safety.values import secrets_in

MAX_HEIGHT = 6000  # pixels of page stitched for one review
MAX_FIELDS = 40
JPEG_QUALITY = 80
_HIDE_ALL = re.compile(r"cc-csc|cc-exp|one-time-code|\bcvc\b|\bcvv\b|\bcsc\b|security code|expir|有效期|安全码|验证码", re.I)
_CARD = re.compile(r"cc-number|card ?number|cardnumber|卡号", re.I)

_FORM_JS = r"""
(el, limit) => {
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const cap = (s, n) => s.length > n ? s.slice(0, n) : s;
  const textOf = n => clean(n ? (n.innerText !== undefined ? n.innerText : n.textContent) : '');
  const nameOf = f => clean(f.labels && f.labels.length ? Array.from(f.labels).map(textOf).join(' ') :
    (f.getAttribute('aria-label') || f.getAttribute('placeholder') || f.title || f.name));
  if (!el) { el = document.activeElement; if (el === document.body) el = null; }
  const form = el && (el.form || el.closest('form'));
  const visible = e => e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const fields = !form ? [] : Array.from(form.elements).filter(f => ['INPUT', 'SELECT', 'TEXTAREA'].includes(f.tagName) &&
      !['hidden', 'submit', 'button', 'reset', 'image', 'file'].includes((f.type || '').toLowerCase()) && visible(f)).slice(0, limit)
    .map(f => {
      const type = (f.getAttribute('type') || f.tagName).toLowerCase();
      let value = f.value || '';
      if (f.tagName === 'SELECT') value = f.selectedOptions[0] && f.value ? clean(f.selectedOptions[0].label) : '';
      if (type === 'checkbox' || type === 'radio') value = f.checked ? 'checked' : 'not checked';
      return {label: cap(nameOf(f), 80), name: cap(f.name || '', 60), type, autocomplete: clean(f.getAttribute('autocomplete')),
              secret: f.hasAttribute('data-venus-secret'), value: cap(value, 300)};
    });
  // Lines that show an amount: the row, list item or short block around each price.
  const MONEY = /[$€£¥₹]\s?\d|\d\s?(?:元|USD|EUR|GBP|CNY|RMB)\b/;
  const amounts = [], seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n && amounts.length < 30; n = walker.nextNode()) {
    if (!MONEY.test(n.nodeValue || '') || !n.parentElement || !visible(n.parentElement)) continue;
    let row = n.parentElement.closest('tr,li,dl,p,[role=row]') || n.parentElement;
    if (textOf(row).length > 160) row = n.parentElement;
    const line = cap(textOf(row), 160);
    if (line && !seen.has(line)) { seen.add(line); amounts.push(line); }
  }
  return {fields, amounts, form: form ? clean(form.getAttribute('aria-label') || '') : ''};
}
"""


@dataclass
class FormView:
    """A commit's form (masked values) and the page's amounts."""

    fields: list[dict[str, str]] = field(default_factory=list)
    amounts: list[str] = field(default_factory=list)


def mask_value(item: dict[str, Any], secrets: Any) -> str:
    """A field's value as a reviewer may see it."""
    value, hint = str(item.get("value", "")), " ".join(str(item.get(k, "")) for k in ("label", "name", "autocomplete"))
    if not value or value in ("checked", "not checked") and item.get("type") in ("checkbox", "radio"):
        return value
    if item.get("type") == "password" or re.search(r"password", item.get("autocomplete", ""), re.I) or _HIDE_ALL.search(hint):
        return "•" * 6
    digits = re.sub(r"\D", "", value)
    if card_numbers(value) or (_CARD.search(hint) and len(digits) >= 8):
        return "•••• " + digits[-4:]
    if item.get("secret") or (secrets is not None and secrets.holds_secret(value)) or secrets_in(value):
        return "•••• (stored credential)" if item.get("secret") or (secrets is not None and secrets.holds_secret(value)) else "•••• (secret)"
    return value


def mask_fields(items: list[dict[str, Any]], secrets: Any) -> list[dict[str, str]]:
    out = [{"label": str(i.get("label") or i.get("name") or "(unlabelled)"), "type": str(i.get("type", "")),
            "value": mask_value(i, secrets)} for i in items]
    return secrets.scrub_data(out, fragments=False) if secrets is not None else out


async def form_and_amounts(page: Page, locator: Locator | None, secrets: Any) -> FormView:
    """The target's form (or the focused field's) with masked values, and the page's amounts."""
    try:
        if locator is not None:
            data = await locator.evaluate(_FORM_JS, MAX_FIELDS)
        else:
            data = await page.evaluate(f"(limit) => ({_FORM_JS})(null, limit)", MAX_FIELDS)
    except PlaywrightError:
        return FormView()
    amounts = data.get("amounts") or []
    if secrets is not None:
        amounts = secrets.scrub_data(amounts, fragments=False)
    return FormView(fields=mask_fields(data.get("fields") or [], secrets), amounts=amounts)


async def full_page(page: Page, mask: Any, shoot, box: dict[str, float] | None) -> tuple[bytes, dict[str, float] | None]:
    """The whole page (up to MAX_HEIGHT), each viewport captured through `mask`, and `box`
    (viewport pixels now) in the stitched image's pixels."""
    start = await page.evaluate("() => [scrollX, scrollY, innerHeight, document.documentElement.scrollHeight]")
    x0, y0, view_h, page_h = start
    total = min(int(page_h), MAX_HEIGHT)
    if total <= view_h + 1:
        return await mask.capture(page, shoot), box
    parts: list[tuple[int, bytes]] = []
    try:
        y = 0
        while y < total:
            actual = await page.evaluate("(y) => { scrollTo(scrollX, y); return scrollY; }", y)
            parts.append((int(actual), await mask.capture(page, shoot)))
            if actual + view_h >= total:
                break
            y = int(actual + view_h)
    finally:
        await page.evaluate("([x, y]) => scrollTo(x, y)", [x0, y0])
    image = _stitch(parts, total)
    moved = {**box, "y": box["y"] + y0} if box else None
    return image, moved


def _stitch(parts: list[tuple[int, bytes]], total: int) -> bytes:
    images = [(top, Image.open(io.BytesIO(jpeg)).convert("RGB")) for top, jpeg in parts]
    width = images[0][1].width
    canvas = Image.new("RGB", (width, min(total, images[-1][0] + images[-1][1].height)), (255, 255, 255))
    for top, image in images:  # later parts overlap earlier ones at the page's end: same pixels
        canvas.paste(image, (0, top))
    out = io.BytesIO()
    canvas.save(out, "JPEG", quality=JPEG_QUALITY)
    return out.getvalue()
