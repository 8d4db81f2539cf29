"""The browser's reads for the replay cache (`workers.replay.Replayable`): the screen's
fingerprint, the anchor of the element under an action's point, and where an anchor is now.

- Fingerprint: the URL path, a digest of the visible controls in document order (tag, role, input
  type, accessible name, id) and headings, digits folded so clocks and counters do not drift it,
  and a digest of the page's full visible text (only checked for a turn that answers). Raw pixels
  are not used: ads, carets and clocks change them on every load.
- Anchor: what identifies the element an action acts on (the control under the point, or the
  element itself): tag, role, accessible name, text, id, name attribute, input type and a robust
  CSS selector (kept as evidence; resolution compares the fields, the page never runs it).
- Resolution: the visible elements of the anchor's tag whose fields all match; exactly one is a
  hit (its centre, in the model's 0-1000 space), none or several is a drift, and so is a hit
  outside the viewport.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

COMMON_JS = r"""
const CONTROL = 'button,a[href],input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
  '[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],[onclick],[contenteditable=""],[contenteditable=true]';
const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
const norm = (t) => (t || '').replace(/\s+/g, ' ').trim().slice(0, 80);
const fold = (t) => norm(t).replace(/[0-9]+/g, '#');
const nameOf = (e) => {
  const aria = e.getAttribute('aria-label'); if (aria) return norm(aria);
  const by = e.getAttribute('aria-labelledby');
  if (by) { const t = by.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean).map(x => x.innerText).join(' ');
            if (t.trim()) return norm(t); }
  if (e.labels && e.labels.length) return norm(Array.from(e.labels).map(l => l.innerText).join(' '));
  if (e.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(e.type)) return norm(e.value);
  const text = norm(e.innerText); if (text) return text;
  return norm(e.getAttribute('placeholder') || e.getAttribute('title') || e.getAttribute('alt') || '');
};
const IMPLICIT = {A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button'};
const roleOf = (e) => {
  if (e.getAttribute('role')) return e.getAttribute('role');
  if (e.tagName === 'INPUT') return ({checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button',
                                      reset: 'button', image: 'button'})[e.type] || 'textbox';
  return IMPLICIT[e.tagName] || '';
};
const selectorOf = (e) => {
  const tag = e.tagName.toLowerCase();
  if (e.id && document.querySelectorAll('#' + CSS.escape(e.id)).length === 1) return '#' + CSS.escape(e.id);
  const nm = e.getAttribute('name');
  if (nm && document.querySelectorAll(tag + '[name="' + CSS.escape(nm) + '"]').length === 1) return tag + '[name="' + CSS.escape(nm) + '"]';
  const parts = [];
  for (let x = e; x && x !== document.body && parts.length < 6; x = x.parentElement) {
    if (x.id) { parts.unshift('#' + CSS.escape(x.id)); break; }
    const same = x.parentElement ? Array.from(x.parentElement.children).filter(c => c.tagName === x.tagName) : [x];
    parts.unshift(x.tagName.toLowerCase() + (same.length > 1 ? ':nth-of-type(' + (same.indexOf(x) + 1) + ')' : ''));
  }
  return parts.join(' > ');
};
const anchorOf = (e) => ({tag: e.tagName.toLowerCase(), role: roleOf(e), name: nameOf(e), text: norm(e.innerText),
  id: e.id || '', name_attr: e.getAttribute('name') || '', type: e.tagName === 'INPUT' ? e.type : '',
  selector: selectorOf(e)});
const keyOf = (a) => [a.tag, a.role, fold(a.name), a.id, a.name_attr, a.type].join('|');
const fnv = (text) => { let h = 2166136261; for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i);
  h = Math.imul(h, 16777619); } return (h >>> 0).toString(16); };
"""

FINGERPRINT_JS = "() => {" + COMMON_JS + r"""
  const parts = [];
  for (const e of document.querySelectorAll(CONTROL + ',h1,h2,h3')) {
    if (!visible(e)) continue;
    const a = anchorOf(e);
    parts.push(/^H[1-3]$/.test(e.tagName) ? e.tagName + ':' + fold(e.innerText) : keyOf(a));
  }
  return {path: location.pathname, controls: fnv(parts.join('\n')) + ':' + parts.length,
          text: fnv(document.body ? document.body.innerText : '')};
}
"""

ANCHOR_JS = "([x, y]) => {" + COMMON_JS + r"""
  const under = document.elementFromPoint(x, y);
  if (!under || under === document.body || under === document.documentElement) return null;
  return anchorOf(under.closest(CONTROL) || under);
}
"""

RESOLVE_JS = "([anchor, width, height]) => {" + COMMON_JS + r"""
  const want = keyOf(anchor);
  const hits = Array.from(document.querySelectorAll(anchor.tag)).filter(e => visible(e) && keyOf(anchorOf(e)) === want);
  if (hits.length !== 1) return {count: hits.length};
  const r = hits[0].getBoundingClientRect();
  const cx = r.x + r.width / 2, cy = r.y + r.height / 2;
  if (cx < 0 || cy < 0 || cx >= width || cy >= height) return {count: 1, offscreen: true};
  const top = document.elementFromPoint(cx, cy);
  if (!top || !(hits[0] === top || hits[0].contains(top) || top.contains(hits[0]))) return {count: 1, covered: true};
  return {count: 1, x: cx, y: cy};
}
"""

TAG_OK = frozenset("a abbr article aside b button canvas dd details div dt em fieldset figure footer form h1 h2 h3 h4 h5 "
                   "h6 header i img input label legend li main nav ol option p section select span strong summary "
                   "svg table tbody td textarea th thead tr u ul".split())


async def screen_fingerprint(page: Page) -> dict[str, str]:
    return await page.evaluate(FINGERPRINT_JS)


async def anchor_at(page: Page, x: int, y: int) -> dict[str, Any] | None:
    return await page.evaluate(ANCHOR_JS, [x, y])


async def resolve(page: Page, anchor: dict[str, Any], *, width: int, height: int) -> tuple[tuple[int, int] | None, str]:
    """The anchored element's centre in the model's 0-1000 space, or (None, the drift)."""
    tag = str(anchor.get("tag", ""))
    if tag not in TAG_OK:  # a cache entry is data: only plain tag names reach querySelectorAll
        return None, f"the cached anchor's tag {tag[:20]!r} is not one the replay resolves"
    clean = {k: str(anchor.get(k, ""))[:200] for k in ("tag", "role", "name", "id", "name_attr", "type")}
    found = await page.evaluate(RESOLVE_JS, [clean, width, height])
    label = f"{clean['role'] or clean['tag']} {clean['name']!r}"
    if found["count"] == 0:
        return None, f"the target {label} is not on the screen any more"
    if found["count"] > 1:
        return None, f"the target {label} is ambiguous ({found['count']} matches)"
    if found.get("offscreen") or found.get("covered"):
        return None, f"the target {label} is {'outside the viewport' if found.get('offscreen') else 'covered'}"
    return (round(found["x"] * 1000 / width), round(found["y"] * 1000 / height)), ""
