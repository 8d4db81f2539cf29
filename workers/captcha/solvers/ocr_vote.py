"""Two readers, one answer: our recogniser and ddddocr vote on a text CAPTCHA.

Each reader gives per-step CTC probabilities. Both are decoded under the same constraints
(charset, exact or maximum length). Their candidate texts are then scored by BOTH readers
with the exact CTC probability of the text (forward algorithm, letters folded to one case,
since ddddocr hardly knows case), and the candidate with the best weighted log-probability
wins: `log P_ours + DDDD_WEIGHT * log P_dddd`. Letter case then comes from our recogniser
alone (constrained to the chosen text), made consistent when the rest of the text is clearly
one case.

The answer's confidence is the gate's (`Gate`, fitted by scripts/ocr_train/calibrate.py and
committed beside the weights as `ocr_gate.json`): the probability that the answer is exactly
right, a logistic function of what both readers say of it (each one's probability of the
answer, how much less likely each finds it than its own reading, how sure our recogniser is of
its letter case, its length). It is fitted on the training family AND on the family drawn in fonts no recipe trains
on, so it knows that a confident ddddocr is usually right where our recogniser has never seen
the type. Without the gate file (or with one fitted for other weights) the confidence is the
vote's weighted geometric mean of the two probabilities, as before the gate.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from workers.captcha.solvers import recogniser

log = logging.getLogger(__name__)

DDDD_WEIGHT = 0.5  # tuned on the training family's validation split (docs/captcha-ocr.md)
# One case for the whole text unless mixed case is clearly likelier: most CAPTCHA texts are all
# capitals or all small letters, and a reader's case slips are one letter at a time. Nats of
# log-probability (tuned on the training family only: scripts/ocr_train/tune_vote.py).
UNIFORM_CASE_NATS = 2.0
# Letters whose capital and small forms differ only in size: their case follows the others'.
SAME_SHAPE = set("ckopsuvwxz")
GATE_PATH = recogniser.MODEL_DIR / "ocr_gate.json"
GATE_FEATURES = ("log_p_ours", "log_p_dddd", "ours_regret", "dddd_regret", "case_margin", "length")
LOG_FLOOR = -25.0  # log-probabilities below this say only "not this text"
CASE_SURE = 10.0  # nats: the case margin of a text whose case is not in doubt (no letters, or given by the page)


@dataclass(frozen=True)
class Candidate:
    """One reader's text and the probabilities both readers give it (case-folded)."""

    reader: str
    text: str
    p_ours: float
    p_dddd: float


@dataclass(frozen=True)
class OcrReading:
    """The answer, a confidence in [0, 1], and what each reader proposed."""

    text: str
    confidence: float
    candidates: list[Candidate] = field(default_factory=list)
    agreed: bool = True
    framed: bool = False  # read from the region where the text is, not the whole image (ocr.text_region)
    kind: str = "text"  # "text" (Latin letters and digits), "sum" (the value of arithmetic) or "any" (any script)
    features: tuple[float, ...] = ()  # what the gate read (GATE_FEATURES), for the trace and calibration
    confidence_any_case: float | None = None  # the probability that it is right ignoring case (None: as `confidence`)

    @property
    def any_case(self) -> float:
        """The confidence for a site that ignores letter case."""
        return self.confidence if self.confidence_any_case is None else self.confidence_any_case

    def record(self) -> dict:
        """JSON-ready summary for the run's trace."""
        return {"confidence": round(self.confidence, 3), "confidence_any_case": round(self.any_case, 3),
                "agreed": self.agreed, "framed": self.framed, "candidates": {c.reader: c.text for c in self.candidates}}


def fold(logp: np.ndarray, classes: list[str], allowed: str) -> tuple[np.ndarray, list[str]]:
    """Merge the columns of both cases of each letter (and renormalise over `allowed` plus the
    blank): T×K log-probabilities over the folded characters, index 0 the blank."""
    folded = sorted({c.lower() for c in allowed})
    index = {c: i + 1 for i, c in enumerate(folded)}
    probs = np.exp(logp)
    out = np.zeros((logp.shape[0], len(folded) + 1))
    out[:, 0] = probs[:, 0]
    for i, c in enumerate(classes):
        if i and c and c in allowed:
            out[:, index[c.lower()]] += probs[:, i]
    out /= out.sum(axis=1, keepdims=True) + 1e-30
    return np.log(out + 1e-30), ["", *folded]


