"""Labels no lexicon reads: what else on the page says the control commits (issue 12).

A business user's real application says things our lexicons never saw ("Maak publiek",
"Kundenkonto endgültig schließen", "Request ride"). When a button's label has no consequential
wording we know, the rule layer asks, in order:

1. the label's words as an object and a verb (`compose`): "account" + "close", "booking" +
   "confirm", in any of the 29 lexicon languages, whatever the phrasing around them;
2. the label, its dialog or the text beside it saying the act is final, binding or cannot be undone
   ("endgültig", "cannot be undone", "数据丢失"): a person decides;
3. the developer's identifiers on the control (`name="bulk_action.public"`, `id="btn-deactivate"`):
   written in English whatever the UI language;
4. the address a POST form submits to (`/user/register`), for a submit button.

Each answer is a reviewable commit (R3) with its evidence; none can lower a finding. A control
that dismisses, shows or navigates never reaches here (its label is read first).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from workers.gates.safety import compose, cues, labels, shell
from workers.gates.safety.text import clip, hint_words
from workers.gates.safety.verdict import MEANING, Evidence, Finding
from workers.gates.safety.view import View

_COMMITTING_KINDS = ("button", "menuitem", "generic")


def _found(category: str, reason: str, signal: str, source: str, text: str) -> Finding:
    return Finding(category, 3, reason, [Evidence(signal=signal, source=source, text=clip(text))])

# Developer identifiers (ids, names, test ids, actions), English by convention in any UI language.
_IDENTIFIERS = [
    ("SHARE", re.compile(r"\b(?:make public|public|publicize|visibility public|share|grant|invite|permissions?)\b")),
    ("ACCT", re.compile(r"\b(?:register|signup|sign up|create account|new account|deactivate|close account|delete account|"
                        r"unsubscribe|cancel subscription|terminate)\b")),
    ("SEC", re.compile(r"\b(?:password|passwd|2fa|mfa|otp|totp|two factor|recovery|backup codes?|security|firewall|"
                       r"disable protection)\b")),
    ("DEL", re.compile(r"\b(?:delete|destroy|purge|wipe|erase|remove|drop)\b")),  # not "trash": moving there is undone
    ("PAY", re.compile(r"\b(?:pay|payment|checkout|purchase|buy|order|transfer|refund|charge)\b")),
    ("BOOK", re.compile(r"\b(?:book|booking|reserve|reservation|appointment|rebook|reschedule)\b")),
    ("SYS", re.compile(r"\b(?:reboot|restart|shutdown|shut down|stop instance|terminate|deploy|rollback)\b")),
    ("INSTALL", re.compile(r"\b(?:install|sideload|enable admin|device admin)\b")),
    ("LEGAL", re.compile(r"\b(?:sign contract|e sign|esign|accept terms|agree|consent)\b")),
    ("SEND", re.compile(r"\b(?:send|publish|post|submit message|reply)\b")),
]
# "Continue with <account provider>" in the lexicon languages: a sign-in through another account.
_CONTINUE_WITH = re.compile(
    r"^(?:continue with|continue using|weiter mit|fortfahren mit|continuer avec|continuar con|continua con|continuar com|"
    r"doorgaan met|verder met|kontynuuj z|kontynuuj przez|продолжить с|продолжить через|продовжити з|продовжити через|"
    r"ile devam et|fortsätt med|pokračovat s|pokračovat přes|fortsæt med|fortsett med|jatka palvelulla|jatka käyttäen|"
    r"folytatás|continuă cu|συνέχεια με|المتابعة باستخدام|متابعة باستخدام|המשך עם|के साथ जारी रखें|lanjutkan dengan|"
    r"tiếp tục với|ดำเนินการต่อด้วย|teruskan dengan)\s+\S|\S.*(?:で続行|で続ける|で始める|로 계속|으로 계속|로 시작하기|으로 시작하기|继续$|繼續$)")
# "Run", "Execute" in the lexicon languages: the command or query shown beside it is what it does.
_RUN = re.compile(r"^(?:run|execute|ausführen|exécuter|ejecutar|esegui|executar|uitvoeren|wykonaj|uruchom|выполнить|запустить|"
                  r"виконати|запустити|çalıştır|kör|spustit|kør|kjør|suorita|futtatás|futtat|rulează|execută|εκτέλεση|تشغيل|تنفيذ|"
                  r"הפעל|הרץ|चलाएं|jalankan|chạy|thực thi|เรียกใช้|実行|运行|执行|실행)\b|^(?:実行|运行|执行|실행)")
_HINT_ATTRS = ("id", "name", "data-testid", "data-test", "data-action", "value", "formaction")


def pair(v: View, label: str, source: str, verb: str, *, page: bool = True) -> Finding | None:
    """The label's object and verb (`compose`), on a control that can commit; with `page`, a label
    that is only a verb takes its object from the page."""
    if v.kind not in _COMMITTING_KINDS:
        return None
    found = compose.reading(label)
    if found is not None:
        category, said = found
        return _found(category, f"{verb} '{clip(label, 60)}' {MEANING[category]} ('{said}').", "compose", source, said)
    if page and compose.bare_verb(label) and not labels.in_clause(label):  # "Deaktivieren" under "Zwei-Faktor-Authentifizierung deaktivieren"
        page = " | ".join(filter(None, (v.dialog, v.titles, v.nearby)))
        found = compose.paired_with_page(label, page)
        if found is not None:
            category, said = found
            return _found(category, f"{verb} '{clip(label, 60)}' acts on what the page names ({said}): it {MEANING[category]}.",
                          "compose.page", "page", said)
    return None


def unread(v: View, label: str, source: str, verb: str) -> Finding | None:
    """A commit finding for a label no lexicon reads, or None when nothing around it says one."""
    if v.kind not in _COMMITTING_KINDS:
        return None
    if paired := pair(v, label, source, verb):
        return paired
    for text, where in ((label, source), (v.dialog, "dialog_text"), (v.nearby, "nearby_text")):
        marker = compose.irreversible(text)
        if marker:
            cue = cues.find_cue(" | ".join(filter(None, (label, v.dialog, v.nearby, v.titles))))
            category = cue.category if cue and cue.category != "NONE" else "UNKNOWN"
            what = MEANING.get(category, "commits something")
            return _found(category, f"{verb} '{clip(label, 60)}': the page says the act is final ('{clip(marker, 40)}'); "
                          f"it {what}.", "cue.irreversible", where, marker)
    t = v.ctx.target
    if t is None:
        return None
    if _RUN.match(label):  # "Run query" beside "DROP TABLE customers_archive;": the command it runs decides
        for text in v.ctx.nearby_text[:4]:
            judged = shell.judge_command(text)
            if judged is not None and judged.known and judged.level >= 3:
                return _found(judged.category, f"{verb} '{clip(label, 60)}' runs '{clip(judged.segment, 60)}', which "
                              f"{MEANING[judged.category]}.", f"shell.{judged.category}", "nearby_text", judged.segment)
    if _CONTINUE_WITH.match(label) and any(c and c.category == "AUTH" for c in (cues.url_cue(v.ctx.url), cues.find_cue(v.titles))):
        return _found("AUTH", f"{verb} '{clip(label, 60)}' on a sign-in page signs in through another account.",
                      "cue.sso", source, label)
    if v.ctx.file_name and t.form_method.lower() == "post":
        return _found("SHARE", f"{verb} '{clip(label, 60)}' submits the form that uploads '{clip(v.ctx.file_name, 60)}'.",
                      "action.upload", "file_name", v.ctx.file_name)
    words = " ".join(filter(None, [hint_words(t.resource_id), *(hint_words(t.attributes.get(a, "")) for a in _HINT_ATTRS)]))
    for category, rx in _IDENTIFIERS:
        m = rx.search(words)
        if m:
            return _found(category, f"{verb} '{clip(label, 60)}' (a control its page names '{m.group(0)}') {MEANING[category]}.",
                          f"hint.{category}", "target.attributes", m.group(0))
    if t.form_method.lower() == "post" and v.ctx.surface == "web":
        path = urlsplit(t.form_action or v.ctx.url).path
        cue = cues.url_cue("https://x" + path) if path else None
        if cue and cue.category not in ("NONE", "AUTH"):  # a sign-in is read from its password field (credentials_form)
            return _found(cue.category, f"{verb} '{clip(label, 60)}' submits to {clip(path, 50)}, which {MEANING[cue.category]}.",
                          f"cue.{cue.category}", "target.form_action", path)
    return None
