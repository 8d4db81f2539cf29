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
4. the address a POST form submits to (`/user/register`), for a submit button (a submit whose form names
   no method submits to its page: the confirmation page `/folder/14/delete/`);
5. the dialog it answers, when its word echoes the dialog's ("Ouvrir" under "…l'ouvrir ?").

Before any of it, a call button ("Llamar", "Ara") places a call only beside a phone number, and a
label opening with a refusal and a comma ("Nein, zurück") declines.

Each answer is a reviewable commit (R3) with its evidence; none can lower a finding. A control
that dismisses, shows or navigates never reaches here (its label is read first).
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from workers.gates.safety import compose, concepts, cues, labels, shell
from workers.gates.safety.text import clip, hint_words, norm
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


def answers_dialog(v: View, label: str, verb: str) -> Finding | None:
    """A control of a dialog that states a consequential act ("macOS cannot verify the developer of
    'Tool.app'. Open it anyway?", "Allow this app to make changes to your device?") answers it: its
    own word ("Open", "Add to browser", "Yes, I'm sure") is only the reply. Dismissals are read before."""
    asked = v.dialog or (v.nearby if re.search(r"[?？]", v.nearby) else "")  # an app's dialog read as the text beside its buttons
    if v.kind not in _COMMITTING_KINDS or not asked or labels.in_clause(label) or not _echoes(label, asked):
        return None
    cue = cues.find_cue(asked, strong_only=True)
    if cue is not None and cue.category not in ("NONE", "UNKNOWN"):
        return _found(cue.category, f"{verb} '{clip(label, 60)}' answers a dialog about '{clip(cue.text, 40)}': it "
                      f"{MEANING[cue.category]}.", f"cue.dialog.{cue.category}", "dialog_text" if v.dialog else "nearby_text", cue.text)
    said = compose.dialog_reading(asked)
    if said is not None:
        return _found(said[0], f"{verb} '{clip(label, 60)}' answers what its dialog asks ({said[1]}): it {MEANING[said[0]]}.",
                      "compose.dialog", "dialog_text", said[1])
    return None


_SCRIPT_RUN = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")  # Thai, kana, han, hangul: no spaces


@functools.cache
def _refusal_words() -> frozenset[str]:
    """Single-word negations and dismissals of the concept lexicon ("không", "nie", "nein"): a dialog's
    question may hold them too ("… không?"), so they echo nothing."""
    return frozenset(norm(f) for c in concepts.concepts() if c["kind"] in ("negation", "dismiss")
                     for _, f in concepts.forms(c) if " " not in f.strip() and "*" not in f)


def refuses(label: str) -> bool:
    """A label that opens with a refusal and a comma ("Ei, vie minut takaisin", "Nein, zurück", "Không, giữ lại")
    declines whatever follows."""
    head, comma, _ = label.partition(",")
    return bool(comma) and head.strip() in _refusal_words()


def _echoes(label: str, dialog: str) -> bool:
    """The reply repeats the dialog's own verb or noun ("Ouvrir" to "…voulez-vous vraiment l'ouvrir ?",
    "브라우저에 추가" to "추가하시겠습니까?"), as the button that does what the dialog asks does; a refusal
    in words no lexicon holds ("Zostaw", "先不了") says something else."""
    for word in re.findall(r"\w+", label):
        if word in _refusal_words():
            continue
        if _SCRIPT_RUN.fullmatch(word):
            if any(word[i:i + 2] in dialog for i in range(len(word) - 1)):
                return True
        elif len(word) >= 4 and word[:max(4, len(word) - 3)] in dialog:
            return True
    return False


_PHONE = re.compile(r"(?:^|\s|\|)\+?\(?\d[\d ()./-]{6,}\d")


@functools.cache
def _call_verbs() -> frozenset[str]:
    return frozenset(normalise for c in concepts.concepts() if c["kind"] == "callverb"
                     for _, f in concepts.forms(c) if (normalise := concepts.normalise_form(f)))


def phone_call(v: View, label: str, source: str, verb: str) -> Finding | None:
    """A call button beside a phone number ("Ara" under "+90 532 …", "Llamar") places a call: the same word
    may mean something harmless elsewhere (Turkish "ara" is also "search"), so only the number beside it decides."""
    if v.kind not in _COMMITTING_KINDS or label not in _call_verbs():
        return None
    number = next((m.group(0).strip(" |") for text in (v.nearby, v.dialog, v.titles) if (m := _PHONE.search(text))), None)
    if number is None:
        return None
    return _found("SEND", f"{verb} '{clip(label, 60)}' calls {clip(number, 30)}: it {MEANING['SEND']}.", "cue.phone_call",
                  source, number)


def _submits(t) -> bool:
    """The control submits its form: a POST form, or a submit input or button whose form's method is not given."""
    method = t.form_method.lower()
    return method == "post" or (not method and (t.input_type == "submit" or t.attributes.get("type") == "submit"))


def unread(v: View, label: str, source: str, verb: str) -> Finding | None:
    """A commit finding for a label no lexicon reads, or None when nothing around it says one."""
    if v.kind not in _COMMITTING_KINDS:
        return None
    if paired := pair(v, label, source, verb):
        return paired
    if answered := answers_dialog(v, label, verb):
        return answered
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
    if _submits(t) and v.ctx.surface == "web":  # a confirmation page's submit (`/folder/14/delete/`) is the commit
        path = urlsplit(t.form_action or v.ctx.url).path
        cue = cues.url_cue("https://x" + path) if path else None
        if cue and cue.category not in ("NONE", "AUTH"):  # a sign-in is read from its password field (credentials_form)
            return _found(cue.category, f"{verb} '{clip(label, 60)}' submits to {clip(path, 50)}, which {MEANING[cue.category]}.",
                          f"cue.{cue.category}", "target.form_action", path)
    return None
