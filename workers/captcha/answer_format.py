"""What a site's accepted answers teach about its text CAPTCHAs: their length and their characters.

Most sites draw every challenge from one format: five characters, or four digits, or capitals
and digits without the look-alikes (0/O, 1/I/l). The page rarely says so, and a reader that
does not know it drops or doubles a character, or reads a 0 as an O. Each answer a site accepts
is a sample of its format (the answer was right), so, per automation and site (host), the route
keeps decayed counts of the accepted answers' lengths and characters (letters folded to one
case: letter case is workers/captcha/letter_case.py's) and reads the site's next challenges
under what they show, as it reads under what a page says (`hints.text_hints`):

- one length, once five answers were accepted (MIN_ANSWERS, their decayed weight) and the other
  lengths together weigh at most LENGTH_SHARE of them;
- no digits (or no letters), once CLASS_MIN_CHARS characters were seen and that class weighs at
  most CLASS_SHARE of them;
- only the characters seen, once each character the site draws would have been seen about
  CHAR_EXPECTED times if the site drew the unseen ones as often (a character seen once is kept);
- codes, not sums, once MIN_ANSWERS of the local route's accepted answers were read as text and
  none as a sum (`texts`, `sums`): a code of digits can look like "18-7513" to the sum detector,
  and on such a site it is then not looked for. A person's answer says nothing of this (its
  digits may be a sum's value); a sum's value teaches no length or character.

Each accepted answer weighs the older ones by DECAY, so a site that changes its format is
followed; and an answer read under the learned format that the gate finds unsure is read again
without it (workers/captcha/local.py), so a changed format does not make the route abstain for
ever. FORGET_AFTER refusals in a row of answers read under the learned format halve the counts
(a reader often wrong on a site refuses in runs too: what needs the most answers lapses first,
the rest after more refusals).

What a hostile page on an allowed domain can do: accept answers of a format of its choosing, so
that its own host's challenges, for that automation, are read under that format: a wrong format
makes the readings unsure (read again without it) or wrong (a try lost, as any wrong answer).
The counts are bounded (`bounded`: at most 36 characters, 32 lengths, finite weights).
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import Any

from workers.captcha.hints import TextHints

DECAY = 0.99  # each accepted answer weighs the older ones by this: about the last 100 count
MIN_ANSWERS = 4.9  # accepted answers' decayed weight before the format is taken from them: five (4.90)
LENGTH_SHARE = 0.02  # the other lengths weigh at most this share: the site draws one length
CLASS_MIN_CHARS = 40.0  # characters (decayed) seen before digits or letters are ruled out
CLASS_SHARE = 0.005  # digits (or letters) weigh at most this share of the characters: the site draws none
CHAR_EXPECTED = 10.0  # characters seen per character drawn before the unseen ones are ruled out
SEEN = 0.05  # a character's decayed weight from which it counts as seen (once, about 150 answers ago)
FORGET_AFTER = 5  # refusals in a row of answers read under the learned format: the counts are halved
FORGET_FACTOR = 0.5
FOLDED = string.ascii_lowercase + string.digits
MAX_LENGTH = 32


@dataclass(frozen=True)
class Learned:
    """The format taken from a site's accepted answers: the characters (both cases of each
    letter; None: any) and one length (None: any)."""

    charset: str | None = None
    length: int | None = None
    codes: bool = False  # the site's challenges are codes, never sums

    def __bool__(self) -> bool:
        return self.charset is not None or self.length is not None or self.codes

    def record(self) -> dict[str, Any]:
        return {"charset": self.charset, "length": self.length, "codes": self.codes}


def empty() -> dict[str, Any]:
    """A site nothing was learned from."""
    return {"answers": 0.0, "lengths": {}, "chars": {}, "misses": 0, "texts": 0.0, "sums": 0.0}


def _weight(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1e6 else None


def bounded(stored: Any) -> dict[str, Any]:
    """A stored format as the runtime uses it; anything malformed (a store written by hand, an
    older shape) is nothing learned, and stray keys are dropped."""
    if not isinstance(stored, dict):
        return empty()
    answers, texts, sums = (_weight(stored.get(k, 0.0)) for k in ("answers", "texts", "sums"))
    lengths, chars = stored.get("lengths"), stored.get("chars")
    misses = stored.get("misses", 0)
    if None in (answers, texts, sums) or not isinstance(lengths, dict) or not isinstance(chars, dict) or \
            not isinstance(misses, int) or isinstance(misses, bool) or not 0 <= misses < FORGET_AFTER:
        return empty()
    clean_lengths = {k: _weight(v) for k, v in lengths.items()
                     if isinstance(k, str) and k.isascii() and k.isdigit() and 1 <= int(k) <= MAX_LENGTH}
    clean_chars = {k: _weight(v) for k, v in chars.items() if isinstance(k, str) and len(k) == 1 and k in FOLDED}
    if None in clean_lengths.values() or None in clean_chars.values() or \
            len(clean_lengths) != len(lengths) or len(clean_chars) != len(chars):
        return empty()
    return {"answers": answers, "lengths": clean_lengths, "chars": clean_chars, "misses": misses,
            "texts": texts, "sums": sums}


def _times(counts: dict[str, float], factor: float) -> dict[str, float]:
    return {k: v * factor for k, v in counts.items()}


def learn(state: Any, answer: str, accepted: bool, applied: bool, kind: str | None = None) -> dict[str, Any]:
    """The format after the site's verdict on `answer` (`applied`: read under the learned
    format; `kind`: how the local route read it, "text" or "sum", None for a person's answer).
    An accepted answer of Latin letters and digits is counted, a sum's only as a sum; a refused
    one read under the format counts towards forgetting it; anything else changes nothing."""
    state = bounded(state)
    folded = answer.lower()
    if accepted:
        if kind == "sum":
            return {**state, "sums": state["sums"] * DECAY + 1.0, "texts": state["texts"] * DECAY, "misses": 0}
        if not folded or len(folded) > MAX_LENGTH or any(c not in FOLDED for c in folded):
            return state
        lengths, chars = _times(state["lengths"], DECAY), _times(state["chars"], DECAY)
        lengths[str(len(folded))] = lengths.get(str(len(folded)), 0.0) + 1.0
        for c in folded:
            chars[c] = chars.get(c, 0.0) + 1.0
        texts, sums = state["texts"], state["sums"]
        if kind == "text":
            texts, sums = texts * DECAY + 1.0, sums * DECAY
        return {"answers": state["answers"] * DECAY + 1.0, "lengths": lengths, "chars": chars, "misses": 0,
                "texts": texts, "sums": sums}
    if not applied:
        return state
    if state["misses"] + 1 >= FORGET_AFTER:  # halved: the rules that need the most answers lapse first
        return {"answers": state["answers"] * FORGET_FACTOR, "misses": 0, "texts": state["texts"] * FORGET_FACTOR,
                "sums": state["sums"],
                "lengths": _times(state["lengths"], FORGET_FACTOR), "chars": _times(state["chars"], FORGET_FACTOR)}
    return {**state, "misses": state["misses"] + 1}


def hints(state: Any) -> Learned:
    """What the site's accepted answers show of its format (nothing before MIN_ANSWERS)."""
    state = bounded(state)
    codes = state["texts"] >= MIN_ANSWERS and state["sums"] <= CLASS_SHARE * state["texts"]
    if state["answers"] < MIN_ANSWERS:
        return Learned(codes=codes)
    length = None
    if state["lengths"]:
        mode, weight = max(state["lengths"].items(), key=lambda kv: kv[1])
        if sum(state["lengths"].values()) - weight <= LENGTH_SHARE * state["answers"]:
            length = int(mode)
    chars = state["chars"]
    total = sum(chars.values())
    allowed = set(FOLDED)
    if total >= CLASS_MIN_CHARS:
        for cls in (string.digits, string.ascii_lowercase):
            if sum(w for c, w in chars.items() if c in cls) <= CLASS_SHARE * total:
                allowed -= set(cls)
    seen = {c for c, w in chars.items() if w >= SEEN}
    if seen and total >= CHAR_EXPECTED * len(seen):
        allowed &= seen
    if not allowed:  # nothing left (a site whose answers were all ruled out): no charset
        allowed = set(FOLDED)
    charset = None if allowed == set(FOLDED) else "".join(sorted(allowed | {c.upper() for c in allowed if c.isalpha()}))
    return Learned(charset, length, codes)


def merged(page: TextHints, learned: Learned) -> TextHints:
    """The page's hints completed by the site's learned format: what the page says wins (its
    charset, its exact length); a learned length is used under the page's maximum only."""
    length = page.length
    if length is None and learned.length is not None and (page.max_length is None or learned.length <= page.max_length):
        length = learned.length
    return TextHints(charset=page.charset if page.charset is not None else learned.charset, length=length,
                     max_length=page.max_length if length is None else None, case_ignored=page.case_ignored,
                     arithmetic=False if learned.codes and page.arithmetic is None else page.arithmetic)


def describe(learned: Learned) -> str:
    """The learned format in words, for people ("" when nothing is learned)."""
    parts = ["codes, not sums"] if learned.codes and learned.charset is None and learned.length is None else []
    if learned.length is not None:
        parts.append(f"{learned.length} characters")
    if learned.charset is not None:
        folded = "".join(sorted({c.lower() for c in learned.charset}))
        parts.append("digits only" if folded == string.digits else
                     "letters only" if folded == string.ascii_lowercase else f"only {folded}")
    return ", ".join(parts)
