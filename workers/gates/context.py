"""What the safety gate sees about an action on a web page: one `ActionContext`, read live.

`probe_element` (an explicit step's grounded element), `probe_point` (a model action's point:
`document.elementFromPoint`, then the nearest interactive ancestor) and `probe_focus` (typing and
keys: the focused element) each cost ONE round trip to the page: a single evaluate returns the
target (role, accessible name, text, tag, input type, href, aria-label, autocomplete, bounding
box, hidden or not), the text around it (its label, the closest legend and heading, its
description), the form's submit button, the open dialog holding it, the page's URL and title, a
visible-text excerpt and text a person cannot see (read for prompt injection).

Values typed into fields are never read back (a field's `value` is only read for buttons, whose
value is their caption), so a revealed secret cannot reach the context, the review queue or logs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError, Locator, Page

from workers.gates.safety import ActionContext, TargetInfo

PAGE_TEXT_CHARS = 3000
HIDDEN_TEXT_CHARS = 2000
FINGERPRINT_TEXT_CHARS = 2000

# The probe. `el` is the element (explicit steps) or null; `o` = {x, y} for a point, {focus: true}
# for the focused element, {} for the page only. Written for speed: no layout-forcing loops over
# the whole document except the bounded walk for hidden text.
_PROBE = r"""
(el, o) => {
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const textOf = n => clean(n ? (n.innerText !== undefined ? n.innerText : n.textContent) : '');
  const cap = (s, n) => s.length > n ? s.slice(0, n) : s;
  const INTERACTIVE = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=switch],[role=tab],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=option],' +
    '[role=textbox],[role=combobox],[role=searchbox],[contenteditable=true],[onclick],[tabindex]';
  if (!el && o && o.focus) {
    el = document.activeElement;
    if (el === document.body || el === document.documentElement) el = null;
  } else if (!el && o && o.x !== undefined) {
    const hit = document.elementFromPoint(o.x, o.y);
    el = hit ? (hit.closest(INTERACTIVE) || hit) : null;
    if (el && el.tagName === 'LABEL' && el.control) el = el.control;
  }
  const implicitRole = e => {
    const tag = e.tagName.toLowerCase(), type = (e.getAttribute('type') || '').toLowerCase();
    if (tag === 'a') return e.hasAttribute('href') ? 'link' : '';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'img') return 'img';
    if (tag === 'option') return 'option';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'input') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      if (type === 'file') return 'button';
      return type === 'hidden' ? '' : 'textbox';
    }
    return e.isContentEditable ? 'textbox' : '';
  };
  const byIds = ids => clean((ids || '').split(/\s+/).map(id => document.getElementById(id)).filter(Boolean)
    .map(textOf).join(' '));
  const nameOf = e => {
    const labelled = byIds(e.getAttribute('aria-labelledby'));
    if (labelled) return labelled;
    const aria = clean(e.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = e.tagName, type = (e.getAttribute('type') || '').toLowerCase();
    if (e.labels && e.labels.length) return clean(Array.from(e.labels).map(textOf).join(' '));
    if (tag === 'INPUT' && ['submit', 'button', 'reset'].includes(type)) return clean(e.value);
    if (tag === 'INPUT' && type === 'image' || tag === 'IMG') return clean(e.alt || e.title);
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(tag)) { const t = textOf(e); if (t) return cap(t, 200); }
    return clean(e.title || e.getAttribute('placeholder'));
  };
  const visible = e => !!e && e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const dialogOf = e => e && e.closest('dialog[open],[role=dialog],[role=alertdialog],[aria-modal=true]');
  const out = {url: location.href, title: document.title, target: null, nearby: [], dialog: '', formSubmit: '', formFields: []};
  // Hooks by which a script, not the element's address or form, decides what a click does.
  const HOOK = /^(?:onclick|data-(?:method|remote|confirm|turbo-method|url|action-url|rel|ajax|request|action)|hx-(?:post|put|patch|delete|get)|x-on:click|@click|ng-click|v-on:click|wire:click|phx-click)$/;
  if (el) {
    const tag = el.tagName.toLowerCase(), type = (el.getAttribute('type') || '').toLowerCase();
    const role = clean(el.getAttribute('role')) || implicitRole(el);
    const r = el.getBoundingClientRect();
    const isButtonish = tag === 'button' || ['submit', 'button', 'reset'].includes(type);
    const attrs = {};
    for (const a of ['id', 'name', 'class', 'title', 'alt', 'data-testid', 'data-test', 'data-action', 'data-icon',
                     'aria-description']) {
      const v = el.getAttribute(a);
      if (v) attrs[a] = cap(String(v), 120);
    }
    const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.isContentEditable;
    // What activating it does: submit a form (its method and address), open a popup, or a script's work.
    const form = el.form || el.closest('form');
    const submits = form && ((tag === 'button' && (!type || type === 'submit')) || (tag === 'input' && ['submit', 'image'].includes(type)));
    const formMethod = form && (submits || field) ? ((submits && el.getAttribute('formmethod')) || form.getAttribute('method') || 'get').toLowerCase() : '';
    const formAction = formMethod ? ((submits && el.getAttribute('formaction')) || form.getAttribute('action') || location.href) : '';
    const popup = (el.getAttribute('aria-haspopup') || '').toLowerCase(), toggle = (el.getAttribute('data-bs-toggle') || el.getAttribute('data-toggle') || '').toLowerCase();
    const controlled = el.getAttribute('aria-controls') && document.getElementById(el.getAttribute('aria-controls'));
    const opens = popup && popup !== 'false' ? popup : ['modal', 'dropdown', 'collapse', 'tab', 'popover'].includes(toggle) ? toggle :
      el.hasAttribute('popovertarget') ? 'popover' : el.hasAttribute('commandfor') ? 'dialog' :
      controlled && controlled.matches('dialog,[role=dialog],[role=alertdialog],[role=menu]') ? (controlled.getAttribute('role') || 'dialog') : '';
    const href = el.getAttribute('href');
    const scripted = Array.from(el.attributes).some(a => HOOK.test(a.name)) || /\bajax\b|\bjs-/.test(el.className || '') || (tag === 'select' && el.hasAttribute('onchange')) ||
      (tag === 'a' && (href === '#' || /^\s*javascript:/i.test(href || ''))) || !!(submits && form.hasAttribute('onsubmit'));
    out.target = {
      role, name: nameOf(el), text: field ? '' : cap(textOf(el), 300), tag, input_type: type,
      href: el.getAttribute('href') || '', aria_label: clean(el.getAttribute('aria-label')),
      placeholder: clean(el.getAttribute('placeholder')), value: isButtonish ? cap(clean(el.value), 120) : '',
      autocomplete: clean(el.getAttribute('autocomplete')), attributes: attrs, hidden: !visible(el),
      rect: [Math.round(r.x * 10) / 10, Math.round(r.y * 10) / 10, Math.round(r.width * 10) / 10,
             Math.round(r.height * 10) / 10],
      form_method: formMethod, form_action: cap(formAction, 300), opens, scripted,
    };
    if (el.tagName === 'SELECT') out.target.options = Array.from(el.options).slice(0, 100).map(x => cap(clean(x.label), 80));
    const near = [];
    if (el.labels) for (const l of el.labels) near.push(textOf(l));
    near.push(byIds(el.getAttribute('aria-describedby')));
    const legend = el.closest('fieldset') && el.closest('fieldset').querySelector('legend');
    if (legend) near.push(textOf(legend));
    // The closest heading before the target in document order (inside its dialog when it has one).
    const scope = dialogOf(el) || document;
    let heading = null;
    for (const h of scope.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]')) {
      if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) heading = h; else break;
    }
    if (heading) near.push(textOf(heading));
    // The parent's own text, without the labels of the other controls in it ("Save | Delete"
    // must not make "Save" read as a deletion).
    const parent = el.parentElement;
    if (parent && parent !== document.body) {
      let t = textOf(parent);
      if (t.length <= 400) {
        for (const c of parent.querySelectorAll(INTERACTIVE)) {
          if (c === el || c.contains(el) || c.tagName === 'TEXTAREA' ||
              (c.tagName === 'INPUT' && !['submit', 'button', 'reset'].includes((c.type || '').toLowerCase()))) continue;
          const ct = textOf(c) || clean(c.value);  // a button's caption; typed values are never read
          if (ct) t = t.replace(ct, ' ');
        }
        t = clean(t);
        if (t && t.length <= 160) near.push(t);
      }
    }
    if (form) {
      near.push(clean(form.getAttribute('aria-label') || form.getAttribute('title')));
      const submit = form.querySelector('button[type=submit],button:not([type]),input[type=submit]');
      if (submit) out.formSubmit = nameOf(submit);
      // The form's visible fields: labels and kinds, whether filled, a select's chosen option; never a typed value.
      out.formFields = Array.from(form.elements).filter(f => ['INPUT', 'SELECT', 'TEXTAREA'].includes(f.tagName) &&
          !['hidden', 'submit', 'button', 'reset', 'image'].includes((f.type || '').toLowerCase()) && visible(f)).slice(0, 40)
        .map(f => ({label: cap(nameOf(f), 80), input_type: (f.getAttribute('type') || f.tagName).toLowerCase(),
                    autocomplete: clean(f.getAttribute('autocomplete')), name: cap(f.name || '', 60),
                    filled: ['checkbox', 'radio'].includes(f.type) ? f.checked : !!f.value,
                    chosen: f.tagName === 'SELECT' && f.selectedOptions[0] && f.value ? cap(clean(f.selectedOptions[0].label), 80) : ''}));
    }
    out.nearby = [...new Set(near.map(clean).filter(Boolean))].slice(0, 6).map(t => cap(t, 200));
    const dialog = dialogOf(el);
    if (dialog) {
      const title = byIds(dialog.getAttribute('aria-labelledby')) || clean(dialog.getAttribute('aria-label'));
      out.dialog = cap(clean([title, textOf(dialog)].filter(Boolean).join(' | ')), 600);
    }
  }
  out.pageText = cap(textOf(document.body), o && o.pageChars || 3000);
  // Text a person cannot see: not rendered, transparent, tiny or placed off-screen (bounded walk).
  const hidden = [], seen = new Map(), walker = document.createTreeWalker(document.body || document, NodeFilter.SHOW_TEXT);
  let size = 0, nodes = 0;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'TITLE']);
  for (let n = walker.nextNode(); n && nodes < 4000 && size < (o && o.hiddenChars || 2000); n = walker.nextNode()) {
    nodes++;
    const p = n.parentElement, t = clean(n.nodeValue);
    if (!p || !t || SKIP.has(p.tagName)) continue;
    let unseen = seen.get(p);
    if (unseen === undefined) {
      unseen = !visible(p);
      if (!unseen) {
        const s = getComputedStyle(p), box = p.getBoundingClientRect();
        unseen = parseFloat(s.fontSize) < 3 || box.right < 0 || box.bottom < 0 ||
          (s.clip === 'rect(0px, 0px, 0px, 0px)' && !/sr-only|visually-hidden/.test(p.className));
      }
      seen.set(p, unseen);
    }
    if (unseen) { hidden.push(t); size += t.length + 1; }
  }
  out.hiddenText = hidden.join(' ');
  return out;
}
"""
# Read back as one JSON string: Playwright's value-by-value serialisation of the probe's nested
# fields costs more than reading them.
_ON_ELEMENT = f"(el, o) => JSON.stringify(({_PROBE})(el, o))"
_ON_PAGE = f"(o) => JSON.stringify(({_PROBE})(null, o))"


# A target in the words people use: by its input type where that says more than its role...
_INPUT_WORDS = {"file": "file field", "password": "password field", "email": "email field", "date": "date field",
                "tel": "phone field", "url": "URL field", "number": "number field", "search": "search field"}
# ...else by its role (a role not listed here is said as it is: button, link, checkbox...).
_ROLE_WORDS = {"textbox": "field", "searchbox": "search field", "spinbutton": "number field", "combobox": "dropdown",
               "listbox": "list", "radio": "radio button", "img": "image", "menuitem": "menu item",
               "menuitemcheckbox": "menu item", "menuitemradio": "menu item"}


@dataclass
class Probe:
    """What one round trip read from the page (see module docstring)."""

    url: str
    title: str = ""
    target: dict[str, Any] | None = None
    nearby: list[str] = field(default_factory=list)
    dialog: str = ""
    form_submit: str = ""
    form_fields: list[dict[str, Any]] = field(default_factory=list)
    page_text: str = ""
    hidden_text: str = ""
    # Which surface read it, and the app / window it showed (Android and desktop probes).
    surface: str = "web"
    app_package: str = ""
    window_title: str = ""

    @classmethod
    def of(cls, data: dict[str, Any]) -> "Probe":
        return cls(url=data.get("url", ""), title=data.get("title", ""), target=data.get("target"),
                   nearby=data.get("nearby") or [], dialog=data.get("dialog", ""),
                   form_submit=data.get("formSubmit", ""), form_fields=data.get("formFields") or [], page_text=data.get("pageText", ""),
                   hidden_text=data.get("hiddenText", ""))

    @property
    def box(self) -> dict[str, float] | None:
        """The target's bounding box in viewport pixels, as `locate()` records it."""
        if not self.target or not self.target.get("rect"):
            return None
        x, y, w, h = self.target["rect"]
        return {"x": x, "y": y, "width": w, "height": h}

    def target_info(self) -> TargetInfo | None:
        if not self.target:
            return None
        data = {k: v for k, v in self.target.items() if k not in ("rect", "options")}
        x, y, w, h = self.target["rect"]
        return TargetInfo(**data, rect=(x, y, w, h))

    def describe_target(self) -> str:
        """`button 'Place order'`: the target's role and name, as the fingerprint holds it (so
        its words never change under a pending review); `target_words` says it for people."""
        t = self.target
        if not t:
            return "the page"
        kind = t.get("role") or t.get("tag") or "element"
        return f"{kind} {self._target_name()[:80]!r}" if self._target_name() else kind

    def target_words(self) -> str:
        """`file field 'Receipt'`, `field 'Amount'`, `button 'Place order'`: what a person calls
        the target (a file input's ARIA role is button, but nobody would call it one)."""
        t = self.target
        if not t:
            return "the page"
        role, input_type = t.get("role") or "", str(t.get("input_type") or "").lower()
        if input_type in _INPUT_WORDS and t.get("tag") in ("input", None):  # no tag: an app's field
            kind = _INPUT_WORDS[input_type]
        else:
            kind = _ROLE_WORDS.get(role) or role or t.get("tag") or "element"
        return f"{kind} {self._target_name()[:80]!r}" if self._target_name() else kind

    def _target_name(self) -> str:
        t = self.target or {}
        return t.get("name") or t.get("text") or t.get("placeholder") or t.get("attributes", {}).get("id", "")


