"""Text CAPTCHAs: read the characters (or work out a small sum) from one image.

Contract: `solve_ocr(image, charset=None, length=None, arithmetic=None, max_length=None) -> str`;
`read_text` (same arguments) returns an `OcrReading`: the text, a confidence in [0, 1] and the
readers' candidates.
- Two readers: our recogniser (workers/captcha/solvers/recogniser.py: ddddocr's general reader
  fine-tuned on many synthetic generators) and ddddocr's default one. Both decode under the same constraints; when
  they disagree, each candidate is scored by both and the better one wins
  (workers/captcha/solvers/ocr_vote.py). The confidence is the gate's probability that the
  answer is right, from what both readers say of it (ocr_vote.Gate); `confidence_any_case`,
  that it is right ignoring letter case (for sites that ignore it). Without the committed
  weights, ddddocr reads alone.
- The answer has no whitespace. With `charset`, only those characters come back, and letters
  take the case they have in `charset` (a charset with both cases of its letters leaves the case
  to the reading, as without one). Without `charset`: Latin letters and digits, unless
  the image reads as mostly Chinese (then ddddocr alone, any character); the case is our
  recogniser's, made consistent across letters whose two cases look alike (c/C, o/O, ...).
- With `length`, the decoders return the most probable reading with exactly that many
  characters (a CTC best path under a length constraint), which repairs merged doubles
  ("OO" read as "O") and stray marks read as characters; `max_length` bounds it instead.
- Framing: the readers were trained on text that fills its image. Text drawn small inside a
  larger picture (a wide canvas, lines across it) is read up to three times: the whole image, the
  region where most of the ink is (`text_region`) and the densest cluster of ink
  (`text_cluster`: lines across the picture are thin, so they are sparse where text is dense).
  A sum wins over text and Latin text over any other script; between two of a kind, the higher
  confidence.
- Arithmetic ("3+4=?", "12 × 3 =", "7减2等于?") is detected when the reading looks like one
  (`arithmetic=None`, without a charset or with digits only: a sum's answer is digits, so a
  numeric input or a site whose answers were all numbers does not hide it, and unless our
  recogniser reads more digits than the sum reading has characters) or forced with
  `arithmetic=True`; the answer is
  then the result as text, computed by a small parser, never `eval`.
Limits: docs/captcha-ocr.md lists the measured rates per generator.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Protocol

import cv2
import numpy as np
from PIL import Image

from workers.captcha.solvers import _models, recogniser
from workers.captcha.solvers._image import SolverInputError, border_pixels, open_image, rgb_array
from workers.captcha.solvers.ocr_vote import (CASE_SURE, Candidate, OcrReading, case_margin, choose, consistent_case,
                                              fold, gate_features, text_logprob, uniform_case)
from workers.captcha.solvers.ocr_vote import confidence as vote_confidence

ARITHMETIC_MAX_GAP = 6.0  # nats; sums measured at 0-5.5, other texts at 13 and up
ASCII_ALNUM = string.ascii_letters + string.digits
DIGITS = frozenset(string.digits)
ARITHMETIC_CHARS = "0123456789+-x×*÷/=?？加减乘除等于"
_OPERATORS = {"+": "+", "加": "+", "-": "-", "减": "-", "—": "-", "x": "*", "X": "*", "×": "*", "*": "*",
              "乘": "*", "÷": "/", "/": "/", "除": "/"}


def solve_ocr(image: bytes, *, charset: str | None = None, length: int | None = None,
              arithmetic: bool | None = None, max_length: int | None = None) -> str:
    """Read the text of a text CAPTCHA (or the result of its arithmetic); see the module doc."""
    return read_text(image, charset=charset, length=length, arithmetic=arithmetic, max_length=max_length).text


def read_text(image: bytes, *, charset: str | None = None, length: int | None = None,
              arithmetic: bool | None = None, max_length: int | None = None) -> OcrReading:
    """`solve_ocr` with its confidence and the readers' candidates (workers/captcha/solvers/ocr_vote.py)."""
    for name, value in (("length", length), ("max_length", max_length)):
        if value is not None and not 1 <= value <= 32:
            raise SolverInputError(f"{name} must be between 1 and 32")
    picture = Image.fromarray(rgb_array(open_image(image)))
    reading = _read(picture, charset=charset, length=length, arithmetic=arithmetic, max_length=max_length)
    for crop in framings(picture):
        reading = _better(reading, _read(picture.crop(crop), charset=charset, length=length, arithmetic=arithmetic,
                                         max_length=max_length))
    return reading


