"""Labels read as an object and a verb (`compose.json`): "account" + "close", "booking" +
"confirm", "public" + "make", in the 29 lexicon languages, wherever they stand in the label
("Kundenkonto endgültig schließen", "Bekreft endring av flyvning"). A fixed phrase lexicon misses
the phrasing an application happens to use; the pair of concepts does not depend on it.

Also the markers that say an act is final, binding or cannot be undone ("endgültig",
"cannot be undone", "数据丢失"), read in a label, its dialog or the text beside it.

Only consulted for labels no lexicon reads (`fallback`): a pair never lowers a finding, and the
words that make a label a place, a local step or a refusal (concepts' clauses) are read first.
Forms follow `concepts.json`'s syntax (stems with `*`, compounds with a leading `*`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from workers.gates.safety.concepts import normalise_form, union

DATA = Path(__file__).with_name("compose.json")


def _forms(entry: dict) -> list[str]:
    return [normalise_form(f.strip()) for joined in entry["forms"].values() for f in joined.split("|") if f.strip()]


@lru_cache(maxsize=1)
def _compiled() -> tuple[list[tuple[str, re.Pattern[str], tuple[re.Pattern[str], ...]]], re.Pattern[str] | None]:
    if not DATA.exists():
        return [], None
    data = json.loads(DATA.read_text(encoding="utf-8"))
    objects = {k: re.compile(union(_forms(e))) for k, e in data["objects"].items()}
    verbs = {k: re.compile(union(_forms(e))) for k, e in data["verbs"].items()}
    pairs = [(p["category"], objects[p["object"]], tuple(verbs[name] for name in p["verbs"])) for p in data["pairs"]]
    marker = data.get("irreversible")
    return pairs, (re.compile(union(_forms(marker))) if marker else None)


def _word(label: str, m: re.Match[str]) -> bool:
    """A real match: not empty, and not Thai ปิด ("off") read inside เปิด ("on")."""
    text = m.group(0)
    before = label[m.start() - 1] if m.start() > 0 else ""
    if text.startswith(("公開", "公开")) and before in ("非", "不"):  # 非公開 / 不公开: private
        return False
    return bool(text.strip()) and not (text.startswith("ปิด") and before == "เ")


def reading(label: str) -> tuple[str, str] | None:
    """(category, the object and verb found) when the label names a paired object and verb in
    two places that do not overlap; else None."""
    if not label:
        return None
    for category, obj, verbs in _compiled()[0]:
        found: dict[int, list[re.Match[str]]] = {}  # each verb's matches, found once per label
        for o in obj.finditer(label):
            if not _word(label, o):
                continue
            for i, verb in enumerate(verbs):
                if i not in found:
                    found[i] = [w for w in verb.finditer(label) if _word(label, w)]
                for w in found[i]:
                    if w.end() <= o.start() or o.end() <= w.start():
                        return category, f"{o.group(0).strip()} + {w.group(0).strip()}"
    return None


def irreversible(text: str) -> str:
    """The marker that says an act is final or cannot be undone, or ""."""
    rx = _compiled()[1]
    m = rx.search(text) if rx is not None and text else None
    return m.group(0).strip() if m else ""


def _objects(text: str):
    for category, obj, verbs in _compiled()[0]:
        m = obj.search(text) if text else None
        if m and m.group(0).strip():
            yield category, m.group(0).strip(), verbs


def paired_with_page(label: str, page: str) -> tuple[str, str] | None:
    """A generic label's verb ("Save", "Сохранить", "Confirm") paired with an object the page names
    ("Recovery e-mail", "Booking"): (category, what was found), else None."""
    for category, obj, verbs in _objects(page):
        for verb in verbs:
            w = next((w for w in verb.finditer(label) if _word(label, w)), None)
            if w is not None:
                return category, f"{obj} + {w.group(0).strip()}"
    return None


def toggled(label: str, beside: str) -> tuple[str, str] | None:
    """A switch, checkbox or option whose label (or, for a short option such as "None", the setting
    beside it) names a paired object: choosing it acts on that object ("Anyone with the link",
    "Allow from this source" under "Install unknown apps", "None" under "Screen lock")."""
    for text in (label, beside if len(label.split()) <= 2 else ""):
        for category, obj, _ in _objects(text):
            return category, obj
    return None


_FILLER = re.compile(r"^(?:click|tap|press|select) (?:here )?to ")  # "Click to sign"


def bare_verb(label: str) -> bool:
    """Is the label only a verb ("Deaktivieren", "Désactiver", "Tắt", "Click to sign")? Then what it
    acts on is what the page, its title or its dialog names."""
    label = _FILLER.sub("", label)
    if not label or len(label.split()) > 4:
        return False
    letters = sum(ch.isalnum() for ch in label)
    for _, obj, verbs in _compiled()[0]:
        if any(_word(label, m) for m in obj.finditer(label)):
            return False
    covered = 0
    for verbs in {id(v): v for _, _, v in _compiled()[0]}.values():
        for verb in verbs:
            for m in verb.finditer(label):
                if _word(label, m):
                    covered = max(covered, sum(ch.isalnum() for ch in m.group(0)))
    return letters > 0 and covered >= 0.5 * letters


# What a dialog's verb alone commits, when its confirm button ("OK", "Ano", "실행") says nothing itself.
_VERB_ALONE = {"erase": "DEL", "pay": "PAY", "install": "INSTALL", "stop": "SYS", "sign_accept": "LEGAL"}


def dialog_reading(text: str) -> tuple[str, str] | None:
    """(category, what was found) for a confirmation dialog's text: an object and verb pair, else
    a verb that commits on its own ("Confirmer la suppression", "Підтвердіть видалення")."""
    found = reading(text)
    if found is not None or not text:
        return found
    for category, rx in _verbs_alone():
        m = next((m for m in rx.finditer(text) if _word(text, m)), None)
        if m is not None:
            return category, m.group(0).strip()
    return None


@lru_cache(maxsize=1)
def _verbs_alone() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The lone-verb patterns, compiled once per process (not read from disk per decision)."""
    if not DATA.exists():
        return ()
    verbs = json.loads(DATA.read_text(encoding="utf-8"))["verbs"]
    return tuple((category, re.compile(union(_forms(verbs[name])))) for name, category in _VERB_ALONE.items())