_OPTIONS = {"pageChars": PAGE_TEXT_CHARS, "hiddenChars": HIDDEN_TEXT_CHARS}


async def probe_element(locator: Locator) -> Probe:
    """Read the context of an explicit step's grounded element."""
    return Probe.of(json.loads(await locator.evaluate(_ON_ELEMENT, _OPTIONS)))


async def probe_point(page: Page, x: float, y: float) -> Probe:
    """Read the context of the element under a point (viewport pixels)."""
    return Probe.of(json.loads(await page.evaluate(_ON_PAGE, {**_OPTIONS, "x": x, "y": y})))


async def probe_focus(page: Page) -> Probe:
    """Read the context of the focused element (typing, keys, select options)."""
    return Probe.of(json.loads(await page.evaluate(_ON_PAGE, {**_OPTIONS, "focus": True})))


async def probe_page(page: Page) -> Probe:
    """Only the page: URL, title and text (navigation)."""
    try:
        return Probe.of(json.loads(await page.evaluate(_ON_PAGE, dict(_OPTIONS))))
    except PlaywrightError:  # about:blank before the first navigation, or a page mid-navigation
        return Probe(url=page.url)


def build_context(probe: Probe, fields: dict[str, Any], *, allowed_domains: list[str],
                  credential_domains: list[str], model_thought: str = "", destination: str = "") -> ActionContext:
    """The rule layer's input: the action's own fields (`action_fields`) plus what the probe read."""
    fields = dict(fields)
    if fields.get("destination_url"):
        fields["destination_url"] = urljoin(destination or probe.url, fields["destination_url"])
    return ActionContext(
        surface=probe.surface, app_package=probe.app_package, window_title=probe.window_title,
        target=probe.target_info(), nearby_text=probe.nearby, dialog_text=probe.dialog,
        form_submit=probe.form_submit, form_fields=probe.form_fields, url=probe.url, page_title=probe.title, page_text=probe.page_text,
        hidden_text=probe.hidden_text, model_thought=model_thought[:1000], credential_domains=credential_domains,
        allowed_domains=list(allowed_domains), **fields,
    )


def fingerprint(probe: Probe, action_summary: str) -> str:
    """The page state an approval is bound to: URL, visible text excerpt, target and action."""
    text = "\n".join([probe.url, probe.page_text[:FINGERPRINT_TEXT_CHARS], probe.describe_target(), action_summary])
    return hashlib.sha256(text.encode()).hexdigest()[:32]
