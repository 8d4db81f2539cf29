"""The rule that turns a calibration table into a local route's thresholds, shared by the text
gate (scripts/ocr_train/calibrate.py) and the lone-picture rotation gate
(scripts/calibrate_rotation.py).

The local route should pass at least ROUTE_SUCCESS of the challenges it answers within its tries
(`CaptchaPolicy.max_attempts`, each on a fresh challenge after a wrong answer), so for N tries
the lowest candidate threshold whose kept answers are right at least 1 - (1 - ROUTE_SUCCESS)^(1/N)
of the time, keeping at least MIN_KEPT of the answers; where none does, None: the route abstains
on every challenge of that kind with that many tries.
"""

from __future__ import annotations

CANDIDATES = tuple(round(0.05 * i, 2) for i in range(2, 20))  # 0.10 ... 0.95
ROUTE_SUCCESS = 0.98
MAX_TRIES = 10  # CaptchaPolicy.max_attempts' bound
MIN_KEPT = 0.1


def precision_for(tries: int) -> float:
    """Kept answers must be right this often for the route to pass 98% within `tries` tries."""
    return 1 - (1 - ROUTE_SUCCESS) ** (1 / tries)


def choose_threshold(by_threshold: dict[str, dict], count: int, tries: int) -> float | None:
    """The rule for `tries` tries over `by_threshold` (candidate -> {"kept", "precision"}, of
    `count` answers in all), or None."""
    for t in CANDIDATES:
        row = by_threshold[str(t)]
        if row["precision"] is not None and row["precision"] >= precision_for(tries) and row["kept"] >= MIN_KEPT * count:
            return t
    return None