def _better(reading: OcrReading, framed: OcrReading) -> OcrReading:
    """The answer between the reading so far and a crop's (marked `framed` when it wins): a sum
    over text, text in Latin letters and digits over any script (ddddocr finds Chinese-looking
    marks in the noise around small text), then the higher confidence. A crop's sum does not win
    over a text with more digits than the sum has characters: the crop cut a code of digits
    (the same test as `_digits_left_out`, on the whole picture's reading)."""
    def rank(r: OcrReading) -> tuple[int, float]:
        return {"sum": 2, "text": 1}.get(r.kind, 0), r.confidence

    if framed.kind == "sum" and reading.kind == "text" and _more_digits(reading.text, framed.candidates[0].text):
        return reading
    return replace(framed, framed=True) if rank(framed) > rank(reading) else reading


Box = tuple[int, int, int, int]  # left, top, right, bottom, in image pixels

# Framing, decided on the training family only (docs/captcha-ocr.md, "Framing"): ink is a pixel
# this far (sum of RGB differences) from the border's median colour; the region keeps the rows
# and columns between the INK_QUANTILE and 1 - INK_QUANTILE of the ink, widened by
# FRAME_MARGIN of its height on each side; a crop this close to the whole image is no framing.
INK_DISTANCE = 90
INK_QUANTILE = 0.05
FRAME_MARGIN = 0.18
WHOLE_IMAGE = 0.8
FRAMING_SIDE = 1024  # crops are found on a copy at most this long (CAPTCHAs are smaller; a page may send 4096)


def framings(picture: Image.Image) -> list[Box]:
    """The crops `read_text` reads besides the whole image: `text_region`'s and `text_cluster`'s,
    each once, found on a copy no longer than FRAMING_SIDE and given in `picture`'s pixels."""
    scale = max(picture.size) / FRAMING_SIDE
    if scale > 1:
        picture = picture.resize((max(4, round(picture.width / scale)), max(4, round(picture.height / scale))),
                                 Image.Resampling.BOX)
    ink = ink_mask(picture)
    found = [box for box in (text_region(picture, ink), text_cluster(picture, ink)) if box is not None]
    if scale > 1:
        found = [(int(left * scale), int(top * scale), math.ceil(right * scale), math.ceil(bottom * scale))
                 for left, top, right, bottom in found]
    return list(dict.fromkeys(found))


def ink_mask(picture: Image.Image) -> np.ndarray:
    """H×W booleans: the pixels INK_DISTANCE or more from the border's median colour."""
    pixels = np.asarray(picture.convert("RGB"), dtype=np.int16)
    background = np.rint(np.median(border_pixels(pixels), axis=0)).astype(np.int16)
    return np.abs(pixels - background).sum(axis=2, dtype=np.int16) > INK_DISTANCE


def _no_framing(box: Box, ink: np.ndarray) -> bool:
    """Whether `box` is (nearly) the whole image, so that reading it is reading the image again."""
    height, width = ink.shape
    return (box[2] - box[0]) * (box[3] - box[1]) >= WHOLE_IMAGE * width * height


