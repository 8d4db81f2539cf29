"""Find a CAPTCHA on the page and say what kind it is, from page signals only.

One `page.evaluate` collects candidates: provider frames (reCAPTCHA, hCaptcha, Turnstile,
GeeTest…), elements whose class, id, name, label or alt text says captcha / security check /
验证码 (in a few languages), and — whatever the wording — widgets recognised by their
structure and behaviour:
- an image of CAPTCHA size next to a text input and a refresh control (a text CAPTCHA);
- a draggable handle on a track (role=slider, a handle/knob, or an element with a grab/move
  cursor inside an element at least three times as wide) next to an image.
Each is widened to its widget box. The type is then read from structure first (a handle with a
square piece centred over or beside a bigger picture: rotation against that picture; with a
small positioned piece over a picture: slider puzzle; with a lone picture: rotation),
then from the instruction text (English and Chinese wording, as one signal among others), then
from structure again (an image with a text input: OCR; a small positioned item over a picture:
drag; a checkbox: one click). Everything is reported in CSS pixels of the viewport, so solvers'
answers become mouse actions the way a person would do them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError, Page

from workers.envs.browser import page_read

KINDS = ("ocr", "slider_puzzle", "drag_end", "icon_click", "text_click", "image_rotation", "oneclick_login",
         "visual_reasoning", "third_party", "unknown")
REJECTED = re.compile(
    r"(security check|captcha|verification|验证码?|人机).{0,40}(fail|incorrect|wrong|invalid|try again|错误|失败)"
    r"|(fail|incorrect|wrong|invalid).{0,40}(security check|captcha|verification)", re.I)
LOCAL_KINDS = {"ocr", "slider_puzzle", "drag_end", "icon_click", "text_click", "image_rotation", "oneclick_login"}

_SCAN = r"""
() => {
  const WORDS = /captcha|capcha|geetest|tcaptcha|nc_wrapper|security[ -]check|verify (that )?you are (a )?human|i am human|i'm not a robot|human verification|验证码|安全验证|人机验证|滑块|капча|キャプチャ|画像認証|보안문자|sicherheitsabfrage/i;
  const FRAME = /recaptcha|hcaptcha|turnstile|challenges\.cloudflare|geetest|captcha|arkoselabs|funcaptcha/i;
  const rect = el => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const visible = el => { const r = el.getBoundingClientRect(); if (r.width < 2 || r.height < 2) return false;
    const s = getComputedStyle(el); return s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0'; };
  const signature = el => [typeof el.className === 'string' ? el.className : '', el.id, el.getAttribute('aria-label'),
    el.getAttribute('alt'), el.getAttribute('name'), el.getAttribute('title')].join(' ');
  const frames = Array.from(document.querySelectorAll('iframe')).filter(f => visible(f) && FRAME.test(f.src || ''))
    .map(f => ({src: f.src, rect: rect(f)}));
  let hits = Array.from(document.querySelectorAll('body *')).filter(el => WORDS.test(signature(el)) && visible(el));
  // Structure, whatever the wording: an image next to a text input and a refresh control, or a
  // draggable handle on a track next to an image.
  const boxes = [];  // widget boxes found by structure: already as wide as they need to be
  const area = r => r.width * r.height;
  const viewport = window.innerWidth * window.innerHeight;
  const pictures = el => Array.from(el.querySelectorAll('img,canvas')).filter(visible);
  const isText = el => el.matches('input:not([type]),input[type=text],input[type=tel],input[type=number]') && visible(el);
  const textLike = el => { const r = rect(el); return r.width >= 40 && r.width <= 420 && r.height >= 16 && r.height <= 170 && r.width / r.height >= 1.4; };
  const control = (el, img) => el !== img && visible(el) && !el.matches('input[type=submit],button[type=submit],input[type=text],input:not([type])') &&
    (el.matches('button,a,[role=button],[onclick],[title]') || getComputedStyle(el).cursor === 'pointer') &&
    area(rect(el)) < 4 * area(rect(img)) && gap(rect(el), rect(img)) <= 40;
  // Distance between two boxes (0 when they touch or overlap).
  const gap = (a, b) => Math.hypot(Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width)),
                                   Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height)));
  for (const input of Array.from(document.querySelectorAll('input')).filter(isText)) {
    let box = input.parentElement;
    for (let i = 0; i < 3 && box && box !== document.body; i++, box = box.parentElement) {
      const imgs = pictures(box).filter(img => textLike(img) && gap(rect(img), rect(input)) <= 80);
      if (!imgs.length) continue;
      if (area(rect(box)) > 0.6 * viewport) break;
      if (imgs.some(img => Array.from(box.querySelectorAll('*')).some(el => control(el, img)))) boxes.push(box);
      break;
    }
  }
  const grabby = el => { const c = getComputedStyle(el).cursor; return ['grab', 'grabbing', 'move', 'ew-resize', 'col-resize'].includes(c); };
  const onTrack = el => { const p = el.parentElement; if (!p) return false; const a = rect(el), b = rect(p);
    return a.width >= 8 && b.width >= 3 * a.width && b.height <= 3 * Math.max(a.height, 8); };
  const HANDLE = '[role=slider],[class*=slider-handle],[class*=slider_button],[class*=handle],[class*=knob],[class*=thumb]';
  const handles = Array.from(document.querySelectorAll('body *')).filter(el => visible(el) &&
    ((el.matches(HANDLE) && onTrack(el)) || (grabby(el) && onTrack(el))));
  for (const handle of handles) {
    let box = handle.parentElement;
    for (let i = 0; i < 4 && box && box !== document.body; i++, box = box.parentElement) {
      if (!pictures(box).length) continue;
      if (area(rect(box)) <= 0.6 * viewport) boxes.push(box);
      break;
    }
  }
  const widen = el => { let box = el;
    for (let i = 0; i < 5 && box.parentElement && box !== document.body; i++) {
      // A box with a picture or control and either some text or an input/handle of its own
      // (a widget with no wording at all stops here too).
      if (box.querySelector('img,canvas,[role=slider],[role=checkbox],input[type=checkbox]') &&
          ((box.innerText || '').trim().length > 3 || box.querySelector('input:not([type=hidden]),' + HANDLE))) break;
      box = box.parentElement; }
    return box; };
  const roots = [];
  for (const el of hits.map(widen).concat(boxes)) {
    if (el === document.body || el === document.documentElement) continue;
    if (roots.some(r => r.contains(el))) continue;
    for (let i = roots.length - 1; i >= 0; i--) if (el.contains(roots[i])) roots.splice(i, 1);
    roots.push(el);
  }
  const describe = root => {
    const all = sel => Array.from(root.querySelectorAll(sel)).filter(visible);
    const imgs = all('img,canvas').map(el => ({tag: el.tagName.toLowerCase(), rect: rect(el), src: el.currentSrc || el.src || '',
      alt: el.getAttribute('alt') || '', cls: typeof el.className === 'string' ? el.className : '',
      positioned: ['absolute', 'relative', 'fixed'].includes(getComputedStyle(el).position)}));
    const inputs = all('input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button]),textarea')
      .map(el => ({name: el.name || el.id || '', label: (el.labels && el.labels[0] ? el.labels[0].innerText : el.getAttribute('aria-label') || el.placeholder || '').trim(), rect: rect(el),
        type: el.type || '', maxlength: el.maxLength > 0 ? el.maxLength : null, minlength: el.minLength > 0 ? el.minLength : null,
        inputmode: el.inputMode || el.getAttribute('inputmode') || '', pattern: el.getAttribute('pattern') || '', placeholder: el.placeholder || ''}));
    const sliders = all('body *').filter(el => (el.matches(HANDLE) || grabby(el)) && onTrack(el))
      .filter((el, i, list) => !list.some(other => other !== el && other.contains(el)))
      .map(el => ({label: el.getAttribute('aria-label') || '', rect: rect(el),
        track: el.parentElement ? rect(el.parentElement) : null}));
    const checkboxes = all('[role=checkbox],input[type=checkbox]').map(el => ({label: (el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].innerText : '') || el.innerText || '').trim(),
      checked: el.getAttribute('aria-checked') === 'true' || el.checked === true, rect: rect(el)}));
    const buttons = all('button,[role=button],input[type=submit],input[type=button]').map(el => ({text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim(), rect: rect(el)}));
    const status = all('[role=status],[role=alert],[aria-live]').map(el => (el.innerText || '').trim()).filter(Boolean);
    return {rect: rect(root), text: (root.innerText || '').trim().slice(0, 600), images: imgs, inputs, sliders,
            checkboxes, buttons, status};
  };
  const alerts = Array.from(document.querySelectorAll('[role=alert]')).filter(visible)
    .map(el => (el.innerText || '').trim()).filter(Boolean);
  return {frames, widgets: roots.slice(0, 3).map(describe), alerts};
}
"""


@dataclass
class Widget:
    """A CAPTCHA widget as the page shows it (CSS pixels)."""

    kind: str
    rect: dict[str, float]
    instruction: str
    images: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    sliders: list[dict[str, Any]] = field(default_factory=list)
    checkboxes: list[dict[str, Any]] = field(default_factory=list)
    buttons: list[dict[str, Any]] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    frame_src: str = ""
    page_alerts: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        """The page says the last answer to a CAPTCHA was refused (a form re-shown with an error)."""
        return any(REJECTED.search(text) for text in self.page_alerts)

    def record(self) -> dict[str, Any]:
        return {"kind": self.kind, "instruction": self.instruction[:300], "rect": self.rect,
                "images": len(self.images), "frame": self.frame_src}


_RULES: list[tuple[str, re.Pattern]] = [
    ("image_rotation", re.compile(r"rotat|upright|turn the (picture|image)|旋转|转正|摆正", re.I)),
    ("slider_puzzle", re.compile(r"puzzle|slide to|drag the slider|fit the (piece|puzzle)|拼图|滑块|向右滑动", re.I)),
    ("text_click", re.compile(r"[「“\"'][\u3400-\u9fff][」”\"']|click (the )?(characters|words|text)|依次点击|按顺序点击.*字", re.I)),
    ("icon_click", re.compile(r"click (on )?(the )?icons?|icons? in (this|the) order|点击.*图标|按顺序点击", re.I)),
    ("drag_end", re.compile(r"\bdrag\b|\bmove the \w+ (in)?to|onto its|into its (slot|place)|拖动|拖到|拖入|移到", re.I)),
    ("oneclick_login", re.compile(r"i am human|i'm not a robot|i am not a robot|verify (that )?you are human|我不是机器人|点击验证", re.I)),
    ("visual_reasoning", re.compile(r"how many|which (shape|colour|color|one)|what (colour|color|shape)|\?\s*$|多少|几个|哪个", re.I)),
]


def classify(raw: dict[str, Any]) -> str:
    """The widget's type: structure first, then the instruction text, then structure again."""
    kind = _by_handle(raw)
    if kind:
        return kind
    text = raw.get("text", "")
    texts = " ".join([text, *(s.get("label", "") for s in raw.get("sliders", [])),
                      *(c.get("label", "") for c in raw.get("checkboxes", []))])
    for kind, pattern in _RULES:
        if pattern.search(texts):
            if kind == "oneclick_login" and not raw.get("checkboxes"):
                continue
            if kind == "visual_reasoning" and not raw.get("inputs"):
                continue
            return kind
    if raw.get("inputs") and raw.get("images"):
        return "ocr"
    if raw.get("checkboxes") and not raw.get("images"):
        return "oneclick_login"
    if _small_positioned(raw):
        return "drag_end"
    return "unknown"


