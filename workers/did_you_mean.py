"""What the page does have, for a target that is not there.

"target 'Submit expence' not found" is followed by the names on the page closest to the words
("Did you mean 'Submit expense'?") and the nearest few of the kind the step looks for ("buttons
and links on the page: ..."). One evaluate reads the names of the visible interactive elements:
accessible names as a person sees them (aria labels, a field's label or placeholder, a button's
or link's text, a tooltip). What fields hold is never read: no value typed into a field, no
text of an editable region, nothing of a password field but its label. Names are ranked with
`difflib` on the words as targets are compared (`workers.targeting.normalise`); at most
`SHOWN` are shown, each cut to `NAME_CHARS`. The step's error, suggestions included, is scrubbed
of the run's secrets like every error (`workers.step_run`).
"""

from __future__ import annotations

import contextlib
import difflib

from playwright.async_api import Error as PlaywrightError, Page

from workers.loop import bounded
from workers.steps import Target
from workers.targeting import Purpose, normalise

SHOWN = 3
NAME_CHARS = 80
CUTOFF = 0.6  # difflib's own default for "close"
READ_S = 2.0
MAX_ELEMENTS = 500

# () -> [[groups, role, [names...]], ...] for the visible interactive elements, in page order.
# groups: "action" (buttons, links, tabs, menu items), "field" (takes typed text or a file),
# "list" (select, listbox, combobox), "check" (checkbox, radio, switch).
NAMES_JS = r"""
(max) => {
  const clean = s => (s || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const tag = el => el.tagName.toLowerCase();
  const byIds = ids => (ids || '').split(/\s+/).map(id => id && document.getElementById(id))
    .filter(Boolean).map(n => n.innerText || n.textContent).join(' ');
  const INPUT_ROLES = {button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
    radio: 'radio', search: 'searchbox', number: 'spinbutton', range: 'slider', file: 'button'};
  const roleOf = el => {
    const own = (el.getAttribute('role') || '').toLowerCase().split(/\s+/)[0];
    if (own) return own;
    const t = tag(el);
    if (t === 'a') return 'link';
    if (t === 'button' || t === 'summary') return 'button';
    if (t === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (t === 'textarea' || el.isContentEditable) return 'textbox';
    if (t === 'input') return INPUT_ROLES[el.type] || (el.hasAttribute('list') ? 'combobox' : 'textbox');
    return '';
  };
  const GROUPS = {button: ['action'], link: ['action'], menuitem: ['action'], tab: ['action'], option: ['action'],
    treeitem: ['action'], textbox: ['field'], searchbox: ['field'], spinbutton: ['field'], slider: ['field'],
    combobox: ['field', 'list'], listbox: ['list'], checkbox: ['check'], radio: ['check'], switch: ['check'],
    menuitemcheckbox: ['check'], menuitemradio: ['check']};
  const out = [];
  const all = document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + '[role], [contenteditable=""], [contenteditable=true]');
  for (const el of all) {
    if (out.length >= max) break;
    const role = roleOf(el);
    const groups = (tag(el) === 'input' && el.type === 'file') ? ['field'] : GROUPS[role];
    if (!groups || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden'
        || el.closest('[aria-hidden=true]')) continue;
    const names = [byIds(el.getAttribute('aria-labelledby')), el.getAttribute('aria-label')];
    if (el.labels) names.push(...Array.from(el.labels).map(l => l.innerText));
    const typed = groups.includes('field') || groups.includes('list') || el.isContentEditable;
    if (typed) names.push(el.getAttribute('placeholder'));
    else if (tag(el) === 'input') names.push(['button', 'submit', 'reset'].includes(el.type) ? el.value : '', el.getAttribute('alt'));
    else names.push(el.innerText, ...Array.from(el.querySelectorAll('img[alt]')).map(i => i.alt));
    names.push(el.getAttribute('title'));
    const kept = [...new Set(names.map(clean).filter(Boolean))];
    if (kept.length) out.push([groups, role, kept]);
  }
  return out;
}
"""

GROUPS: dict[str, tuple[str, ...]] = {
    "click": ("action", "check"), "fill": ("field",), "select": ("list",), "check": ("check",),
    "input": ("field", "list", "check"), "any": ("action", "field", "list", "check"),
}
NOUNS = {"click": "buttons and links", "fill": "fields", "select": "lists", "check": "checkboxes and radio buttons",
         "input": "fields", "any": "buttons, links and fields"}


async def did_you_mean(page: Page, target: Target, purpose: Purpose) -> str:
    """The hint that follows "not found": `". Did you mean 'X'? (buttons and links on the page: 'X',
    'Y', 'Z', and 4 more)"`; "" when the target has no words to compare (CSS) or the page cannot
    be read now."""
    wanted = target.name or target.label or target.placeholder or target.text
    if not wanted or target.css:
        return ""
    with contextlib.suppress(PlaywrightError, TimeoutError):
        elements = await bounded(page.evaluate(NAMES_JS, MAX_ELEMENTS), READ_S)
        return suggestion(wanted, elements, purpose=purpose, role=target.role)
    return ""


def suggestion(wanted: str, elements: list, *, purpose: Purpose, role: str | None = None) -> str:
    """The hint for `elements` as NAMES_JS reads them (see `did_you_mean`)."""
    groups = GROUPS.get(purpose, GROUPS["any"])
    names = [names for kinds, kind, names in elements
             if (kind == role if role else any(g in groups for g in kinds))]
    noun = f"{role}s" if role else NOUNS.get(purpose, NOUNS["any"])
    ranked = _ranked(normalise(wanted), names)
    if not ranked:
        return f" (no {noun} on the page)"
    close = [name for score, name in ranked[:SHOWN] if score >= CUTOFF]
    shown = ", ".join(repr(name) for _, name in ranked[:SHOWN])
    more = f", and {len(ranked) - SHOWN} more" if len(ranked) > SHOWN else ""
    asked = f". Did you mean {_either(close)}?" if close else ""
    return f"{asked} ({noun} on the page: {shown}{more})"


def _ranked(wanted: str, names: list[list[str]]) -> list[tuple[float, str]]:
    """Each element's best name with its score, best first (page order among equals), one per name."""
    best: dict[str, tuple[float, int, str]] = {}
    for order, element in enumerate(names):
        score, name = max((_score(wanted, normalise(n)), n) for n in element)
        key = normalise(name)
        if key and (key not in best or score > best[key][0]):
            best[key] = (score, order, _short(name))
    return [(score, name) for score, _, name in sorted(best.values(), key=lambda b: (-b[0], b[1]))]


def _score(wanted: str, name: str) -> float:
    """How close the words are; a name that goes on after them ("Submit expense report") is
    compared by its first words too."""
    score = difflib.SequenceMatcher(None, wanted, name).ratio()
    head = " ".join(name.split()[:len(wanted.split())])
    if head != name:
        score = max(score, difflib.SequenceMatcher(None, wanted, head).ratio() - 0.05)
    return score


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


def _either(names: list[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