def text_region(picture: Image.Image, ink: np.ndarray | None = None) -> Box | None:
    """The box around most of the image's ink (`ink`: its `ink_mask`, when already made), or
    None when that is (nearly) the whole image or there is hardly any ink. Stray lines and dots
    across the image hold little of the ink, so the quantiles cut them off."""
    ink = ink_mask(picture) if ink is None else ink
    height, width = ink.shape
    if ink.sum() < 20:
        return None

    def span(profile: np.ndarray) -> tuple[int, int]:
        share = np.cumsum(profile) / profile.sum()
        return int(np.searchsorted(share, INK_QUANTILE)), int(np.searchsorted(share, 1 - INK_QUANTILE))

    top, bottom = span(ink.sum(axis=1))
    left, right = span(ink.sum(axis=0))
    margin = max(2, int(FRAME_MARGIN * (bottom - top + 1)))
    box = (max(0, left - margin), max(0, top - margin), min(width, right + 1 + margin), min(height, bottom + 1 + margin))
    return None if _no_framing(box, ink) else box


# The densest cluster of ink (docs/captcha-ocr.md, "Framing"), decided on our own small-text
# pictures only: the share of ink in a square window CLUSTER_WINDOW of the image's shorter side
# on a side; dense where it reaches CLUSTER_LEVEL of its peak. Two dense patches are on one line
# when their rows overlap by CLUSTER_SAME_LINE of the lower one's height and the gap between them
# is at most CLUSTER_GAP of the taller one's; the cluster is the densest patch holding the most
# ink with the patches on its line (followed from patch to patch, so sloping text is kept),
# widened by CLUSTER_MARGIN of its height on each side. At most CLUSTER_PATCHES patches, those
# holding the most ink, are looked at (a busy picture has thousands of small ones).
CLUSTER_WINDOW = 0.12
CLUSTER_LEVEL = 0.45
CLUSTER_SAME_LINE = 0.3
CLUSTER_GAP = 6.0
CLUSTER_MARGIN = 0.12
CLUSTER_PATCHES = 400


def text_cluster(picture: Image.Image, ink: np.ndarray | None = None) -> Box | None:
    """The box around the densest cluster of ink (`ink`: the image's `ink_mask`, when already
    made), or None when that is (nearly) the whole image or there is hardly any ink. Lines drawn
    across the picture are thin, so the density stays low along them and they do not stretch
    this box as they stretch `text_region`'s."""
    ink = (ink_mask(picture) if ink is None else ink).astype(np.float32)
    height, width = ink.shape
    if ink.sum() < 20:
        return None
    side = max(3, int(CLUSTER_WINDOW * min(height, width)) | 1)
    density = cv2.blur(ink, (side, side))
    count, labels, stats, _ = cv2.connectedComponentsWithStats((density >= CLUSTER_LEVEL * density.max()).astype(np.uint8), 8)
    mass = np.bincount(labels.ravel(), weights=ink.ravel(), minlength=count)[1:]
    keep = np.argsort(-mass, kind="stable")[:CLUSTER_PATCHES]  # the densest patch holding the most ink first
    x, y, w, h = (stats[1:, i][keep].astype(np.int64) for i in range(4))
    joined = np.zeros(len(keep), dtype=bool)
    joined[0] = True
    frontier = [0]
    while frontier:
        i = frontier.pop()
        overlap = np.minimum(y[i] + h[i], y + h) - np.maximum(y[i], y)
        gap = np.maximum(x - (x[i] + w[i]), x[i] - (x + w))
        near = ~joined & (overlap > CLUSTER_SAME_LINE * np.minimum(h[i], h)) & (gap <= CLUSTER_GAP * np.maximum(h[i], h))
        joined |= near
        frontier.extend(np.flatnonzero(near).tolist())
    left, top = int(x[joined].min()), int(y[joined].min())
    right, bottom = int((x + w)[joined].max()), int((y + h)[joined].max())
    margin = max(2, int(CLUSTER_MARGIN * (bottom - top)))
    box = (max(0, left - margin), max(0, top - margin), min(width, right + margin), min(height, bottom + margin))
    return None if _no_framing(box, ink) else box