def ctc_logprob(logp: np.ndarray, labels: list[int]) -> float:
    """log P(labels | image) under CTC: the sum over all alignments (forward algorithm)."""
    if not labels:
        return float(logp[:, 0].sum())
    ext = [0]
    for label in labels:
        ext += [label, 0]
    s = len(ext)
    ext_arr = np.array(ext)
    # A skip over a blank is allowed when it separates two different labels.
    skip = np.zeros(s, dtype=bool)
    skip[3::2] = ext_arr[3::2] != ext_arr[1:-2:2]
    alpha = np.full(s, -np.inf)
    alpha[0], alpha[1] = logp[0, 0], logp[0, ext[1]]
    for t in range(1, logp.shape[0]):
        prev1 = np.concatenate(([-np.inf], alpha[:-1]))
        prev2 = np.where(skip, np.concatenate(([-np.inf, -np.inf], alpha[:-2])), -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + logp[t, ext_arr]
    return float(np.logaddexp(alpha[-1], alpha[-2]))


def text_logprob(folded_logp: np.ndarray, folded_classes: list[str], text: str) -> float:
    """log P(text) for a folded reader; -inf when a character is not among its classes."""
    index = {c: i for i, c in enumerate(folded_classes) if c}
    try:
        labels = [index[c] for c in text.lower()]
    except KeyError:
        return -math.inf
    if len(labels) * 2 - 1 > folded_logp.shape[0]:
        return -math.inf
    return ctc_logprob(folded_logp, labels)


def choose(ours_text: str, dddd_text: str, ours: tuple[np.ndarray, list[str]],
           dddd: tuple[np.ndarray, list[str]], weight: float = DDDD_WEIGHT) -> tuple[str, float, list[Candidate]]:
    """The winning folded text, its confidence and the scored candidates (see the module doc)."""
    candidates = []
    for reader, text in (("recogniser", ours_text), ("ddddocr", dddd_text)):
        lo, ld = text_logprob(*ours, text), text_logprob(*dddd, text)
        candidates.append((lo + weight * ld, Candidate(reader, text, math.exp(lo), math.exp(ld))))
    best_score, best = max(candidates, key=lambda sc: sc[0])  # ties: the recogniser (listed first)
    confidence = math.exp(best_score / (1 + weight)) if best_score > -math.inf else 0.0
    return best.text, min(1.0, confidence), [c for _, c in candidates]


def uniform_case(text: str, logp: np.ndarray, classes: list[str], nats: float = UNIFORM_CASE_NATS) -> str:
    """`text` in one case (all capitals or all small letters) when the recogniser finds that
    reading at most `nats` less likely than `text` as it is (CTC probabilities, `logp` over
    `classes` in both cases); otherwise `text`. Digits are left alone."""
    if not any(c.isalpha() for c in text) or nats <= 0:
        return text
    index = {c: i for i, c in enumerate(classes) if c}
    if any(c not in index or c.swapcase() not in index for c in text if c.isalpha()):
        return text
    mixed = ctc_logprob(logp, [index[c] for c in text])
    best, best_score = text, -math.inf
    for cased in (text.upper(), text.lower()):
        score = ctc_logprob(logp, [index[c] for c in cased])
        if score > best_score:
            best, best_score = cased, score
    return best if best == text or best_score >= mixed - nats else text


def consistent_case(text: str) -> str:
    """Give same-shape letters (c, o, s, ...) the case the other letters clearly share."""
    decided = [c for c in text if c.isalpha() and c.lower() not in SAME_SHAPE]
    if not decided:
        return text
    upper = sum(c.isupper() for c in decided)
    if upper == len(decided):
        return "".join(c.upper() if c.lower() in SAME_SHAPE else c for c in text)
    if upper == 0:
        return "".join(c.lower() if c.lower() in SAME_SHAPE else c for c in text)
    return text


@dataclass(frozen=True)
class Gate:
    """P(answer exactly right) = logistic(intercept + coef · features) (see the module doc)."""

    intercept: float
    coef: tuple[float, ...]
    model_sha256: str = ""

    def probability(self, features: Sequence[float]) -> float:
        z = self.intercept + sum(c * x for c, x in zip(self.coef, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def gate_features(text: str, candidates: Sequence[Candidate], case_margin: float = CASE_SURE) -> list[float]:
    """`GATE_FEATURES` of the answer `text` from the scored candidates and its case margin."""
    def lp(p: float) -> float:
        return max(LOG_FLOOR, math.log(p)) if p > 0 else LOG_FLOOR

    chosen = next((c for c in candidates if c.text.lower() == text.lower()), None)
    if chosen is None:
        return [LOG_FLOOR, LOG_FLOOR, LOG_FLOOR, LOG_FLOOR, case_margin, float(len(text))]
    own = {c.reader: c for c in candidates}
    ours, dddd = own.get("recogniser", chosen), own.get("ddddocr", chosen)
    return [lp(chosen.p_ours), lp(chosen.p_dddd), lp(chosen.p_ours) - lp(ours.p_ours),
            lp(chosen.p_dddd) - lp(dddd.p_dddd), case_margin, float(len(text))]


def case_margin(text: str, logp: np.ndarray, classes: list[str]) -> float:
    """How sure our recogniser is of the answer's letter case: the least, over its letters, of
    log P(text) - log P(text with that letter in the other case), in nats, within ±CASE_SURE.
    Letters whose two cases look alike (c/C, o/O...) do not count when the other letters are all
    of one case: theirs follows (`consistent_case`). In a mixed-case text they count, and are
    usually what makes it unsure. CASE_SURE when the text has no letters."""
    index = {c: i for i, c in enumerate(classes) if c}
    decided = [c for c in text if c.isalpha() and c.lower() not in SAME_SHAPE]
    one_case = bool(decided) and (all(c.isupper() for c in decided) or all(c.islower() for c in decided))
    letters = [i for i, c in enumerate(text) if c.isalpha() and not (one_case and c.lower() in SAME_SHAPE)]
    if not letters or any(c not in index or c.swapcase() not in index for c in text if c.isalpha()):
        return CASE_SURE
    base = ctc_logprob(logp, [index[c] for c in text])
    worst = CASE_SURE
    for i in letters:
        flipped = text[:i] + text[i].swapcase() + text[i + 1:]
        worst = min(worst, base - ctc_logprob(logp, [index[c] for c in flipped]))
    return max(-CASE_SURE, worst)


TARGETS = ("exact", "any_case")  # what a gate predicts: the answer right as typed, or right ignoring case


@dataclass(frozen=True)
class CommittedGate:
    """The committed gate file: one `Gate` per target and, per target and number of tries
    (`CaptchaPolicy.max_attempts`), the threshold under which the local route abstains (None:
    no threshold keeps the route's answers right often enough, so it always abstains)."""

    gates: dict[str, Gate]
    thresholds: dict[str, dict[int, float | None]]

    def threshold(self, tries: int, target: str = "exact") -> float | None:
        table = self.thresholds[target]
        return table[min(max(tries, min(table)), max(table))]


@functools.cache
def weights_sha256() -> str:
    """The recogniser weights' hash (what a gate file is fitted for), computed once per process."""
    return hashlib.sha256(recogniser.MODEL_PATH.read_bytes()).hexdigest()


@functools.cache
def committed() -> CommittedGate | None:
    """The committed gate, or None (no file, no weights, or fitted for other weights/features)."""
    if not GATE_PATH.is_file() or not recogniser.available():
        return None
    spec = json.loads(GATE_PATH.read_text())
    if spec.get("features") != list(GATE_FEATURES) or spec.get("model_sha256") != weights_sha256() or \
            set(spec.get("gates", {})) != set(TARGETS):
        log.warning("%s was fitted for other weights or features: OCR confidence falls back to the vote's "
                    "geometric mean (python -m scripts.ocr_train.calibrate fits it again)", GATE_PATH.name)
        return None
    gates = {t: Gate(float(g["intercept"]), tuple(float(c) for c in g["coef"]), spec["model_sha256"])
             for t, g in spec["gates"].items()}
    thresholds = {t: {int(n): (None if v is None else float(v)) for n, v in table.items()}
                  for t, table in spec["thresholds"].items()}
    return CommittedGate(gates, thresholds)


_override: list[dict[str, Gate] | None] = []


def gate(target: str = "exact") -> Gate | None:
    """The gate in use for `target`: the committed one, unless `use_gate` set others (calibration, tests)."""
    if _override:
        return (_override[-1] or {}).get(target)
    found = committed()
    return found.gates[target] if found is not None else None


def use_gate(value: Gate | None, any_case: Gate | None = None) -> None:
    """Use `value` (and `any_case` for the any-case target; None: the vote's geometric mean)
    instead of the committed gates from now on."""
    _override[:] = [None if value is None else {"exact": value, **({"any_case": any_case} if any_case else {})}]


def use_committed_gate() -> None:
    """Undo `use_gate`."""
    _override.clear()


def confidence(features: Sequence[float], vote: float, target: str = "exact") -> float:
    """The answer's confidence for `target`: the gate's probability, or `vote` (the geometric
    mean, which ignores case) without one."""
    current = gate(target)
    return current.probability(features) if current is not None else vote
