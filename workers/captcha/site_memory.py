"""What one run knows of the sites whose text CAPTCHAs it answers, learned from their verdicts:
the belief that a site ignores letter case (workers/captcha/letter_case.py) and the format of its
answers (workers/captcha/answer_format.py), per host.

The gate (workers/captcha/gate.py) reads them before a local answer, says which answer is
waiting for a verdict (`expect`), and settles it when the verdict is seen (`settle`), at once or
on the page's next look. A challenge's verdict counts once. Where the run has a store (the Django
side: venus_rpa.automations.letter_case, per automation), each site is read from it once and
each verdict added to it; a store that fails costs the learning, never the run: what is known
in the run is kept, the rest starts from nothing learned.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from workers.captcha import answer_format, letter_case

log = logging.getLogger(__name__)

# The store: `load(host)` -> {"weights": log-weights or None, "format": counts or None} or None
# (never seen), and `add(host, loglik, accepted, answer, applied, kind)`, which must add
# atomically (two runs of one automation may answer at once): `loglik` the letter-case evidence
# (None: the answer's case was not learned), `answer`, `applied` (read under the learned format)
# and `kind` (read as "text" or "sum"; None: a person's) for answer_format.learn.
Load = Callable[[str], Awaitable[dict | None]]
Add = Callable[[str, list | None, bool, str, bool, str | None], Awaitable[None]]


@dataclass
class Pending:
    """An answer typed on `host` whose verdict comes with the page's next look (the form's submit);
    `challenge`: the challenge it answered (gate.fingerprint); `case`: whether its letter case was
    learned (the verdict then moves the letter-case belief); `applied`: read under the learned
    format; `kind`: how the local route read it ("text", "sum"; None: a person's answer); `page`:
    the address of the page it was typed on."""

    host: str
    p_exact: float
    p_any: float
    challenge: str = ""
    answer: str = ""
    case: bool = True
    applied: bool = False
    kind: str | None = "text"
    page: str = ""


class SiteMemory:
    """One run's view of what sites taught: read once per host, updated after each verdict."""

    def __init__(self, load: Load | None = None, add: Add | None = None) -> None:
        self._load, self._add = load, add
        self._weights: dict[str, np.ndarray] = {}
        self._formats: dict[str, dict[str, Any]] = {}
        self._counted: set[str] = set()
        self.pending: Pending | None = None

    def fork(self) -> SiteMemory:
        """The same store for another lane of the run (its own page, so its own pending answer)."""
        return SiteMemory(self._load, self._add)

    async def _read(self, host: str) -> None:
        stored: dict | None = None
        if self._load is not None:
            try:
                stored = await self._load(host)
            except Exception:  # noqa: BLE001 -- the store's failure must not fail the run
                log.warning("what %s taught could not be read: nothing learned is used", host, exc_info=True)
        stored = stored if isinstance(stored, dict) else {}
        weights = stored.get("weights")
        try:
            self._weights[host] = letter_case.prior() if weights is None else letter_case.bounded(weights)
            self._formats[host] = answer_format.bounded(stored.get("format"))
        except Exception:  # noqa: BLE001 -- a stored value nobody foresaw is nothing learned, never a failed run
            log.warning("what %s taught is unreadable: nothing learned is used", host, exc_info=True)
            self._weights[host], self._formats[host] = letter_case.prior(), answer_format.empty()

    async def weights(self, host: str) -> np.ndarray:
        """The belief that `host` ignores letter case (log-weights, letter_case.py)."""
        if host not in self._weights:
            await self._read(host)
        return self._weights[host]

    async def format(self, host: str) -> dict[str, Any]:
        """The counts of `host`'s accepted answers (answer_format.py)."""
        if host not in self._formats:
            await self._read(host)
        return self._formats[host]

    def expect(self, host: str, p_exact: float, p_any: float, challenge: str = "", *, answer: str = "",
               case: bool = True, applied: bool = False, kind: str | None = "text", page: str = "") -> None:
        """An answer to `challenge` was typed; its verdict is not known yet (a challenge already
        counted is not counted again: the same answer typed twice says nothing new)."""
        self.pending = None if challenge and challenge in self._counted else \
            Pending(host, p_exact, p_any, challenge, answer, case, applied, kind, page)

    def drop(self) -> None:
        """The verdict will not be seen (a new challenge came on the same page without one)."""
        self.pending = None

    async def settle(self, accepted: bool) -> float | None:
        """The pending answer's verdict: update (and store) what its site taught. Returns the new
        probability that the site ignores case (None: nothing was pending, or its case was not
        learned)."""
        pending, self.pending = self.pending, None
        if pending is None:
            return None
        if pending.challenge:
            self._counted.add(pending.challenge)
        host = pending.host
        added = letter_case.evidence(pending.p_exact, pending.p_any, accepted) if pending.case else None
        if added is not None:
            self._weights[host] = letter_case.bounded(await self.weights(host) + added)
        self._formats[host] = answer_format.learn(await self.format(host), pending.answer, accepted, pending.applied,
                                                  pending.kind)
        if self._add is not None:
            try:
                await self._add(host, None if added is None else added.round(6).tolist(), accepted, pending.answer,
                                pending.applied, pending.kind)
            except Exception:  # noqa: BLE001 -- the store's failure must not fail the run
                log.warning("a CAPTCHA verdict on %s was not stored", host, exc_info=True)
        return None if added is None else letter_case.ignored(self._weights[host])
