"""The curated concept lexicon (`concepts.json`): each taxonomy category's core concepts, written in
29 languages from general knowledge of them, so a label is read by what it means rather than by
which application's catalog it came from.

`entries()` hands the plain kinds (trigger, dismiss) to `i18n`, which turns them into patterns
beside the catalog lexicon. The clause kinds are built here, because they read the words around
them: a navigation noun ("Zahlungsverlauf", "결제 내역") or a cart, filter or go-to-checkout phrase
("aus dem Warenkorb", "Перейти к оплате") makes its clause a place or a local step, so a commit
verb inside it is not a commit; a one-time-code noun beside a send verb ("Code senden",
"Отправить код") asks for a code (AUTH R2); a label-initial negation ("No borrar", "Nicht
löschen", "Не удалять"; label-final in Japanese and Korean: "削除しない") declines.

Form syntax (see the file's "schema"): words match on word boundaries; `*` at the end accepts any
ending, at the start any beginning; `…` lets up to three short words stand between the parts;
Chinese, Japanese and Thai match anywhere; Korean nouns may carry 하다/되다 endings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from workers.gates.safety.text import norm

DATA = Path(__file__).with_name("concepts.json")
NO_SPACES = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # Thai, kana, han
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_GAP = "…"
# "Any beginning" is bounded: an unbounded `\w*` before a literal, tried at each start of a long
# run of letters, costs the run's length squared (a 2,000-letter label took 2 s to judge). Forty
# letters before the literal cover the compounds the forms are for ("Benutzerkontolöschung").
_ANY_BEGINNING = r"\w{0,40}"
_GAP_RX = r"(?:\W{1,3}\w{1,3}){0,3}\W{0,3}"
_KO_ENDING = r"(?:[하합할해했한함됩되된돼][\uac00-\ud7af]*)?(?![\uac00-\ud7af])"
_WORD = r"[^\s,.;:!?()\[\]|/·、。，！？]+"  # one word of a clause
HEAD_FINAL = {"ja", "ko", "tr", "hi"}  # the noun or the negation comes last


def concepts() -> list[dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))["concepts"]


def forms(concept: dict) -> list[tuple[str, str]]:
    """(language, raw form) pairs of one concept."""
    return [(lang, f.strip()) for lang, joined in concept["forms"].items() for f in joined.split("|") if f.strip()]


def normalise_form(form: str) -> str:
    """A form in the matcher's text (`text.norm`), keeping its `*` and `…` markers."""
    return _GAP.join(norm(part) for part in form.split(_GAP))


def entries() -> list[dict]:
    """Trigger, dismiss and confirm (whole-label generic) forms in the catalog lexicon's entry shape (kind, category, lang, text)."""
    out = []
    for c in concepts():
        if c["kind"] in ("trigger", "dismiss", "confirm"):
            kind = c["kind"]
            out += [{"kind": kind, "category": c["category"], "lang": lang, "text": normalise_form(f), "sources": ["concepts.json"]}
                    for lang, f in forms(c)]
    return out


def _parts(text: str, *, inflect: bool = False) -> tuple[str, str, str] | None:
    """(head, literal, tail) of a form without `…`: the regex around its literal text."""
    if _GAP in text:
        return None
    lead, trail = text.startswith("*"), text.endswith("*")
    text = text.strip("*")
    if not text:
        return None
    if NO_SPACES.search(text):
        return "", text, ""
    head = _ANY_BEGINNING if lead else (r"(?<!\w)" if re.match(r"\w", text) else "")
    if _HANGUL.search(text[-1]):
        return head, text, _KO_ENDING
    if trail:
        return head, text, r"\w*"
    tail = r"\w{0,4}(?!\w)" if inflect and len(text) >= 5 else (r"(?!\w)" if re.search(r"\w$", text) else "")
    return head, text, tail


def piece(text: str, *, inflect: bool = False) -> str:
    """One form as a regex (see the module docstring)."""
    parts = _parts(text, inflect=inflect)
    if parts is None:
        return _GAP_RX.join(piece(part.strip(), inflect=inflect) for part in text.split(_GAP) if part.strip())
    head, literal, tail = parts
    return head + re.escape(literal) + tail


def _trie(items: list[tuple[str, str]]) -> str:
    """A regex matching any (literal, tail) of `items`, longest literal first, built as a trie so
    thousands of forms cost a few character tests per position instead of one test per form."""
    tree: dict = {}
    for literal, tail in items:
        node = tree
        for ch in literal:
            node = node.setdefault(ch, {})
        node.setdefault("", set()).add(tail)

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch != ""]
        alts += sorted(node.get("", ()), key=lambda s: (-len(s), s))  # the tails of forms ending here
        if len(alts) == 1:
            return alts[0] if not alts[0] or len(node) == 1 and "" not in node else f"(?:{alts[0]})"
        return "(?:" + "|".join(alts) + ")"

    return emit(tree)


def union(texts: list[str], *, inflect: bool = False) -> str:
    """One regex for many forms: a trie per kind of head (word start, anywhere, compound), then the
    elided forms."""
    heads: dict[str, list[tuple[str, str]]] = {}
    gapped = []
    for text in sorted(set(texts)):
        parts = _parts(text, inflect=inflect)
        if parts is None:
            gapped.append(piece(text, inflect=inflect))
        else:
            heads.setdefault(parts[0], []).append((parts[1], parts[2]))
    alts = [head + _trie(items) for head, items in sorted(heads.items())] + gapped
    return "|".join(f"(?:{a})" for a in alts)


