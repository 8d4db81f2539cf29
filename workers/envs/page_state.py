"""The browser's reading for the step evaluator (`workers.evaluator.PageState`): one page round
trip that returns the URL, the document's identity (a reload is a new document) and its HTTP
status, a digest of the visible text and every visible control's state (and one with digits folded:
clocks and render timings), the scroll position, the element under the action's point and the
focused element, visible error messages (those named errors apart from warnings), status notices
and invalid fields. The focused field's value comes back to the worker (memory only) so a `Type`
can be checked against what was typed; the page receives nothing."""

from __future__ import annotations

from playwright.async_api import Page

from workers.evaluator import PageState

PAGE_STATE_JS = """
([x, y]) => {
  const ids = window.__venusIds || (window.__venusIds = {map: new WeakMap(), next: 1});
  const keyOf = (e) => { if (!e) return 0; if (!ids.map.has(e)) ids.map.set(e, ids.next++); return ids.map.get(e); };
  const CONTROL = 'button,a[href],input,select,textarea,summary,label,[role=button],[role=link],[role=checkbox],' +
                  '[role=tab],[role=menuitem],[role=option],[role=switch],[onclick],[tabindex],[contenteditable=""],[contenteditable=true]';
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
                           getComputedStyle(e).visibility !== 'hidden'; };
  // The form a control sends: its method, and whether every field still holds what the page
  // was served with (nothing typed, chosen or ticked).
  const selectPristine = (c) => {
    const defaults = Array.from(c.options).map(o => o.defaultSelected);
    if (!c.multiple && !defaults.includes(true)) return c.selectedIndex <= 0;  // the first option, as served
    return Array.from(c.options).every((o, i) => o.selected === defaults[i]);
  };
  const formOf = (f) => ({method: (f.getAttribute('method') || 'get').toLowerCase(), action: f.action || '',
    pristine: Array.from(f.elements).every(c => c.type === 'checkbox' || c.type === 'radio' ? c.checked === c.defaultChecked
      : c.tagName === 'SELECT' ? selectPristine(c)
      : typeof c.value !== 'string' || c.defaultValue === undefined || c.value === c.defaultValue)});  // a button has no default
  // Class words that mark a chosen state (`active`, `is-selected`, `cell--selected`, `Mui-checked`):
  // a cell, a row or a card a script selects without ARIA says so in its class.
  const MARK = /(^|[-_])(selected|active|current|focused|checked|chosen)$/i;
  const marks = (e) => (typeof e.className === 'string' ? e.className : '').split(/\\s+/).filter(w => MARK.test(w)).sort().join(' ');
  // Open lists: a list box, a menu, a drop-down (`dropdown-menu`, and a widget's own: `selectize-dropdown`,
  // `select2-dropdown`, `ant-select-dropdown`; not Bootstrap's `dropdown` or Bulma's `has-dropdown`
  // wrapper around its toggle).
  const LISTS = '[role=listbox],[role=menu],.dropdown-menu,:is([class$="-dropdown"],[class*="-dropdown "]):not(.has-dropdown)';
  const describe = (e) => {
    if (!e || e === document.body || e === document.documentElement) return {key: keyOf(e), tag: e ? e.tagName.toLowerCase() : ''};
    const editable = (e.isContentEditable || (['INPUT', 'TEXTAREA'].includes(e.tagName) &&
      !['button', 'submit', 'checkbox', 'radio', 'reset', 'image', 'file'].includes(e.type)));
    return {key: keyOf(e), tag: e.tagName.toLowerCase(), role: e.getAttribute('role') || '', type: e.type || '',
      name: (e.getAttribute('aria-label') || (e.innerText || '').trim() || e.name || e.id || '').slice(0, 60),
      control: !!e.closest(CONTROL), editable: editable,
      disabled: !!(e.disabled || e.getAttribute('aria-disabled') === 'true' || (e.closest && e.closest('fieldset[disabled]'))),
      readonly: !!e.readOnly, checked: e.checked === undefined ? null : e.checked,
      aria_checked: e.getAttribute('aria-checked'),  // a checkbox, radio or switch drawn by script
      expanded: e.getAttribute('aria-expanded'), selected: e.getAttribute('aria-selected'),
      pressed: e.getAttribute('aria-pressed'), open: e.tagName === 'SUMMARY' ? !!(e.parentElement && e.parentElement.open) : null,
      value_length: typeof e.value === 'string' ? e.value.length : null,
      selected_index: e.tagName === 'SELECT' ? e.selectedIndex : null,
      marked: marks(e),
      maxlength: typeof e.maxLength === 'number' ? e.maxLength : null,
      href: e.tagName === 'A' && e.href ? e.href : null,
      in_nav: !!(e.closest && e.closest('nav,header,[role=navigation],[role=menu],[role=menubar],.dropdown-menu')),
      in_dropdown: !!(e.closest && e.closest(LISTS)),
      form: e.form ? formOf(e.form) : null};
  };
  let under = (x === null) ? null : document.elementFromPoint(x, y);
  const target = under ? (under.closest(CONTROL) || under) : null;
  const active = document.activeElement;
  // A tooltip is what hovering shows (the pointer came to the target), not an effect: its text is
  // left out of the digests and lines, which read the text line by line, spaces collapsed.
  const without = (t, parts) => { for (const part of parts) t = t.split(part).join(' ');
    return t.split('\\n').map(l => l.replace(/\\s+/g, ' ').trim()).filter(Boolean).join('\\n'); };
  const textsOf = (css) => Array.from(document.querySelectorAll(css)).map(e => e.innerText || '').filter(Boolean);
  // Nor is the text of a live region or a screen-reader line drawn 1 px small (`sr-only`,
  // `visually-hidden`): a "Loading" an app announces to screen readers while it works shows nothing.
  const SR = '[role=status],[role=alert],[role=log],[aria-live],.sr-only,.visually-hidden,.screen-reader-text,.visuallyhidden';
  const unseen = Array.from(document.querySelectorAll(SR)).filter(e => { const r = e.getBoundingClientRect();
    const cs = getComputedStyle(e);  // cut to a pixel and out of the flow (not a `display: contents` wrapper)
    return (r.width <= 1 || r.height <= 1) && ['absolute', 'fixed'].includes(cs.position) &&
      (cs.overflow === 'hidden' || cs.clip !== 'auto' || cs.clipPath !== 'none'); }).map(e => e.innerText || '').filter(Boolean);
  const shown = document.body ? document.body.innerText : '';
  const bodyText = without(shown, [...textsOf('[role=tooltip]'), ...unseen]);
  // ... and without the open lists (a list box, a menu, a drop-down): what stays when they close.
  const bare = without(shown, [...textsOf('[role=tooltip],' + LISTS), ...unseen]);
  let text = bodyText;
  for (const c of document.querySelectorAll('input,select,textarea')) {  // a hidden input (a CSRF token) shows nothing
    if (c.type !== 'hidden') text += '\\u0000' + (c.type === 'checkbox' || c.type === 'radio' ? c.checked : c.value);
  }
  for (const d of document.querySelectorAll('details,dialog')) text += '\\u0001' + d.open;
  const digestOf = (t) => { let hash = 2166136261;
    for (let i = 0; i < t.length; i++) { hash ^= t.charCodeAt(i); hash = Math.imul(hash, 16777619); }
    return (hash >>> 0).toString(16); };
  let sx = window.scrollX, sy = window.scrollY;
  for (let e = under; e && e !== document.body; e = e.parentElement) { sx += e.scrollLeft; sy += e.scrollTop; }
  // Error messages: an alert role, or an element whose class or id names an error, a warning or a
  // danger as a word of its own (`system-message warning`, `error-message`, `alert-danger`,
  // `errornote`, `has-error`); short texts only, the outermost of nested matches.
  const ERRORISH = /^(error|errors|errornote|errorlist|err|warning|warn|danger|invalid|fail|failed|failure|negative)$/i;
  const PLEASANT = /^(success|succeeded|ok|info|information|hint|help|positive|confirmation)$/i;
  const words = (e) => ((typeof e.className === 'string' ? e.className : '') + ' ' + (e.id || '')).split(/[\\s_-]+/);
  const errorish = (e) => (e.getAttribute('role') === 'alert' || words(e).some(w => ERRORISH.test(w))) &&
    !words(e).some(w => PLEASANT.test(w));  // an alert that says it went well (a toast, `positive`) is not an error
  const NOT_MESSAGES = new Set(['HTML', 'BODY', 'FORM', 'INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'OPTION', 'SCRIPT', 'STYLE']);
  const found = [];
  for (const e of document.body ? document.body.querySelectorAll('[class],[id],[role=alert]') : []) {
    if (found.length >= 5 || NOT_MESSAGES.has(e.tagName) || !errorish(e) || !visible(e)) continue;
    if (found.some(f => f.contains(e))) continue;
    const said = (e.innerText || '').trim();  // a message has words (a count badge, "1", is none)
    if (said && said.length <= 400 && /\\p{L}/u.test(said)) found.push(e);
  }
  // ... or, in any language and with no class or ARIA to say so, a text drawn in red beside a
  // field of a form (`<span class="blad">`, a label turned red): how a form marks what it refused.
  const FIELDS = 'input:not([type=hidden]),select,textarea';
  const red = (e) => { const m = /^rgba?\\((\\d+), (\\d+), (\\d+)(?:, ([\\d.]+))?/.exec(getComputedStyle(e).color);
    return !!m && (m[4] === undefined || +m[4] > 0.5) && +m[1] >= 140 && +m[1] >= 2 * +m[2] && +m[1] >= 2 * +m[3]; };
  const ownText = (e) => Array.from(e.childNodes).some(n => n.nodeType === 3 && /\\p{L}/u.test(n.nodeValue));
  const besideField = (e) => { for (let p = e.parentElement, up = 0; p && up < 3; p = p.parentElement, up++) {
    if (p.tagName === 'FORM' || p === document.body) return p.tagName === 'FORM';
    if (p.querySelector(FIELDS)) return true; } return false; };
  // (Not in a table's cell: a status drawn in red in a list a form wraps is data, not a refusal.)
  let looked = 0;
  const reds = [];
  for (const f of document.forms) {
    for (const e of f.querySelectorAll('*')) {
      if (found.length >= 5 || ++looked > 3000) break;
      if (NOT_MESSAGES.has(e.tagName) || e.tagName === 'OPTION' || !ownText(e) || found.some(g => g.contains(e) || e.contains(g))) continue;
      const said = (e.innerText || '').trim();
      if (said && said.length <= 200 && !e.closest('td,th') && red(e) && besideField(e) && visible(e)) { found.push(e); reds.push(e); }
    }
  }
  const textOf = (e) => (e.innerText || '').trim().replace(/\\s+/g, ' ').slice(0, 200);
  const errors = [...new Set(found.map(textOf))];
  const redOnly = [...new Set(reds.map(textOf))];
  // The errors named as such (not a warning): what a form that failed on another page shows.
  const STRONG = /^(error|errors|errornote|errorlist|err|invalid)$/i;  // not "danger" or "failed": buttons, badges
  const strong = [...new Set(found.filter(e => e.getAttribute('role') === 'alert' || words(e).some(w => STRONG.test(w))).map(textOf))];
  // Notices: status messages of any kind (a flash, a toast, role=status), for what they say.
  const NOTICE = /^(flash|flashes|message|messages|notice|notification|alert|toast|callout|status|info|success)$/i;
  const notices = [];
  for (const e of document.body ? document.body.querySelectorAll('[class],[id],[role=status],[role=alert]') : []) {
    if (notices.length >= 5 || NOT_MESSAGES.has(e.tagName) || !visible(e)) continue;
    if (!(['status', 'alert'].includes(e.getAttribute('role')) || words(e).some(w => NOTICE.test(w)))) continue;
    const t = textOf(e);
    if (t && t.length <= 200 && !notices.includes(t)) notices.push(t);
  }
  if (!window.__venusDoc) window.__venusDoc = Math.random().toString(36).slice(2);
  const nav = performance.getEntriesByType('navigation')[0];
  const status = nav && nav.responseStatus ? nav.responseStatus : 0;
  const invalid = Array.from(document.querySelectorAll('input,select,textarea'))
    .filter(e => visible(e) && e.willValidate && !e.checkValidity())
    .map(e => e.name || e.id || e.type).slice(0, 5);
  const value = active && typeof active.value === 'string' ? active.value
              : (active && active.isContentEditable ? active.innerText : null);
  // The visible text's lines (digits folded), as digests: how much of a page came back the same.
  const lines = [...new Set(bodyText.split('\\n').slice(0, 2000).map(l => digestOf(l.replace(/[0-9]+/g, '0'))))];
  return {url: location.href, digest: digestOf(text), folded: digestOf(text.replace(/[0-9]+/g, '0')), lines,
          bare: digestOf(bare),
          scroll: [Math.round(sx), Math.round(sy)], target: target ? describe(target) : {}, active: describe(active),
          value, errors, strong, red: redOnly, notices, invalid, doc: window.__venusDoc, status};
}
"""


async def read_page_state(page: Page, point: tuple[int, int] | None) -> PageState:
    """The page's state around the element at `point` (CSS pixels; None: the page only)."""
    x, y = point if point else (None, None)
    data = await page.evaluate(PAGE_STATE_JS, [x, y])
    return PageState(url=data["url"], digest=data["digest"], folded=data["folded"], scroll=tuple(data["scroll"]),
                     target=data["target"], active=data["active"], value=data["value"], errors=tuple(data["errors"]),
                     strong_errors=tuple(data["strong"]), red_errors=tuple(data["red"]),
                     notices=tuple(data["notices"]), lines=frozenset(data["lines"]), bare=data["bare"],
                     invalid=tuple(data["invalid"]), document=data["doc"], status=data["status"])