def _read(picture: Image.Image, *, charset: str | None, length: int | None, arithmetic: bool | None,
          max_length: int | None) -> OcrReading:
    """Both readers on one framing of the image (see `read_text`)."""
    logp = np.log(_models.ocr_probabilities(picture) + 1e-12)
    classes = _models.charset()
    ours_logp: np.ndarray | None = None
    if arithmetic or (arithmetic is None and (charset is None or set(charset) <= DIGITS)):
        found = _arithmetic_value(logp, classes, forced=bool(arithmetic))
        if found is not None and not arithmetic and recogniser.available():
            ours_logp = np.log(recogniser.probabilities(picture) + 1e-12)
            if _digits_left_out(found[1], ours_logp):
                found = None
        if found is not None:
            value, reading = found
            p = math.exp(text_logprob(*fold(logp, classes, ARITHMETIC_CHARS), reading))
            return OcrReading(value, p, [Candidate("ddddocr", reading, 0.0, p)], kind="sum")
    grammar: Grammar | None = LengthGrammar(length) if length else (
        LengthGrammar(max_length, minimum=1) if max_length else None)
    allowed = _auto_charset(logp, classes) if charset is None else _with_both_cases(charset)
    dddd_text = decode(logp, classes, allowed=allowed, grammar=grammar)
    if allowed is None or not recogniser.available():  # Chinese text, or no weights: ddddocr alone
        p = math.exp(text_logprob(*fold(logp, classes, allowed or "".join(set(dddd_text))), dddd_text))
        return OcrReading(_apply_case(dddd_text, charset), p if dddd_text else 0.0,
                          [Candidate("ddddocr", dddd_text, 0.0, p)], kind="any" if allowed is None else "text")
    if ours_logp is None:
        ours_logp = np.log(recogniser.probabilities(picture) + 1e-12)
    ours_classes = recogniser.classes()
    ours_text = decode(ours_logp, ours_classes, allowed=allowed, grammar=grammar)
    best, vote, candidates = choose(ours_text, dddd_text, fold(ours_logp, ours_classes, allowed),
                                    fold(logp, classes, allowed))
    text = ours_text if best.lower() == ours_text.lower() else _recase(ours_logp, ours_classes, best)
    case_given = charset is not None and not any(c.swapcase() in charset for c in charset if c.isalpha())
    # A charset with both cases of its letters says nothing of case: the text takes one case as without one.
    case_free = charset is None or all(c.swapcase() in charset for c in charset if c.isalpha())
    text = consistent_case(uniform_case(text, ours_logp, ours_classes)) if case_free else _apply_case(text, charset)
    features = tuple(gate_features(text, candidates, CASE_SURE if case_given else
                                   case_margin(text, ours_logp, ours_classes)))
    # Reading nothing is not an answer, however sure both readers are that nothing is there.
    return OcrReading(text, vote_confidence(features, vote) if text else 0.0, candidates,
                      agreed=ours_text.lower() == dddd_text.lower(), features=features,
                      confidence_any_case=vote_confidence(features, vote, "any_case") if text else 0.0)


def _recase(logp: np.ndarray, classes: list[str], text: str) -> str:
    """`text` with each letter in the case the recogniser finds likelier there."""
    letters = "".join({*text.lower(), *text.upper()})
    read = decode(logp, classes, allowed=letters, grammar=FoldedText(text.lower()), beam=len(letters))
    return read if read.lower() == text.lower() else text


def _auto_charset(logp: np.ndarray, classes: list[str]) -> str | None:
    """Without a charset: Latin letters and digits, unless the text reads as mostly CJK (then
    anything). Stray marks read as "了" or ">" are thereby re-read as the likeliest letter."""
    free = decode(logp, classes, allowed=None)
    cjk = sum("\u3400" <= c <= "\u9fff" for c in free)
    return None if free and cjk * 2 >= len(free) else ASCII_ALNUM


def _digits_left_out(reading: str, ours_logp: np.ndarray) -> bool:
    """Whether a sum reading leaves digits on the picture unread: our recogniser reads more digits
    than the sum reading has characters, operator, "=" and "?" included (our reader knows no
    symbols and often reads them as digits, so only a count past all of them says anything). A
    code of digits ("884399") read as a short sum ("8-9") is the case: ddddocr's reading of an
    unfamiliar drawing can be so poor that a three-character sum passes the likelihood test,
    while the other reader sees six digits."""
    return _more_digits(decode(ours_logp, recogniser.classes(), allowed=ASCII_ALNUM, grammar=None), reading)


