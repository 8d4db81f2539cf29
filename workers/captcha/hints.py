"""What a page tells about the answer of its text CAPTCHA: the characters, the length, the case.

Contract: `text_hints(instruction, field) -> TextHints`, a pure function of the widget's
text and its input's attributes as `detect` reports them (`maxlength`, `minlength`,
`inputmode`, `pattern`, `type`, `label`). Signals, strongest first:
- a `pattern` such as `[0-9]{4}`, `\\d{5}`, `[A-Za-z0-9]{4,6}`: charset and length;
- `inputmode=numeric|decimal|tel` or `type=number|tel`, or wording ("enter the digits",
  "numbers only", "数字"): digits; "letters only": letters; "capital letters": upper case;
- "the 5 characters" / "five digits": exact length; `minlength == maxlength`: exact length;
  a small `maxlength` (3-10): an upper bound only (pages often leave room).
Hints are hints: a wrong one makes the solver read worse, so anything ambiguous is ignored.
"""

from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass
from typing import Any

DIGITS = string.digits
LETTERS = string.ascii_letters
_NUMBER_WORDS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_COUNT = re.compile(r"\b(\d|three|four|five|six|seven|eight)[ -](?:\w+ )?(characters|chars|digits|letters|numbers|symbols)\b"
                    r"|(\d)\s*(?:位|个)", re.I)
_DIGIT_WORDS = re.compile(r"\b(digits?|numbers?|numeric|numerals?)\b|数字", re.I)
_LETTER_WORDS = re.compile(r"\bletters?\b|字母", re.I)
_UPPER_WORDS = re.compile(r"\b(capital|upper[- ]?case)\b|大写", re.I)
_LOWER_WORDS = re.compile(r"\blower[- ]?case\b|小写", re.I)
_CASE_IGNORED = re.compile(
    r"\bnot\s+case[- ]?sensitive|\bcase[- ]?insensitive|\b(?:letter\s+)?case\s+(?:does\s*n[o']t|doesn't|is\s*n[o']t|isn't)"
    r"\s+(?:matter|important|relevant)|\bignor(?:e|es|ing)\s+(?:the\s+)?(?:letter\s+)?case|\bany\s+(?:letter\s+)?case\b"
    r"|不区分大小写|大小写不敏感|不分大小写|Groß-?\s*(?:und|/)\s*Kleinschreibung\s+(?:wird\s+)?(?:nicht|egal)"
    r"|insensible\s+à\s+la\s+casse|casse\s+(?:n'est\s+pas|ne\s+compte\s+pas|indifférente)"
    r"|no\s+(?:se\s+)?distingue\s+(?:entre\s+)?may[uú]sculas|n[ãa]o\s+diferencia\s+mai[uú]sculas", re.I)
_CASE_MATTERS = re.compile(
    r"\bcase[- ]?sensitive|\b(?:letter\s+)?case\s+matters|区分大小写|Groß-?\s*(?:und|/)\s*Kleinschreibung\s+beachten"
    r"|sensible\s+à\s+la\s+casse|distingue\s+(?:entre\s+)?may[uú]sculas|diferencia\s+mai[uú]sculas", re.I)
_PATTERN = re.compile(r"^\^?(\[[^\]]+\]|\\d|\\w)(?:\{(\d+)(?:,(\d*))?\}|\+|\*)?\$?$")


@dataclass(frozen=True)
class TextHints:
    """Characters the answer may contain (None: any) and its length (exact or at most);
    `arithmetic` False where the challenges are known to be codes, never sums (None: a sum is
    recognised when the picture reads as one)."""

    charset: str | None = None
    length: int | None = None
    max_length: int | None = None
    case_ignored: bool | None = None
    arithmetic: bool | None = None

    def record(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def _class_chars(spec: str) -> str | None:
    """Characters of a regex class such as `[A-Za-z0-9]`, `\\d` or `\\w` (None when unsure)."""
    if spec == "\\d":
        return DIGITS
    if spec == "\\w":
        return LETTERS + DIGITS
    body = spec[1:-1]
    if body.startswith("^"):
        return None
    chars, i = set(), 0
    body = body.replace("\\d", "0-9")
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            lo, hi = body[i], body[i + 2]
            if lo > hi:
                return None
            chars |= {chr(c) for c in range(ord(lo), ord(hi) + 1)}
            i += 3
        else:
            chars.add(body[i])
            i += 1
    kept = "".join(sorted(c for c in chars if c.isascii() and c.isalnum()))
    return kept or None


def _from_pattern(pattern: str) -> tuple[str | None, int | None, int | None]:
    match = _PATTERN.match(pattern.strip())
    if not match:
        return None, None, None
    charset = _class_chars(match.group(1))
    lo, hi = match.group(2), match.group(3)
    if lo is None:
        return charset, None, None
    if hi is None:
        return charset, int(lo), None
    return charset, None, int(hi) if hi else None


def _wording_charset(text: str) -> str | None:
    digits, letters = bool(_DIGIT_WORDS.search(text)), bool(_LETTER_WORDS.search(text))
    if digits == letters:
        return None
    if digits:
        return DIGITS
    if _UPPER_WORDS.search(text):
        return string.ascii_uppercase
    return string.ascii_lowercase if _LOWER_WORDS.search(text) else LETTERS


def _int(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def text_hints(instruction: str, field: dict[str, Any] | None = None) -> TextHints:
    """The hints in the widget's instruction text and its input's attributes (see the module doc)."""
    field = field or {}
    words = " ".join(str(field.get(k) or "") for k in ("label", "placeholder")) + " " + (instruction or "")
    charset, length, max_length = _from_pattern(str(field.get("pattern") or ""))
    if charset is None:
        numeric = str(field.get("inputmode") or "").lower() in ("numeric", "decimal", "tel") or \
            str(field.get("type") or "").lower() in ("number", "tel")
        charset = DIGITS if numeric else _wording_charset(words)
    if charset is None and _UPPER_WORDS.search(words):
        charset = string.ascii_uppercase + DIGITS
    count = _COUNT.search(words)
    if length is None and count:
        word = (count.group(1) or count.group(3)).lower()
        length = _NUMBER_WORDS.get(word) or _int(word)
    low, high = _int(field.get("minlength")), _int(field.get("maxlength"))
    if length is None and low and low == high:
        length = high
    if length is None and max_length is None and high and 3 <= high <= 10:
        max_length = high
    if length is not None and not 1 <= length <= 32:
        length = None
    case_ignored = True if _CASE_IGNORED.search(words) else False if _CASE_MATTERS.search(words) else None
    return TextHints(charset=charset, length=length, max_length=max_length, case_ignored=case_ignored)