def _area(image: dict[str, Any]) -> float:
    return image["rect"]["width"] * image["rect"]["height"]


def _small_positioned(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """Small images positioned on or over a bigger one (a puzzle piece, an item to drag)."""
    images = raw.get("images") or []
    if len(images) < 2:
        return []
    main = max(images, key=_area)
    return [i for i in images if i is not main and 0.005 * _area(main) < _area(i) < 0.4 * _area(main)
            and (i.get("positioned") or _overlap(i["rect"], main["rect"]) > 0.5 * _area(i))]


def _overlap(a: dict[str, float], b: dict[str, float]) -> float:
    width = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    height = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(width, 0) * max(height, 0)


def rotation_pair(images: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """(upright reference, turned piece, layout) when the two largest pictures are a square-ish
    piece centred over a bigger picture (layout "over": a turned disc in an upright ring) or
    beside it without touching it ("beside": a turned thumbnail of an upright master); None
    otherwise. A slider puzzle's piece starts at the picture's left edge, over it: not a pair."""
    if len(images) < 2:
        return None
    main, piece = sorted(images, key=_area, reverse=True)[:2]
    a, b = main["rect"], piece["rect"]
    if not (0.02 * _area(main) < _area(piece) < 0.8 * _area(main)) or not 0.8 <= b["width"] / b["height"] <= 1.25:
        return None
    dx = abs(b["x"] + b["width"] / 2 - (a["x"] + a["width"] / 2))
    dy = abs(b["y"] + b["height"] / 2 - (a["y"] + a["height"] / 2))
    centred = dx <= 0.08 * a["width"] and dy <= 0.08 * a["height"]
    if centred:
        return main, piece, "over"
    return (main, piece, "beside") if _overlap(a, b) == 0 else None


def _by_handle(raw: dict[str, Any]) -> str | None:
    """A draggable handle on a track next to a picture: a turned piece centred over or beside an
    upright picture is a rotation, a small positioned piece over the picture a slider puzzle,
    a lone picture a rotation (whatever the wording)."""
    if not raw.get("sliders") or not raw.get("images") or raw.get("inputs"):
        return None
    if rotation_pair(raw["images"]):
        return "image_rotation"
    return "slider_puzzle" if _small_positioned(raw) else "image_rotation"


async def detect(page: Page) -> Widget | None:
    """The first CAPTCHA on the page, or None. Page trouble is None, except a page that does not
    answer within `PAGE_READ_TIMEOUT_S` (a navigation it started is not finishing): StepError."""
    try:
        found = await page_read(page, page.evaluate(_SCAN), "could not look for a CAPTCHA")
    except PlaywrightError:
        return None
    for frame in found["frames"]:
        return Widget(kind="third_party", rect=frame["rect"], instruction="", frame_src=frame["src"],
                      page_alerts=found["alerts"])
    for raw in found["widgets"]:
        kind = classify(raw)
        if kind == "unknown" and not (raw["images"] or raw["inputs"] or raw["sliders"] or raw["checkboxes"]):
            continue  # a word match without a widget (e.g. a help text mentioning CAPTCHAs)
        return Widget(kind=kind, rect=raw["rect"], instruction=raw["text"], images=raw["images"],
                      inputs=raw["inputs"], sliders=raw["sliders"], checkboxes=raw["checkboxes"],
                      buttons=raw["buttons"], status=raw["status"], page_alerts=found["alerts"])
    return None
