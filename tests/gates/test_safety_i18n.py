"""The multilingual lexicon (`workers/gates/safety/lexicon_i18n.json`, built by
scripts/build_safety_lexicon.py from application translation catalogs): a target named with a
translated verb is judged like its English equivalent, with the same context cues.

No Django: run with `pytest tests/gates -q -p no:django --noconftest`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workers.gates.safety import ActionContext, SafetyPolicy, TargetInfo, classify, i18n

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "workers" / "gates" / "safety" / "lexicon_i18n.json"
CJK = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
REQUIRED = ("de", "fr", "es", "it", "pt", "nl", "pl", "ru", "uk", "tr", "cs", "sv", "ja", "ko", "zh", "ar")


def judged(name: str, **fields) -> tuple[str, str, str]:
    v = classify(ActionContext(action_type="click", target=TargetInfo(role="button", name=name), **fields), SafetyPolicy())
    return v.category, v.level, v.decision


def entries() -> list[dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))["entries"]


def test_every_entry_names_its_source_and_no_entry_is_a_sentence():
    data = entries()
    assert len(data) > 1000
    for e in data:
        assert e["sources"] and all(re.fullmatch(r"[\w.]+ [\w.]+", s) for s in e["sources"]), e
        assert e["msgids"] and e["lang"] and e["kind"] and e["category"], e
        # Fewer than 3 words and 4 adjacent CJK characters per piece: never a whole holdout string.
        for piece in e["text"].split("…"):
            assert len(CJK.findall(piece)) < 4 and len(WORD.findall(CJK.sub(" ", piece))) < 3, e


def test_the_required_languages_have_commit_verbs():
    triggers = {(e["lang"], e["category"]) for e in entries() if e["kind"] == "trigger"}
    for lang in REQUIRED:
        assert (lang, "DEL") in triggers and any((lang, c) in triggers for c in ("SEND", "PAY", "AUTH")), lang


@pytest.mark.parametrize(("name", "category"), [
    ("Löschen", "DEL"), ("Supprimer", "DEL"), ("Eliminar", "DEL"), ("Verwijderen", "DEL"), ("Удалить", "DEL"),
    ("삭제하기", "DEL"), ("削除", "DEL"), ("Senden", "SEND"), ("Envoyer", "SEND"), ("Veröffentlichen", "SEND"),
    ("Jetzt bezahlen", "PAY"), ("Anmelden", "AUTH"), ("ログイン", "AUTH"), ("Installieren", "INSTALL"),
])
def test_a_translated_commit_verb_is_read_like_the_english_one(name, category):
    assert judged(name) == (category, "R3", "review")


@pytest.mark.parametrize("name", ["Abbrechen", "Annuler", "Cancelar", "キャンセル", "Zurück", "Suchen", "Rechercher", "Vorschau"])
def test_translated_dismiss_and_read_only_labels_are_allowed(name):
    assert judged(name)[2] == "allow"


def test_a_translated_yes_takes_its_meaning_from_the_page():
    sure = "Ja, ich bin sicher"
    assert judged(sure, nearby_text=["Sind Sie sicher, dass Sie den Kunden „Müller“ löschen wollen?"])[0] == "DEL"
    assert judged(sure, dialog_text="Änderungen an der Ansicht übernehmen?")[2] == "allow"


def test_korean_verb_endings_attach_but_nouns_do_not():
    rx = dict(i18n.CUES)["SEND"][0]
    assert rx is not None and rx.search("게시하기") and not rx.search("게시판")
    assert judged("확인", page_title="게시판", dialog_text="검색어를 입력해 주세요.")[2] == "allow"


def test_an_elided_entry_matches_its_key_words_in_order():
    elided = [e["text"] for e in entries() if e["text"].count("…") == 1 and e["kind"] == "trigger" and e["lang"] == "fr"]
    assert elided
    first, last = (p.strip() for p in elided[0].split("…"))
    pattern = i18n._piece(elided[0], inflect=False)  # noqa: SLF001 -- the matcher under test
    assert re.search(pattern, f"{first} la {last}") and not re.search(pattern, f"{last} {first}")