def _alt(items: list[str], **kw) -> str:
    return union(items, **kw)


def _by_kind(kind: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in concepts():
        if c["kind"] == kind or (kind == "send" and c["id"] == "send"):
            for lang, f in forms(c):
                out.setdefault(lang, []).append(normalise_form(f))
    return out


_STOP = set(",.;:!?()[]|/·、。，！？")


def _extend(label: str, start: int, end: int, before: int, after: int) -> tuple[int, int]:
    """Widen a match by up to `before` words ahead and `after` words behind it, within its clause
    (punctuation ends a clause); text without spaces widens over its whole run."""
    for _ in range(before):
        i = start
        while i > 0 and label[i - 1] == " ":
            i -= 1
        j = i
        while j > 0 and label[j - 1] not in _STOP and label[j - 1] != " ":
            j -= 1
        if j == i:
            break
        start = j
    for _ in range(after):
        i = end
        while i < len(label) and label[i] == " ":
            i += 1
        j = i
        while j < len(label) and label[j] not in _STOP and label[j] != " ":
            j += 1
        if j == i:
            break
        end = j
    return start, end


@dataclass(frozen=True)
class Clause:
    """An override read over a clause: its core words widened by `before` / `after` words."""

    category: str
    level: int
    rx: re.Pattern[str]
    before: int = 0
    after: int = 0

    def spans(self, label: str) -> list[tuple[int, int]]:
        return [_extend(label, m.start(), m.end(), self.before, self.after) for m in self.rx.finditer(label) if m.group(0).strip()]


def _group(specs: list[tuple[str, int, int]], category: str, level: int) -> list[Clause]:
    """One Clause per (before, after) shape: the cores of all languages that share it."""
    shapes: dict[tuple[int, int], list[str]] = {}
    for core, before, after in specs:
        shapes.setdefault((before, after), []).append(core)
    return [Clause(category, level, re.compile("|".join(f"(?:{c})" for c in cores)), b, a) for (b, a), cores in sorted(shapes.items())]


def _build_clauses() -> list[Clause]:
    nav, local, neg = _by_kind("nav"), _by_kind("local"), _by_kind("negation")
    code, verbs, send = _by_kind("code"), _by_kind("codeverb"), _by_kind("send")
    places: list[tuple[str, int, int]] = []
    for lang, items in nav.items():  # "historial de pagos", "결제 내역", "Zahlungsverlauf"
        final = lang in HEAD_FINAL
        places.append((union(items), 2 if final else 0, 0 if final else 3))
    for lang, items in local.items():  # "Удалить из корзины", "Weiter zur Kasse"
        places.append((union(items), 3, 3))
    negs: list[tuple[str, int, int]] = []
    for lang, items in neg.items():  # "No borrar", "Nicht löschen"; "削除しない", "삭제 안 함"
        alt = union(items)
        if lang in ("ja", "ko"):
            negs.append((f"(?:{alt})", 3, 0))
        elif lang == "th":
            negs.append((rf"^(?:{alt}){_WORD}", 0, 0))
        else:
            negs.append((rf"^(?:{alt})\s+{_WORD}", 0, 5))
    codes = []
    for lang, items in code.items():  # "Code senden", "Отправить код", "인증번호 받기"
        v, c = union(verbs.get(lang, []) + send.get(lang, [])), union(items)
        gap = r"\S{0,6}" if lang in ("ja", "th", "zh") else rf"(?:\s+{_WORD}){{0,2}}\s+"
        codes.append((rf"(?:{v}){gap}(?:{c})|(?:{c}){gap}(?:{v})", 0, 0))
    easy = [Clause(c["category"], 2, re.compile(union([normalise_form(f) for _, f in forms(c)]))) for c in concepts() if c["kind"] == "r2"]
    return _group(places, "NONE", 1) + _group(negs, "NONE", 1) + _group(codes, "AUTH", 2) + easy


CLAUSES: list[Clause] = _build_clauses()

# A currency amount on a control ("Payer 42,00 €", "Оплатить 1 290 ₽", "₩12,000 결제", "EUR 12.50").
_SYMBOL = r"[$€£¥₽₴₹₩₺₪฿₫₱₦]|руб\.?|грн\.?|zł|kč|kr\.?|lei|ft|円|元|원|(?<![a-z])(?:eur|usd|gbp|chf|rub|uah|pln|czk|sek|nok|dkk|huf|ron|try|inr|krw|jpy|cny|rmb|brl|aud|cad|mxn)(?![a-z])"
_NUMBER = r"\d[\d\s.,']*\d|\d"
CURRENCY_AMOUNT = re.compile(rf"(?<![^\W\d_])(?:{_SYMBOL})\s?(?:{_NUMBER})|(?<![\w.,])(?:{_NUMBER})\s?(?:{_SYMBOL})(?![^\W\d_])")

_COMPOSER = re.compile("^(?:" + "|".join(re.escape(normalise_form(f)) for c in concepts() if c["kind"] == "composer"
                                         for _, f in forms(c)) + r")[.!。！]?$")


def composer(label: str) -> bool:
    """Is the whole label a Reply / Forward / Compose that opens a composer?"""
    return bool(_COMPOSER.match(label))
