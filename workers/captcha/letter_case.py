"""Whether a site's text CAPTCHA ignores letter case, learned from the site's own verdicts.

An automation whose CAPTCHA policy leaves `letter_case` at "unknown", on a page that does not
say, used to assume that case matters: a reading whose letters are sure but whose case is not
(x/X, a font whose capitals are small letters drawn large) was handed to the model or a person on
every run, even on a site that accepts any case. Nobody can tell from the picture which a site
does; each answer it accepts or refuses says a little. So, per automation and site (host), the
route keeps a belief and updates it with Bayes' rule after each local answer whose verdict it
sees (docs/captcha.md, "Letter case learned from the site"):

- the hypotheses: case ignored or not, times the reader's skill on this site (`SKILL`: an offset
  on the gate's log-odds that the letters are right, normal prior; the gate is fitted on our own
  data, and one site's drawing may be read better or worse). The site accepts an answer with
  probability L (the letters right) where case is ignored, L * p_exact / p_any where it matters
  (`p_exact`, `p_any`: the exact and any-case gates' probabilities). Answers whose case is sure
  (p_exact = p_any) say nothing of case; accepted answers whose case was a coin toss say much;
  refusals are partly explained by a lower skill, so misread letters do not teach "case matters"
  alone.
- the answer's confidence is the probability that the site accepts it, averaged over the belief,
  against the threshold between the exact and any-case gates' (each fitted by the same rule,
  scripts/ocr_train/calibrate.py) by the probability that case is ignored: with that near 0, the
  exact gate as before; near 1, the any-case gate, as if the automation said "ignored".
- the prior: case ignored with probability `PRIOR_IGNORED` (0.1), so a site nobody has seen is
  treated nearly as before the learning.

What a hostile page on an allowed domain can do: accept or refuse answers to move the belief of
its own host for that automation (no hypothesis ever falls more than `BOUND_NATS` behind, so it
is unlearned in a few verdicts); the effect is that the solver types, or hands on, a CAPTCHA text
there. The automation's author can pin `letter_case`, which turns the learning off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

PRIOR_IGNORED = 0.1  # a site nobody has seen: case assumed to matter, nearly as before the learning
LEARNED = 0.9  # a site believed at least this much to ignore case is taken to (where the exact gate has no threshold)
# The site's own offset on the gate's log-odds that the letters are right (the gate is fitted on
# our data; on one site the reader may be better or worse): a grid, with a normal prior.
SKILL = np.arange(-3.0, 2.01, 0.5)
SKILL_PRIOR_SD = 0.75
BOUND_NATS = 8.0  # one case hypothesis is at most this far ahead of the other (3,000 to 1): a site is unlearned in a few verdicts
SKILL_FLOOR = 60.0  # nats: a skill cell's log-weight is kept above -SKILL_FLOOR (finite; e^-60 is nothing)
NEVER = 1.01  # a threshold above any confidence (workers/captcha/local.py:NEVER): that gate never answers
P_FLOOR = 0.01  # the gates' probabilities are kept within [P_FLOOR, 1 - P_FLOOR]


def prior() -> np.ndarray:
    """Log-weights over (case ignored: 0 no, 1 yes) x SKILL, before any verdict."""
    case = np.log([1 - PRIOR_IGNORED, PRIOR_IGNORED])[:, None]
    return case - 0.5 * (SKILL / SKILL_PRIOR_SD)[None, :] ** 2


def bounded(weights: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """Log-weights shifted so the likeliest is 0 (a stored value of another shape: the prior).
    Only the case is bounded: the likelier case hypothesis is at most BOUND_NATS ahead of the
    other (summed over skill), so a site that changes is unlearned in a few verdicts; the skill
    cells are only kept finite (SKILL_FLOOR), so evidence about skill never moves the case."""
    w = _grid(weights)
    if w is None:
        w = prior()
    w = w - w.max()
    case = np.logaddexp.reduce(w, axis=1)
    behind = case.max() - case.min() - BOUND_NATS
    if behind > 0:
        w[int(case.argmin())] += behind
    w = w - w.max()
    return np.maximum(w, -SKILL_FLOOR)


def bounded_loglik(values: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """A verdict's log-likelihoods as the store receives them: of the grid's shape, each within
    [-SKILL_FLOOR, 0] (a log-probability), else nothing learned (zeros)."""
    v = _grid(values)
    return np.zeros((2, len(SKILL))) if v is None else np.clip(v, -SKILL_FLOOR, 0.0)


def _grid(values) -> np.ndarray | None:
    """`values` as finite numbers of the grid's shape (2 x SKILL), or None."""
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None
    return v if v.shape == (2, len(SKILL)) and np.isfinite(v).all() else None


def _posterior(weights: np.ndarray) -> np.ndarray:
    """The belief's probabilities over the grid (summing to 1)."""
    w = np.exp(bounded(weights))
    return w / w.sum()


def _clip(p: float) -> float:
    return max(P_FLOOR, min(1 - P_FLOOR, p))


def _accept(p_exact: float, p_any: float) -> np.ndarray:
    """P(the site accepts the answer) per hypothesis: the letters right with the gate's any-case
    probability moved by the site's skill; where case matters, also the case, as often as the gates
    say it is right when the letters are (p_exact / p_any)."""
    p_any = _clip(p_any)
    p_exact = _clip(min(p_exact, p_any))
    letters = 1 / (1 + np.exp(-(math.log(p_any / (1 - p_any)) + SKILL)))
    return np.stack([letters * (p_exact / p_any), letters])


def ignored(weights: np.ndarray) -> float:
    """The probability that the site ignores case."""
    return float(_posterior(weights)[1].sum())


def gated(p_exact: float, p_any: float, weights: np.ndarray, t_exact: float, t_any: float) -> tuple[float, float]:
    """(confidence, threshold) of an answer on a site with these log-weights: the probability that
    the site accepts it, and the threshold between the exact and any-case gates' by the belief
    that case is ignored. Where a gate has no threshold for the tries (`NEVER`), none is made up:
    without an exact one the route answers only once the site is learned to ignore case
    (`LEARNED`), with the any-case one; without an any-case one, never."""
    w = _posterior(weights)
    q = float(w[1].sum())
    confidence = float((w * _accept(p_exact, p_any)).sum())
    if t_any >= NEVER:
        return confidence, NEVER
    if t_exact >= NEVER:
        return confidence, t_any if q >= LEARNED else NEVER
    return confidence, q * t_any + (1 - q) * t_exact


def evidence(p_exact: float, p_any: float, accepted: bool) -> np.ndarray:
    """Log-likelihoods of the site's verdict on an answer, per hypothesis (added to the weights)."""
    p = _accept(p_exact, p_any)
    return np.log(p if accepted else 1 - p)
