"""Rules per action type: what the action does, judged from its target's label first, then its
dialog and form, then the page address, attribute hints and the model's own words.

Each judge returns `Finding`s; `classify` keeps the strongest, applies modifiers and the policy.
Fail closed: a commit (click, Enter, submit) whose meaning cannot be read is R3 UNKNOWN.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from workers.gates.safety import compose, cues, fallback, labels
from workers.gates.safety.labels import Generic, LabelHit
from workers.gates.safety.text import clip, norm, size
from workers.gates.safety.urls import carried_data, download_kind, host_of, in_scope, resolve
from workers.gates.safety.verdict import MEANING, Evidence, Finding, strongest
from workers.gates.safety.view import View

_ACTION_PATH = re.compile(r"/(?:delete|remove|destroy|cancel|pay|purchase|buy|checkout|confirm|transfer|send|unsubscribe|approve|"
                          r"logout|signout|install|order|submit|accept|grant)(?:[/._?#-]|$)|[?&](?:confirm|action|token)=")
_TOGGLE_NOUNS = [
    ("SEC", re.compile(r"2-step|two-step|two-factor|2fa|real-?time protection|firewall|usb debugging|developer options|screen lock|"
                       r"device lock|find my|tamper protection|unknown sources|cloud-delivered protection|login alerts|登录保护|两步验证|"
                       r"二次验证|防火墙|实时保护|usb\s?调试|开发者选项|设备锁|锁屏|指纹|面容|(?:账号|帐号|账户)保护")),
    ("PAY", re.compile(r"auto-?renew|automatic renewal|自动续费|免密|one-click pay")),
    ("SHARE", re.compile(r"\bpublic\b|location sharing|share (?:my )?location|公开|位置共享|共享位置")),
]
_SHARE_ROLES = re.compile(r"\b(?:owner|editor|admin|administrator|can edit|can comment|full access|manager)\b|可编辑|管理员|所有者|可管理")
_TOGGLED_CATEGORIES = {"SEC", "SHARE", "PAY", "INSTALL", "LEGAL"}  # what a switch can turn on by its setting's name
_WITHDRAWABLE = {"LEGAL", "SHARE", "INSTALL", "PAY", "SEND", "ACCT", "AUTH"}


def ev(signal: str, source: str, text: str) -> Evidence:
    return Evidence(signal=signal, source=source, text=clip(text))


def finding(category: str, level: int, reason: str, *evidence: Evidence, **kw) -> Finding:
    return Finding(category, level, reason, list(evidence), **kw)


# --- labels ------------------------------------------------------------------------------

def judge_label(v: View, label: str, source: str, *, verb: str = "Clicking") -> Finding:
    """What one label says the control does."""
    if call := fallback.phone_call(v, label, source, verb):
        return call
    reading = labels.read_label(label)
    if reading.info:
        return finding("NONE", 1, f"'{clip(label, 60)}' reads as help or an article, not a command.", ev("label.info", source, label))
    if reading.dismiss or fallback.refuses(label):
        return finding("NONE", 1, f"'{clip(label, 60)}' dismisses or declines.", ev("label.dismiss", source, label))
    if reading.generic is not None:
        return resolve_generic(v, reading.generic, label, source, verb=verb)
    best = reading.best()
    if best is None:
        return fallback.unread(v, label, source, verb) or \
            finding("NONE", 1, f"{verb} '{clip(label, 60)}' has no consequential wording.", ev("label.plain", source, label))
    if (not best.trigger and best.category == "NONE" and best.level <= 1 and not labels.in_clause(label)
            and (found := fallback.pair(v, label, source, verb, page=False))):
        return found  # a local word ("Endring", "Change") beside an object and verb that commit ("Bekreft endring av flyvning")
    return _from_hit(v, best, label, source, verb)


# A phone number or address shown masked ("+*********67", "j•••@example.com"): the user's own, as sign-in
# pages show it when they offer to send a code there.
_MASKED_CONTACT = re.compile(r"[*•·x]{3,}\s?\d{2,4}\b|\b\w[*•]{3,}@")


def _from_hit(v: View, hit: LabelHit, label: str, source: str, verb: str) -> Finding:
    evidence = ev(f"label.{hit.category}" if hit.trigger else f"label.{hit.category}.R{hit.level}", source, hit.text)
    if hit.category == "SEND" and hit.trigger and _MASKED_CONTACT.search(label):
        return finding("AUTH", 2, f"{verb} '{clip(label, 60)}' sends a one-time code to the user's own masked number or address.",
                       evidence, ev("cue.masked_contact", source, label))
    if hit.category == "DEL" and hit.trigger and (bin_ := cues.recoverable(v, label)):
        return finding("DEL", 2, f"{verb} '{clip(label, 60)}' moves it to the trash, where it can be restored ('{clip(bin_, 40)}').",
                       evidence, ev("cue.recoverable", "nearby_text", bin_))
    if hit.category == "PAY" and hit.text.startswith("subscribe"):
        around = " | ".join([label, v.dialog, v.nearby, v.titles])
        if not cues.CURRENCY.search(around) and cues.SUBSCRIBER.search(around):
            return finding("SEND", 2, "Subscribing to a channel or newsletter (no price shown) is easily undone.", evidence)
    if hit.category == "LEGAL" and (hit.level == 2 or cues.COOKIE.search(v.dialog) or cues.COOKIE.search(v.nearby)):
        return finding("LEGAL", 2, "Accepting cookies is a consent banner, easily changed.", evidence)
    if not hit.trigger:
        what = {0: "only reads the page", 1: "is local and reversible", 2: "is easily undone"}.get(hit.level, "")
        return finding(hit.category, hit.level, f"{verb} '{clip(label, 60)}' {what}.", evidence)
    return finding(hit.category, 3, f"{verb} '{clip(label, 60)}' {MEANING[hit.category]}.", evidence)


def resolve_generic(v: View, generic: Generic, label: str, source: str, *, verb: str = "Clicking") -> Finding:
    """A generic label ("OK", 确定, "Submit", "Allow", "Save") means what its dialog or form is about."""
    said = ev("label.generic", source, label)
    if re.match(r"^(?:accept|allow|agree|ok|okay|同意|接受|允许)", label) and (cues.COOKIE.search(v.dialog) or cues.COOKIE.search(v.nearby)):
        return finding("LEGAL", 2, "Accepting cookies is a consent banner, easily changed.", said, ev("cue.cookie", "dialog_text", "cookies"))
    strong_only = generic.kind == "progress"
    page_turn = _page_turn(v, label, generic)
    sources = [("dialog_text", v.dialog, False)] + ([] if page_turn is not None else [("nearby_text", v.nearby, strong_only)])
    if generic.kind == "confirm":
        sources += [("title", v.titles, False)]
    for name, text, strong in sources:
        cue = cues.find_cue(text, strong_only=strong)
        if cue and generic.kind == "progress" and name == "nearby_text" and cue.category == "DEL":
            cue = None  # "Save" or "Next" stores or moves on; a "delete" beside it is another control's word
        if cue and cue.category == "DEL" and (bin_ := cues.recoverable(v, label)):
            return finding("DEL", 2, f"{verb} '{label}' moves it to the trash, where it can be restored ('{clip(bin_, 40)}').",
                           said, ev("cue.recoverable", name, bin_))
        if cue:
            return finding(cue.category, 3, f"{verb} '{label}' counts as a step that {MEANING[cue.category]}, because the "
                           f"{_WHERE[name]} says '{cue.text}'.", said, ev(f"cue.{cue.category}", name, cue.text))
    said_dialog = compose.dialog_reading(v.dialog) if v.dialog and generic.kind == "confirm" else None
    if said_dialog is not None:
        return finding(said_dialog[0], 3, f"{verb} '{label}' counts as a step that {MEANING[said_dialog[0]]}, because the "
                       f"dialog it is in asks for it ({said_dialog[1]}).", said, ev("compose.dialog", "dialog_text", said_dialog[1]))
    pair = compose.paired_with_page(label, " | ".join(filter(None, (v.dialog, v.titles, "" if page_turn is not None else v.nearby))))
    if pair is not None:
        return finding(pair[0], 3, f"{verb} '{label}' acts on what the page names ({pair[1]}): it {MEANING[pair[0]]}.",
                       said, ev("compose", "page", pair[1]))
    hint = cues.hint_cue(v.hints)
    if hint and hint.category != "NONE":
        return finding(hint.category, 3, f"{verb} '{label}' ({hint.text} control) {MEANING[hint.category]}.",
                       said, ev(f"hint.{hint.category}", "target.attributes", hint.text))
    if generic.kind == "progress" and _may_sign_in(v):
        # In a sign-in flow, Next/Continue is what submits the credentials.
        cue = cues.find_cue(v.nearby)
        url = cues.url_cue(v.ctx.url)
        for found, src in ((cue, "nearby_text"), (url, "url")):
            if found and found.category == "AUTH":
                return finding("AUTH", 3, f"{verb} '{label}' submits a sign-in step ('{clip(found.text, 40)}').",
                               said, ev("cue.AUTH", src, found.text))
    if generic.kind == "confirm":
        for cue, src in ((cues.url_cue(v.ctx.url), "url"), (cues.app_cue(v.ctx.app_package), "app_package"),
                         (cues.window_cue(norm(v.ctx.window_title)), "window_title")):
            if cue:
                return finding(cue.category, 3, f"{verb} '{label}' on this page {MEANING[cue.category]} ('{clip(cue.text, 40)}').",
                               said, ev(f"cue.{cue.category}", src, cue.text))
        if v.ctx.secure_screen:
            return finding("PAY", 3, f"{verb} '{label}' on a secure (FLAG_SECURE) screen, as payment screens are.", said,
                           ev("cue.flag_secure", "secure_screen", "FLAG_SECURE"))
    if page_turn is not None:
        return finding("NONE", 1, f"{verb} '{label}' moves on to the next page of this form{page_turn}; what the form does "
                       "is judged at its own final submit.", said, ev("label.page_turn", source, label))
    if generic.default == "SEND" and cues.SEARCHY.search(v.nearby):
        return finding("NONE", 1, f"{verb} '{label}' submits a search.", said)
    if generic.default == "NONE" or (generic.default == "UNKNOWN" and v.dialog):
        where = "a dialog" if v.dialog else "a form"
        return finding("NONE", 1, f"{verb} '{label}' in {where} with nothing consequential in it.", said)
    if generic.default == "UNKNOWN":
        return finding("UNKNOWN", 3, f"Cannot judge what '{label}' confirms: nothing around it says.", said)
    return finding(generic.default, 3, f"{verb} '{label}' {MEANING[generic.default]}.", said)


_WHERE = {"dialog_text": "dialog it is in", "nearby_text": "text near it", "title": "page title"}


def _page_turn(v: View, label: str, generic: Generic) -> str | None:
    """Does this control only move a multi-page form on to its next page ("Next", 下一步, "Weiter";
    "Continue" where the page says it is not the form's last, "step 1 of 2")? Then the headings and
    labels around it name what the whole form will do, which its final submit is judged by (reference §3
    rule 1: confirm the commit, never an intermediate step). None when not; else " (step 1 of 2)" or ""."""
    if generic.kind != "progress" or v.dialog:
        return None
    turn = labels.moves_on(label)
    step = cues.step_of(v.titles, v.nearby, v.page_text_head)
    if turn == "next" or (turn == "continue" and step is not None and step[0] < step[1]):
        return f" (step {step[0]} of {step[1]})" if step else ""
    return None


def _may_sign_in(v: View) -> bool:
    """Could this form be a sign-in step? When its fields are known, only if one of them takes a
    password or a one-time code (an /admin/auth/user/ edit form's "Save" is not)."""
    if not v.ctx.form_fields:
        return True
    return any(f.input_type.lower() == "password" or re.search(r"password|one-time-code", f.autocomplete.lower())
               or re.search(r"password|passcode|one-time|verification code|密码|验证码", norm(f.label))
               for f in v.ctx.form_fields)


# --- clicks ------------------------------------------------------------------------------

def judge_click(v: View) -> list[Finding]:
    if v.kind == "field":
        return [finding("NONE", 1, "Focusing a field changes nothing; what is typed is judged then.")]
    if v.kind == "toggle":
        return [judge_toggle(v, v.ctx.checked)]
    if not v.labels:
        return [unlabeled(v)]
    results = [(source, judge_label(v, label, source)) for source, label in v.labels]
    if v.kind in ("content", "generic", "link") and all(size(label) > 8 for _, label in v.labels):
        return [finding("NONE", 1, f"'{clip(v.label, 60)}' is content text, not a command.", ev("label.content", v.labels[0][0], v.label))]
    best = strongest([f for _, f in results] + ([world] if (world := open_to_world(v)) else []))
    assert best is not None  # noqa: S101 -- type narrowing: results is never empty here
    _mark_mismatch(v, results, best)
    if best.level >= 2 and (v.kind == "tab" or (v.kind == "link" and _plain_link(v))):
        return [finding("NONE", 1, f"'{clip(v.label, 60)}' is a link to a page; the commit, if any, happens there.",
                        ev("label.navigation", "target.role", v.ctx.target.role or "link"))]
    return [best]


_WORLD = re.compile(r"(?<![\d.])0\.0\.0\.0/0(?![\d.])|(?<![\w:])::/0(?!\d)|\banywhere[- ]ipv[46]\b|\ball ipv[46] addresses\b")
_INGRESS = re.compile(r"security.?groups?|\bsg-|inbound|ingress|firewall|\bports?\b|\bpuerto|\bporta\b|\bporte?\b|\bпорт|"
                      r"reglas de entrada|regras de entrada|règles entrantes|eingehend|入站|入方向|安全组|インバウンド|인바운드")
_DB_OR_ADMIN = re.compile(r"\b(?:5432|3306|1433|1521|27017|6379|9200|22|3389)\b|postgres|mysql|mongo|redis|\bssh\b|\brdp\b")
_PROD = re.compile(r"\bprod|producci|produkti|produzione|produção|production|продакш|生产|本番|운영")


def open_to_world(v: View) -> Finding | None:
    """A button that commits an inbound rule open to the whole internet (0.0.0.0/0, ::/0): SEC, and R4
    on a production database or admin port. Read from the rule itself, in any UI language."""
    if v.kind != "button":
        return None
    rule = " ".join([v.label, v.nearby, *(norm(f.chosen) for f in v.ctx.form_fields)])
    if not _WORLD.search(rule):
        return None
    around = " ".join([rule, v.titles, v.dialog, norm(v.ctx.url)])
    if not _INGRESS.search(around):
        return None
    level = 4 if _DB_OR_ADMIN.search(around) and _PROD.search(around) else 3
    return finding("SEC", level, "Opens an inbound rule to the whole internet (0.0.0.0/0).", ev("value.world_open", "nearby_text", "0.0.0.0/0"))


def _mark_mismatch(v: View, results: list[tuple[str, Finding]], best: Finding) -> None:
    """An attribute label (aria-label, content-desc, title) that says more than the visible text."""
    visible = [f for s, f in results if s in ("target.text", "target.name")]
    hidden = [f for s, f in results if s not in ("target.text", "target.name")]
    if best.level >= 3 and visible and hidden and best in hidden and max(f.level for f in visible) < 3:
        best.evidence.append(ev("injection.label_mismatch", "target.aria_label", "attribute label differs from the visible text"))
        best.reason += " Its attribute label says more than the visible text."


def _plain_link(v: View) -> bool:
    t = v.ctx.target
    if t is None or t.scripted:
        return False  # a script decides what it does, not its address
    href = resolve(t.href, v.ctx.url)
    return bool(href) and urlsplit(href).scheme in ("http", "https") and not _ACTION_PATH.search(urlsplit(href).path + "?" + urlsplit(href).query)


def unlabeled(v: View) -> Finding:
    """A control with no readable label, or a click that resolved to no element: fail closed
    unless an attribute hint or the surroundings say what it is."""
    hint = cues.hint_cue(v.hints)
    if hint:
        if hint.category == "NONE":
            return finding("NONE", 1, f"An unlabeled '{hint.text}' icon control.", ev("hint.benign", "target.attributes", hint.text))
        return finding(hint.category, 3, f"An unlabeled control marked '{hint.text}' {MEANING[hint.category]}.",
                       ev(f"hint.{hint.category}", "target.attributes", hint.text))
    if v.ctx.secure_screen:
        return finding("PAY", 3, "A click on a secure (FLAG_SECURE) screen, as payment screens are; the target cannot be read.",
                       ev("cue.flag_secure", "secure_screen", "FLAG_SECURE"))
    for source, text in (("dialog_text", v.dialog), ("model_thought", norm(v.ctx.model_thought))):
        trig = labels.triggers_in(text) if source == "model_thought" else []
        cue = cues.find_cue(text) if source == "dialog_text" else None
        category, said = (trig[0].category, trig[0].text) if trig else ((cue.category, cue.text) if cue else (None, ""))
        if category:
            return finding(category, 3, f"An unlabeled control; its {source.split('_')[-1]} says it {MEANING[category]}.",
                           ev(f"cue.{category}", source, said))
    what = "The click resolved to no element" if v.ctx.target is None else "The control has no readable label"
    return finding("UNKNOWN", 3, f"Cannot judge: {what.lower()}.", ev("fail_closed.unlabeled", "target", what))


def judge_toggle(v: View, checked: bool | None) -> Finding:
    """Checkboxes and switches: agreeing to terms, security switches, sharing, auto-renewal."""
    best = strongest([judge_label(v, label, source, verb="Setting") for source, label in v.labels]) if v.labels else None
    category = best.category if best and best.level >= 3 else None
    evidence = list(best.evidence) if best else []
    if category is None:
        text = " | ".join(label for _, label in v.labels) or v.nearby
        for cat, rx in _TOGGLE_NOUNS:
            m = rx.search(text)
            if m:
                category, evidence = cat, [ev(f"toggle.{cat}", "target.name", m.group(0))]
                break
    if category is None and (pair := compose.toggled(" | ".join(label for _, label in v.labels), v.nearby)):
        category, evidence = pair[0], [ev("compose", "target.name", pair[1])]
    if category is None and size(v.label) <= 2 and v.nearby:
        # A switch labelled only "On" / "Увімкнути": the setting it turns on is named beside it ("USB debugging").
        named = [h for h in labels.triggers_in(v.nearby.split(" | ")[0]) if h.category in _TOGGLED_CATEGORIES]
        if named:
            category, evidence = named[0].category, [ev(f"toggle.{named[0].category}", "nearby_text", named[0].text)]
    if category is None or category in ("UNKNOWN", "NONE"):
        return finding("NONE", 1, f"Setting '{clip(v.label, 60)}' is a local option.", *evidence)
    if checked is False and category in _WITHDRAWABLE:
        return finding("NONE", 1, f"Unchecking '{clip(v.label, 60)}' withdraws rather than commits.", *evidence)
    state = {True: "on", False: "off", None: "over"}[checked]
    return finding(category, 3, f"Switching '{clip(v.label, 60)}' {state} {MEANING[category]}.", *evidence)


def judge_select(v: View) -> list[Finding]:
    option = norm(v.ctx.option)
    if not option:
        return [finding("NONE", 1, "Choosing an option.")]
    result = judge_label(v, option, "option", verb="Choosing")
    if result.level < 3 and _SHARE_ROLES.search(option):
        cue = cues.find_cue(" | ".join([v.dialog, v.label]))
        if cue and cue.category == "SHARE":
            return [finding("SHARE", 3, f"Choosing '{option}' changes who can act on shared content.", ev("option.SHARE", "option", option))]
    if result.category == "UNKNOWN":  # a bare "Yes" option is just a choice
        return [finding("NONE", 1, f"Choosing '{option}'.", ev("option.plain", "option", option))]
    return [result]


def judge_upload(v: View) -> list[Finding]:
    name = v.ctx.file_name or "a file"
    return [finding("SHARE", 3, f"Uploading '{clip(name, 60)}' sends a file to {v.host or 'the site'}.", ev("action.upload", "file_name", name))]


# --- navigation --------------------------------------------------------------------------

def destination(v: View, url: str, *, composed: bool) -> list[Finding]:
    """Where an address leads: outside scope (NAV-OUT), mail/phone apps, downloads, data carried out."""
    out: list[Finding] = []
    scheme = urlsplit(url).scheme.lower()
    if scheme in ("mailto", "sms", "tel", "facetime", "callto", "skype", "whatsapp", "weixin"):
        out.append(finding("NAV-OUT", 3, f"Opens a {scheme}: link, handing a prepared message or call to another app.",
                           ev("url.scheme", "destination_url", url)))
        return out
    if scheme in ("javascript", "data", "file", "vbscript", "intent") and composed:
        out.append(finding("NAV-OUT", 3, f"A composed {scheme}: address cannot be judged.", ev("url.scheme", "destination_url", url)))
        return out
    host = host_of(url)
    if v.allowed and host and not in_scope(host, v.allowed):
        out.append(finding("NAV-OUT", 3, f"Goes to {host}, outside the allowed domains ({', '.join(v.allowed)}).",
                           ev("url.out_of_scope", "destination_url", url), out_of_scope=True))
    kind = download_kind(url)
    if kind == "executable":
        out.append(finding("INSTALL", 3, "Downloads an executable or installer.", ev("url.executable", "destination_url", url)))
    elif kind == "archive":
        out.append(finding("NAV-OUT", 2, "Downloads an archive.", ev("url.archive", "destination_url", url)))
    if composed:
        carried = carried_data(url)
        if carried:
            out.append(finding("NAV-OUT", 3, f"The address carries data out: {carried}.", ev("url.data", "destination_url", url)))
    return out


def judge_navigate(v: View) -> list[Finding]:
    url = v.ctx.destination_url
    if not url:
        return [finding("UNKNOWN", 3, "Cannot judge a navigation without its address.")]
    return destination(v, url, composed=True) or [finding("NONE", 1, f"Opens {host_of(url) or url} inside the automation's scope.",
                                                          ev("url.in_scope", "destination_url", url))]


def link_destination(v: View) -> list[Finding]:
    """A click on a link goes where its href points."""
    t = v.ctx.target
    href = resolve(t.href, v.ctx.url) if t is not None and t.href else ""
    return destination(v, href, composed=False) if href else []


def judge_launch(v: View) -> list[Finding]:
    app = v.ctx.app_name
    allowed = {a.lower() for a in v.allowed_apps}
    if allowed and app.lower() not in allowed:
        return [finding("NAV-OUT", 3, f"Opens the app '{app}', outside the allowed apps.", ev("app.out_of_scope", "app_name", app),
                        out_of_scope=True)]
    return [finding("NONE", 1, f"Opens the app '{app}'.", ev("app.launch", "app_name", app))]


def judge_call_user(v: View) -> list[Finding]:
    asked = norm(v.ctx.model_asked)
    hits = labels.triggers_in(asked)
    if hits:
        hit = max(hits, key=lambda h: h.length)
        return [finding(hit.category, 3, f"The model stopped to ask about a step that {MEANING[hit.category]}.",
                        ev("model_asked", "model_asked", asked))]
    return [finding("NONE", 0, "The model asked the user a question.", ev("model_asked", "model_asked", asked))]