def _more_digits(text: str, sum_reading: str) -> bool:
    """Whether `text` holds more digits than `sum_reading` has characters."""
    return sum(c.isdigit() for c in text) > len(sum_reading)


def _arithmetic_value(logp: np.ndarray, classes: list[str], *, forced: bool) -> tuple[str, str] | None:
    """The sum's value when the image reads as one: its best reading as "a op b [=] [?]" is
    nearly as probable as its best reading overall (a likelihood-ratio test). (value, reading)."""
    free = float(np.where(_class_mask(classes, None)[None, :], logp, -1e9).max(axis=1).sum())
    masked = np.where(_class_mask(classes, ARITHMETIC_CHARS)[None, :], logp, -1e9)
    score, labels = _best_path(masked, classes, ArithmeticGrammar())
    reading = "".join(classes[i] for i in labels)
    if not forced and free - score > ARITHMETIC_MAX_GAP:
        return None
    value = evaluate(reading)
    if value is None and forced:
        raise SolverInputError(f"no arithmetic expression recognised (read {reading!r})")
    return None if value is None else (value, reading)


class Grammar(Protocol):
    """A tiny automaton over characters that constrains the decoded text."""

    start: int

    def step(self, state: int, char: str) -> int | None:
        """The state after reading `char`, or None when `char` is not allowed here."""

    def accepts(self, state: int) -> bool:
        """Whether a text ending in `state` is complete."""

    def cost(self, state: int) -> float:
        """A log-probability penalty for entering `state` (a prior over texts)."""


@dataclass(frozen=True)
class LengthGrammar:
    """Exactly `length` characters, or from `minimum` to `length` when a minimum is given."""

    length: int
    minimum: int | None = None
    start: int = 0

    def step(self, state: int, char: str) -> int | None:
        return state + 1 if state < self.length else None

    def accepts(self, state: int) -> bool:
        return (self.minimum if self.minimum is not None else self.length) <= state <= self.length

    def cost(self, state: int) -> float:
        return 0.0


@dataclass(frozen=True)
class FoldedText:
    """Exactly `text` (lower case), each letter in either case."""

    text: str
    start: int = 0

    def step(self, state: int, char: str) -> int | None:
        return state + 1 if state < len(self.text) and char.lower() == self.text[state] else None

    def accepts(self, state: int) -> bool:
        return state == len(self.text)

    def cost(self, state: int) -> float:
        return 0.0


class ArithmeticGrammar:
    """`d{1,3} op d{1,3} [= [?]]`, the operator a symbol or a Chinese word, "=" also "等于".

    Readers confuse "=" with "-" and "?" with a digit; after the second number those readings
    are taken as "=" and "?" (a sum on a CAPTCHA has one operator and one unknown).
    """

    start = 0
    _digits_max = 3
    _EQUALS, _DENG, _ASK, _ASK_DIGIT = 20, 21, 30, 31

    def step(self, state: int, char: str) -> int | None:
        group, count = divmod(state, 10)  # group: 0 first number, 1 second, 2 equals, 3 "?"
        after_second = group == 1 and count > 0
        if char.isdigit():
            if group in (0, 1) and count < self._digits_max:
                return state + 1
            return self._ASK_DIGIT if state == self._EQUALS else None
        if char in _OPERATORS and group == 0 and count > 0:
            return 10
        if char in "=-—" and after_second:
            return self._EQUALS
        if char == "等" and after_second:
            return self._DENG
        if char == "于" and state == self._DENG:
            return self._EQUALS
        if char in "?？" and (after_second or state == self._EQUALS):
            return self._ASK
        return None

    def accepts(self, state: int) -> bool:
        group, count = divmod(state, 10)
        return (group == 1 and count > 0) or state in (self._EQUALS, self._ASK, self._ASK_DIGIT)

    def cost(self, state: int) -> float:
        # Sums on CAPTCHAs use small numbers, and "?" is often misread as "7" or "2": each
        # extra digit of an operand must be clearly seen to be believed.
        group, count = divmod(state, 10)
        if group in (0, 1) and count > 1:
            return 3.0 * (count - 1)
        return 1.5 if state == self._ASK_DIGIT else 0.0


