"""Text normalisation shared by the safety rules: one canonical lower-case form for matching."""

from __future__ import annotations

import re
import unicodedata

# Zero-width, bidi controls, soft hyphen, BOM and Unicode tag characters: invisible to people,
# read by models (reference §4 "strip what humans cannot see").
INVISIBLE_RE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
CJK_RE = re.compile(r"[\u3400-\u9fff]")
_SPACE_RE = re.compile(r"\s+")
_CJK_GAP = re.compile(r"(?<=[\u3040-\u30ff\u3400-\u9fff]) (?=[\u3040-\u30ff\u3400-\u9fff])")
_WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u300c": '"', "\u300d": '"',
    "\u2026": "...", "\u2013": "-", "\u2014": "-", "\u00a0": " ",
})


def has_invisible(text: str) -> bool:
    """True if text holds characters a person cannot see."""
    return bool(INVISIBLE_RE.search(text or ""))


def norm(text: str | None) -> str:
    """NFKC, invisible characters removed, quotes and dashes plain, case folded, spaces collapsed."""
    if not text:
        return ""
    text = INVISIBLE_RE.sub("", text)
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _CJK_GAP.sub("", _SPACE_RE.sub(" ", text).strip())


def words(text: str) -> list[str]:
    """Latin words of normalised text."""
    return _WORD_RE.findall(text)


def size(text: str) -> float:
    """A length in 'words': Latin words plus half the CJK characters."""
    return len(words(text)) + len(CJK_RE.findall(text)) / 2


def hint_words(value: str | None) -> str:
    """Words inside an identifier such as 'com.taobao:id/btn_submitOrder' -> 'btn submit order'."""
    if not value:
        return ""
    if ":id/" in value:
        value = value.split(":id/", 1)[1]
    value = _CAMEL_RE.sub(" ", value)
    return " ".join(re.split(r"[^A-Za-z0-9\u3400-\u9fff]+", value)).lower().strip()


def clip(text: str, limit: int = 120) -> str:
    text = _SPACE_RE.sub(" ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
