"""The step picker's element map: for each visible element a person may mean, its box and the
most robust target the grounder itself verifies.

`element_map(page, purpose=...)` tags every visible actionable or labelled element (controls,
fields, headings, images with alt text, short texts), then, for each, tries targets from the
most natural to the most specific, each checked with the runtime's own grounder
(`workers.grounding.find_now`) on the live page:

1. the words a person sees (label, accessible name, text, placeholder, tooltip) as a plain
   target, then the same words as `label` or `role` + `name`;
2. when the words match several elements, the same words scoped `within` the region only this
   one sits in (`workers.ambiguity.proposals`: heading, legend, landmark, dialog, form label);
3. else `near` a short visible text beside it;
4. else `nth` (reported as fragile).

A target counts only when the grounder's match is this element (or a link to the same address,
which the grounder treats as one target). Each entry carries the verified match count (1 is
good) and a sentence saying why, so the dashboard can show it; nothing here waits for a person.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Error as PlaywrightError, Page

from workers.ambiguity import describe, proposals
from workers.grounding import find_now
from workers.steps import TARGET_ROLES, Target
from workers.targeting import PROBE_JS, Purpose, normalise

PICK_ATTR = "data-venus-pick"
MAX_ELEMENTS = 150
CONCURRENCY = 6  # grounder look-ups in flight at once: round trips overlap
STRICT = ("fill", "select", "check", "input")  # purposes a non-fitting element can never serve
ROLE_NAMES = set(TARGET_ROLES.__args__)

# Tags visible elements a person may point at with PICK_ATTR=index and reports their boxes,
# implicit role and accessible-name candidates. Texts inside a control are the control's.
_ENUMERATE_JS = r"""
([attr, limit, maxHeight]) => {
  document.querySelectorAll('[' + attr + ']').forEach(e => e.removeAttribute(attr));
  const tag = el => el.tagName.toLowerCase();
  const type = el => (el.getAttribute('type') || 'text').toLowerCase();
  const CONTROL = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[role=combobox],' +
    '[role=listbox],[role=textbox],[role=searchbox],[role=spinbutton],[role=slider],[contenteditable=""],' +
    '[contenteditable=true],[onclick],[tabindex]:not([tabindex="-1"])';
  const LABELLED = 'h1,h2,h3,h4,h5,h6,[role=heading],img[alt],[title],[aria-label],th,td,label,legend,li,p,span,div,dt,dd,strong,em,b';
  const visible = el => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || r.bottom <= 0 || r.right <= 0 || r.top >= maxHeight) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && parseFloat(s.opacity || '1') > 0.05;
  };
  const ownText = el => Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.nodeValue).join(' ')
    .replace(/\s+/g, ' ').trim();
  const words = el => (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
  const implicit = el => {
    const r = (el.getAttribute('role') || '').split(/\s+/)[0];
    if (r) return r;
    const t = tag(el);
    if (t === 'a') return 'link';
    if (t === 'button' || t === 'summary') return 'button';
    if (t === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (t === 'textarea') return 'textbox';
    if (/^h[1-6]$/.test(t)) return 'heading';
    if (t === 'img') return 'img';
    if (t === 'input') return ({checkbox: 'checkbox', radio: 'radio', search: 'searchbox', number: 'spinbutton',
      range: 'slider', button: 'button', submit: 'button', reset: 'button', image: 'button'})[type(el)] || 'textbox';
    return '';
  };
  const nameOf = el => {
    if (el.getAttribute('aria-labelledby')) {
      const t = el.getAttribute('aria-labelledby').split(/\s+/).map(id => document.getElementById(id))
        .filter(Boolean).map(words).join(' ').trim();
      if (t) return t;
    }
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label').trim();
    if (el.labels && el.labels.length) return words(el.labels[0]);
    if (tag(el) === 'input' && ['button', 'submit', 'reset'].includes(type(el))) return el.value;
    if (tag(el) === 'img') return el.getAttribute('alt') || '';
    const t = words(el);
    if (t) return t.slice(0, 80);
    const img = el.querySelector && el.querySelector('img[alt]');
    if (img && img.getAttribute('alt')) return img.getAttribute('alt');
    return (el.getAttribute('title') || '').trim();
  };
  const controls = Array.from(document.querySelectorAll(CONTROL)).filter(visible);
  const inControl = el => controls.some(c => c !== el && c.contains(el));
  const labelled = Array.from(document.querySelectorAll(LABELLED)).filter(el => {
    if (controls.includes(el) || !visible(el) || inControl(el)) return false;
    if (tag(el) === 'label' && el.control) return false;  // the field's own entry covers it
    const own = ownText(el);
    if (own.length < 2 && controls.some(c => el.contains(c))) return false;  // a box around controls
    return /^(h[1-6]|img|th|td|legend)$/.test(tag(el)) || el.hasAttribute('title') || el.hasAttribute('aria-label')
      || el.getAttribute('role') === 'heading' || (own.length >= 2 && own.length <= 80);
  });
  const chosen = [...controls, ...labelled].slice(0, limit);
  return chosen.map((el, i) => {
    el.setAttribute(attr, String(i));
    const r = el.getBoundingClientRect();
    const also = (el.labels ? Array.from(el.labels) : []).filter(visible).map(l => {
      const b = l.getBoundingClientRect(); return [b.x, b.y, b.width, b.height];
    });
    return {id: i, box: [r.x, r.y, r.width, r.height], also, role: implicit(el), name: nameOf(el),
            control: controls.includes(el), tag: tag(el)};
  });
}
"""
# The picked element (or the enumerated element holding it) of each element a locator found.
_OWNER_JS = f"els => els.map(el => {{ const o = el.closest('[{PICK_ATTR}]'); return o ? +o.getAttribute('{PICK_ATTR}') : -1; }})"
# Short visible texts near element `id`, nearest first (for `near` targets).
_NEAR_JS = r"""
([attr, id]) => {
  const el = document.querySelector('[' + attr + '="' + id + '"]');
  if (!el) return [];
  const r = el.getBoundingClientRect();
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.nodeValue || '').replace(/\s+/g, ' ').trim();
    if (text.length < 2 || text.length > 40 || el.contains(n.parentElement)) continue;
    range.selectNodeContents(n);
    const b = range.getBoundingClientRect();
    if (!b.width || !b.height) continue;
    const dx = Math.max(b.left - r.right, r.left - b.right, 0), dy = Math.max(b.top - r.bottom, r.top - b.bottom, 0);
    const d = Math.hypot(dx, dy);
    if (d <= 150) out.push([d, text]);
  }
  out.sort((a, b) => a[0] - b[0]);
  return [...new Set(out.map(x => x[1]))].slice(0, 3);
}
"""


async def element_map(page: Page, *, purpose: Purpose, max_height: float, limit: int = MAX_ELEMENTS,
                      budget_s: float = 40.0) -> list[dict]:
    """Every element a person may point at (within the first `max_height` pixels), with its box
    (x, y, width, height in page pixels, `also`: the boxes of its labels), how a person would
    describe it, and the target the grounder verified for `purpose` (see the module docstring).
    Elements are worked out a few at a time (the page answers them in turn); past `budget_s` the
    rest are listed without a target, saying so."""
    raw = await page.evaluate(_ENUMERATE_JS, [PICK_ATTR, limit, max_height])
    if not raw:
        return []
    infos = await page.locator(f"[{PICK_ATTR}]").evaluate_all(
        PROBE_JS, {"purpose": purpose, "text": "", "near": None, "match": None})
    by_id = dict(zip(await page.locator(f"[{PICK_ATTR}]").evaluate_all(_OWNER_JS), infos))
    deadline = asyncio.get_running_loop().time() + budget_s
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(entry: dict, info: dict) -> dict:
        async with gate:
            if asyncio.get_running_loop().time() > deadline:
                derived = {"target": None, "count": 0,
                           "why": "the page has too many elements to work this one out in time; write its target"}
            else:
                derived = await derive(page, entry, info, purpose=purpose)
        return {"id": entry["id"], "box": [round(v, 1) for v in entry["box"]],
                "also": [[round(v, 1) for v in b] for b in entry["also"]],
                "describe": describe(info), "fits": info["fits"], **derived}

    return list(await asyncio.gather(*(one(entry, by_id[entry["id"]]) for entry in raw if entry["id"] in by_id)))


def _bases(entry: dict, info: dict) -> list[dict]:
    """Targets made of the words a person sees, most natural first."""
    bases: list[dict] = []
    seen: set[str] = set()
    for words in (info.get("label"), entry.get("name"), info.get("text"), info.get("value"),
                  info.get("placeholder"), info.get("tooltip")):
        words = (words or "").strip()
        if words and len(words) <= 80 and normalise(words) not in seen:
            seen.add(normalise(words))
            bases.append({"text": words})
    if info.get("label"):
        bases.append({"label": info["label"].strip()})
    if entry.get("role") in ROLE_NAMES and (entry.get("name") or "").strip() and len(entry["name"]) <= 80:
        bases.append({"role": entry["role"], "name": entry["name"].strip()})
    if info.get("placeholder"):
        bases.append({"placeholder": info["placeholder"]})
    return bases


async def _verify(page: Page, target: dict, purpose: Purpose, entry: dict, href: str | None):
    """(count, this element's index among the matches, the matches' probe infos), or None when the
    grounder does not pick this element with `target`."""
    try:
        found = await find_now(page, Target.model_validate(target), purpose=purpose)
    except (PlaywrightError, ValueError):
        return None
    if found is None:
        return None
    owners = await found.locator.evaluate_all(_OWNER_JS)
    matches = [found.infos[i] for i in found.picked]
    for position, i in enumerate(found.picked):
        if owners[i] == entry["id"] or (href and found.infos[i]["href"] == href):
            return len(found.picked), position, matches
    return None


async def derive(page: Page, entry: dict, info: dict, *, purpose: Purpose) -> dict[str, Any]:
    """The most robust verified target for one tagged element: {target, count, why}."""
    fallback: dict[str, Any] | None = None
    if purpose in STRICT and not info["fits"]:
        return {"target": None, "count": 0, "why": _unfit(purpose)}
    href = info.get("href") if info.get("kind") == "link" or entry.get("tag") == "a" else None
    for base in _bases(entry, info):
        verified = await _verify(page, base, purpose, entry, href)
        if verified is None:
            continue
        count, index, matches = verified
        if count == 1:
            return _result(base, 1, f"{_said(base)} matches this element only")
        scoped = proposals(Target.model_validate(base), matches)[index]
        if "within" in scoped and await _unique(page, scoped, purpose, entry, href):
            return _result(scoped, 1, f"{_said(base)} matches {count} elements; within {scoped['within']!r} only this "
                                      "one")
        for text in await page.evaluate(_NEAR_JS, [PICK_ATTR, entry["id"]]):
            near = {**base, "near": text}
            if await _unique(page, near, purpose, entry, href):
                return _result(near, 1, f"{_said(base)} matches {count} elements; the one nearest {text!r} is this "
                                        "one")
        if fallback is None:
            fallback = _result({**base, "nth": index}, count,
                               f"{_said(base)} matches {count} elements and no heading, box or nearby text tells them "
                               f"apart; nth {index} picks this one, but breaks if the page's order changes")
    if fallback is not None:
        return fallback
    return {"target": None, "count": 0,
            "why": "no words on the page name this element alone (no label, text, placeholder or tooltip)"}


def _unfit(purpose: Purpose) -> str:
    what = {"fill": "typed into", "select": "chosen from (a select, list or combobox)",
            "check": "checked (a checkbox, radio or switch)", "input": "filled in"}[purpose]
    return f"this is not something that can be {what}; pick the field itself"


async def _unique(page: Page, target: dict, purpose: Purpose, entry: dict, href: str | None) -> bool:
    verified = await _verify(page, target, purpose, entry, href)
    return verified is not None and verified[0] == 1


def _result(target: dict, count: int, why: str) -> dict[str, Any]:
    return {"target": target, "count": count, "why": why}


def _said(target: dict) -> str:
    return Target.model_validate(target).describe()
