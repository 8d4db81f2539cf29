"""How a target's words are matched, and what the page says about each candidate element.

Business users write targets from what they see: "Yes, I'm sure" for a button that reads
"Yes, I’m sure", "email address" for "Email address *". `name_pattern` turns their words into a
regular expression that ignores case, runs of whitespace, the kind of quote or apostrophe, and a
trailing ":" or "*". `PROBE_JS` runs on the candidates a Playwright locator found and reports, for
each, whether it fits the action (`fill` needs something editable, `select` a list, `check` a
checkbox or radio, `click` something actionable), the regions it sits in (headings, legends,
landmark, dialog and form labels, a box's bold title line), how a person would describe it, and where it is.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Purpose = Literal["click", "fill", "select", "check", "input", "any"]

SINGLE_QUOTES = "'’‘‛`´′"
DOUBLE_QUOTES = "\"“”„‟″"
_TRAILING = r"\s*[:*]?\s*"

# Roles whose accessible name can be the target's words, by purpose.
ROLES: dict[str, tuple[str, ...]] = {
    "click": ("button", "link", "menuitem", "tab", "option", "checkbox", "radio", "switch", "treeitem",
              "menuitemcheckbox", "menuitemradio"),
    "fill": ("textbox", "searchbox", "combobox", "spinbutton"),
    "select": ("combobox", "listbox"),
    "check": ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"),
    "input": ("textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio", "listbox", "slider", "switch"),
}
ROLES["any"] = tuple(dict.fromkeys(ROLES["click"] + ROLES["input"]))


def normalise(text: str) -> str:
    """Text as it is compared: NFKC, one kind of quote, single spaces, lower case, no trailing ':'/'*'."""
    text = unicodedata.normalize("NFKC", text or "")
    text = re.sub(f"[{re.escape(SINGLE_QUOTES)}]", "'", text)
    text = re.sub(f"[{re.escape(DOUBLE_QUOTES)}]", '"', text)
    text = re.sub(r"\s+", " ", text).strip().casefold()
    return re.sub(r"\s*[:*]$", "", text).strip()


def _body(text: str) -> str:
    out = []
    for char in normalise(text):
        if char in SINGLE_QUOTES:
            out.append(f"[{re.escape(SINGLE_QUOTES)}]")
        elif char in DOUBLE_QUOTES:
            out.append(f"[{re.escape(DOUBLE_QUOTES)}]")
        elif char == " ":
            out.append(r"\s+")
        elif char == "/":  # Playwright writes the pattern into a /.../ selector without escaping it
            out.append(r"\/")
        else:
            out.append(re.escape(char))
    return "".join(out)


def name_pattern(text: str, how: Literal["exact", "prefix", "contains"]) -> re.Pattern[str]:
    """A case-insensitive pattern for text: the whole name, the name's start (a label followed by
    help text), or anywhere in it."""
    body = _body(text)
    if how == "exact":
        return re.compile(rf"^\s*{body}{_TRAILING}$", re.IGNORECASE)
    if how == "prefix":
        return re.compile(rf"^\s*{body}(?:$|[\s:*(.,;–—-])", re.IGNORECASE)
    return re.compile(body, re.IGNORECASE)


# Runs in the page with (elements, args); args = {purpose, match, text, near}. `match` names a
# check the locator itself cannot do ("tooltip": title / tooltip / aria-description; "name_attr":
# the name or id attribute; "region": the header cell before the field in its table row, or a
# heading, summary or legend the field sits under, `rank` telling how near; "signin": an unlabelled sign-in field); the probe then reports whether each
# element matches the text.
PROBE_JS = r"""
(elements, args) => {
  const norm = s => (s || '').normalize('NFKC').replace(/[’‘‛`´′]/g, "'").replace(/[“”„‟″]/g, '"')
    .replace(/\s+/g, ' ').trim().toLowerCase().replace(/\s*[:*]$/, '').trim();
  const text = el => el ? (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim() : '';
  const byIds = ids => (ids || '').split(/\s+/).map(id => id && document.getElementById(id))
    .filter(Boolean).map(text).join(' ').trim();
  const tag = el => el.tagName.toLowerCase();
  const type = el => (el.getAttribute('type') || (tag(el) === 'input' ? 'text' : '')).toLowerCase();
  const role = el => (el.getAttribute('role') || '').toLowerCase().split(/\s+/)[0];
  const TEXT_TYPES = ['text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date',
    'datetime-local', 'month', 'week', 'time', ''];
  const editable = el => {
    if (el.disabled || el.readOnly) return false;
    if (tag(el) === 'textarea') return true;
    if (tag(el) === 'input') return TEXT_TYPES.includes(type(el)) && !['listbox'].includes(role(el));
    if (el.isContentEditable) return true;
    return ['textbox', 'searchbox', 'spinbutton'].includes(role(el))
      || (role(el) === 'combobox' && (el.isContentEditable || tag(el) === 'input'));
  };
  const selectable = el => tag(el) === 'select' || ['listbox', 'combobox'].includes(role(el))
    || (tag(el) === 'input' && el.hasAttribute('list'));
  const checkable = el => (tag(el) === 'input' && ['checkbox', 'radio'].includes(type(el)))
    || ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role(el));
  const ACTION_ROLES = ['button', 'link', 'menuitem', 'tab', 'option', 'treeitem', 'checkbox', 'radio',
    'switch', 'menuitemcheckbox', 'menuitemradio'];
  const actionableSelf = el => {
    const t = tag(el);
    if (t === 'button' || t === 'summary' || (t === 'a' && el.hasAttribute('href'))) return true;
    if (t === 'input' && ['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file'].includes(type(el))) return true;
    if (ACTION_ROLES.includes(role(el))) return true;
    if (el.hasAttribute('onclick')) return true;
    const tab = el.getAttribute('tabindex');
    if (tab !== null && parseInt(tab, 10) >= 0) return true;
    return t === 'label' && !!el.control;
  };
  const actionable = el => {
    for (let a = el, depth = 0; a && a !== document.body && depth < 4; a = a.parentElement, depth++)
      if (actionableSelf(a)) return true;
    return editable(el) || selectable(el) || checkable(el);
  };
  const fits = el => {
    switch (args.purpose) {
      case 'fill': return editable(el);
      case 'select': return selectable(el);
      case 'check': return checkable(el);
      case 'click': return actionable(el);
      case 'input': return editable(el) || selectable(el) || checkable(el) || (tag(el) === 'input' && type(el) === 'file');
      default: return true;
    }
  };
  const labelOf = el => {
    if (el.getAttribute('aria-labelledby')) { const t = byIds(el.getAttribute('aria-labelledby')); if (t) return t; }
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label').trim();
    if (el.labels && el.labels.length) return text(el.labels[0]);
    return '';
  };
  const tooltipOf = el => {
    const parts = [el.getAttribute('title'), el.getAttribute('data-tooltip'), el.getAttribute('data-title'),
      el.getAttribute('data-original-title'), el.getAttribute('data-bs-original-title'),
      el.getAttribute('aria-description'), byIds(el.getAttribute('aria-describedby')),
      // Apps that draw tooltips from their own attribute (django CMS: data-cms-tooltip).
      ...Array.from(el.attributes || []).filter(a => /^data-[\w-]+-tooltip$/.test(a.name)).map(a => a.value)];
    const svgTitle = el.querySelector && el.querySelector('svg title');
    if (svgTitle) parts.push(svgTitle.textContent);
    return parts.filter(Boolean).map(s => s.trim());
  };
  // Regions: the names of the landmarks, dialogs, forms and fieldsets around el, and the
  // headings whose section (in document order, until the next heading of the same or a higher
  // level, inside the heading's box) holds it; nearest first.
  const headings = Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]'))
    .filter(h => h.getClientRects().length);
  const level = h => /^h[1-6]$/.test(tag(h)) ? +tag(h)[1] : +(h.getAttribute('aria-level') || 2);
  // A heading's section ends with the box it sits in (a card, a column), not only at the next
  // heading: climb out of wrappers that hold nothing but the heading.
  const sectionOf = h => {
    let c = h.parentElement;
    while (c && c !== document.body && norm(text(c)) === norm(text(h))) c = c.parentElement;
    return c || document.body;
  };
  // A box titled by its first line in bold (<p><b>Issues</b><br>links…</p>, as older apps draw
  // sidebars): the title names the box.
  const boxTitle = a => {
    const first = a.firstElementChild;
    if (!first || !['b', 'strong'].includes(tag(first))) return '';
    for (let n = a.firstChild; n && n !== first; n = n.nextSibling)
      if (n.nodeType === Node.TEXT_NODE && n.textContent.trim()) return '';
    const next = first.nextElementSibling;
    if (!(next && tag(next) === 'br') && getComputedStyle(first).display !== 'block') return '';
    return text(first);
  };
  const regionName = a => {
    if (a.getAttribute('aria-labelledby')) { const t = byIds(a.getAttribute('aria-labelledby')); if (t) return t; }
    if (a.getAttribute('aria-label') && !['input', 'select', 'textarea', 'button', 'a'].includes(tag(a)))
      return a.getAttribute('aria-label').trim();
    if (tag(a) === 'fieldset') { const l = a.querySelector(':scope > legend'); if (l) return text(l); }
    if (tag(a) === 'table') { const c = a.querySelector(':scope > caption'); if (c) return text(c); }
    if (tag(a) === 'details') { const s = a.querySelector(':scope > summary'); if (s) return text(s); }
    if (tag(a) === 'dialog' || ['dialog', 'alertdialog'].includes(role(a))) {
      const h = a.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]'); if (h) return text(h);
    }
    if (['p', 'div', 'td', 'li', 'section'].includes(tag(a))) return boxTitle(a);
    return '';
  };
  const regionsOf = el => {
    const names = [];
    const chain = [];
    for (const h of headings) {
      if (h.contains(el) || !(h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      if (!sectionOf(h).contains(el)) continue;
      while (chain.length && level(chain[chain.length - 1]) >= level(h)) chain.pop();
      chain.push(h);
    }
    const outline = chain.reverse().map(text);
    const around = [];
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const n = regionName(a); if (n) around.push(n);
    }
    // The nearest heading comes first unless a named container sits between it and el.
    const first = chain[0];
    let nearestAround = null;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement)
      if (regionName(a)) { nearestAround = a; break; }
    const headingFirst = first && (!nearestAround || nearestAround.contains(first));
    for (const n of (headingFirst ? [...outline, ...around] : [...around, ...outline]))
      if (n && !names.includes(n)) names.push(n);
    return names;
  };
  const nearEls = args.near ? Array.from(document.querySelectorAll('body *')).filter(e => {
    if (!e.getClientRects().length || ['script', 'style'].includes(tag(e))) return false;
    const own = norm(e.innerText || '');
    if (!own.includes(args.near)) return false;
    return !Array.from(e.children).some(c => norm(c.innerText || '').includes(args.near));
  }) : [];
  const nearBoxes = nearEls.map(e => e.getBoundingClientRect());
  // In a table or a list, "retire near bob" means the one in bob's row, however wide the row is.
  const rowOf = e => e.closest('tr, [role=row], li');
  const nearRows = new Set(nearEls.map(rowOf).filter(Boolean));
  const distance = r => nearBoxes.length ? Math.min(...nearBoxes.map(b => {
    const dx = Math.max(b.left - r.right, r.left - b.right, 0), dy = Math.max(b.top - r.bottom, r.top - b.bottom, 0);
    return Math.hypot(dx, dy);
  })) : null;
  // In the same row (or column) as the near text: what people mean by "the X next to Y" in a
  // table or a tree, however far across the row X sits.
  const aligned = r => nearBoxes.some(b => (r.top < b.bottom && r.bottom > b.top)
    || (r.left < b.right && r.right > b.left));
  // Sign-in fields often show no label at all (a box titled "Login" with two inputs): "Password"
  // is the one that masks what is typed, "Username" (or "User name", "Login", "Email") the field
  // a browser's password manager would fill with the account name.
  const words = v => norm((v || '').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' '));
  const PASSWORD_WORDS = ['password', 'passcode', 'pass word'];
  const ACCOUNT_WORDS = ['username', 'user name', 'user', 'login', 'login name', 'user id', 'userid', 'email',
    'email address', 'e mail', 'account', 'account name'];
  const signIn = el => {
    const auto = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
    if (PASSWORD_WORDS.includes(args.text))
      return type(el) === 'password' || auto.includes('current-password') || auto.includes('new-password');
    if (!ACCOUNT_WORDS.includes(args.text) || type(el) === 'password' || !editable(el)) return false;
    return auto.includes('username') || auto.includes('email')
      || [el.getAttribute('name'), el.id].some(v => v && ACCOUNT_WORDS.includes(words(v)));
  };
  // Forms laid out as tables label a field by the header cell before it in its row
  // (<tr><th>Change Note</th><td><textarea>…).
  const rowLabel = el => {
    const cell = el.closest('td');
    for (let c = cell && cell.previousElementSibling; c; c = c.previousElementSibling)
      if (tag(c) === 'th') return text(c);
    return '';
  };
  const matches = el => {
    if (args.match === 'signin') return signIn(el);
    if (args.match === 'region') return norm(rowLabel(el)) === args.text || regionsOf(el).some(r => norm(r) === args.text);
    if (args.match === 'tooltip') return tooltipOf(el).some(t => norm(t) === args.text);
    if (args.match === 'tooltip~') return tooltipOf(el).some(t => norm(t).includes(args.text));
    if (args.match === 'name_attr') return [el.getAttribute('name'), el.id].some(v => v && norm(v.replace(/[_-]+/g, ' ')) === args.text);
    return true;
  };
  return elements.map(el => {
    const r = el.getBoundingClientRect();
    const link = tag(el) === 'a' && el.hasAttribute('href') ? el.href : (el.closest('a[href]') || {}).href || null;
    return {
      matches: matches(el), fits: fits(el), regions: regionsOf(el), distance: distance(r),
      same_row: nearRows.has(rowOf(el)),
      rank: args.match === 'region' && norm(rowLabel(el)) !== args.text
        ? 1 + regionsOf(el).findIndex(n => norm(n) === args.text) : 0,
      href: link || null, has_text: !!text(el),
      kind: role(el) || (tag(el) === 'input' ? `input[${type(el)}]` : tag(el)),
      label: labelOf(el), placeholder: el.getAttribute('placeholder') || '', name: el.getAttribute('name') || '',
      text: text(el).slice(0, 60), tooltip: (tooltipOf(el)[0] || '').slice(0, 60),
      value: (tag(el) === 'input' && ['button', 'submit', 'reset'].includes(type(el))) ? el.value : '',
      near_found: !args.near || nearBoxes.length > 0, aligned: !!args.near && aligned(r),
    };
  });
}
"""
# The same, read back as one JSON string (cheaper than Playwright's value-by-value serialisation).
PROBE_JSON_JS = f"(elements, args) => JSON.stringify(({PROBE_JS})(elements, args))"