def decode(logp: np.ndarray, classes: list[str], *, allowed: str | None, grammar: Grammar | None = None,
           beam: int = 5) -> str:
    """CTC decode of T×C log-probabilities, restricted to `allowed` characters (None: all) and,
    when given, to texts the `grammar` accepts (most probable such path)."""
    masked = np.where(_class_mask(classes, allowed)[None, :], logp, -1e9)
    if grammar is None:
        out, prev = [], 0
        for idx in masked.argmax(axis=1):
            if idx != prev and idx != 0:
                out.append(classes[idx])
            prev = idx
        return "".join(out)
    return "".join(classes[i] for i in _best_path(masked, classes, grammar, beam)[1])


def _class_mask(classes: list[str], allowed: str | None) -> np.ndarray:
    if allowed is None:
        mask = np.array([c.strip() != "" for c in classes])
    else:
        wanted = set(allowed)
        mask = np.array([c in wanted for c in classes])
    mask[0] = True  # the CTC blank
    return mask


def _best_path(logp: np.ndarray, classes: list[str], grammar: Grammar, beam: int = 5) -> tuple[float, list[int]]:
    """Most probable CTC path whose collapsed labels the grammar accepts.

    Each step considers the blank and its `beam` best labels; the DP state is (grammar state,
    last symbol), so the search is exact over that candidate set. Falls back to the plain
    arg-max labels when no accepted path exists (e.g. an image too narrow for the length).
    """
    Path = tuple[float, tuple[int, ...]]
    states: dict[tuple[int, int], Path] = {(grammar.start, 0): (0.0, ())}
    for row in logp:
        cands = [0, *[int(i) for i in np.argsort(-row[1:])[:beam] + 1]]
        nxt: dict[tuple[int, int], Path] = {}
        for (gstate, last), (score, labels) in states.items():
            for sym in cands:
                if row[sym] < -1e8:
                    continue
                if sym == 0 or sym == last:
                    key, val = (gstate, sym), (score + float(row[sym]), labels)
                else:
                    moved = grammar.step(gstate, classes[sym])
                    if moved is None:
                        continue
                    key = (moved, sym)
                    val = (score + float(row[sym]) - grammar.cost(moved), labels + (sym,))
                if key not in nxt or val[0] > nxt[key][0]:
                    nxt[key] = val
        states = nxt
    finals = [v for (gstate, _), v in states.items() if grammar.accepts(gstate)]
    if not finals:
        best = logp.argmax(axis=1)
        return -np.inf, [int(i) for j, i in enumerate(best) if i != 0 and (j == 0 or i != best[j - 1])]
    score, labels = max(finals)
    return score, list(labels)


def _with_both_cases(charset: str) -> str:
    return "".join(sorted(set(charset) | {c.swapcase() for c in charset if c.isalpha()}))


def _apply_case(text: str, charset: str | None) -> str:
    if charset is None:
        return text
    allowed = set(charset)
    return "".join(c if c in allowed else c.swapcase() for c in text)


def evaluate(text: str) -> str | None:
    """Value of "a op b" in a reading that `ArithmeticGrammar` accepts, or None.

    Whatever follows the second number ("=", "=?", a misread "-7") is ignored. A whole result
    comes back as an integer ("12"), anything else as a short decimal.
    """
    match = re.match(r"^(\d{1,4})([+\-—xX×*÷/加减乘除])(\d{1,4})(?:[=\-—]|等于)?[?？\d]?$", text)
    if not match:
        return None
    a, b, op = Fraction(int(match.group(1))), Fraction(int(match.group(3))), _OPERATORS[match.group(2)]
    if op == "/" and b == 0:
        return None
    total = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[op]
    return str(total.numerator) if total.denominator == 1 else f"{float(total):.4g}"
