"""In-memory store of live CAPTCHA challenges: thread-safe, expiring and single-use."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from practice.captcha.generators.base import Generated

TTL_SECONDS = 600.0
MAX_CHALLENGES = 5000


@dataclass(frozen=True)
class Challenge:
    """One issued challenge; ``solution`` is server-only, ``view`` is safe to render."""

    id: str
    kind: str
    solution: dict[str, Any]
    images: dict[str, bytes]
    view: dict[str, Any]
    created: float = field(default=0.0)
    variant: str = ""  # the generator variant drawn ("" the ordinary one), kept by a refresh
    lang: str = "en"  # the widget's wording, kept by a refresh


class ChallengeStore:
    """Keeps challenges for ``ttl`` seconds; ``take`` removes one so it cannot be replayed."""

    def __init__(
        self,
        ttl: float = TTL_SECONDS,
        max_items: int = MAX_CHALLENGES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._max = max_items
        self._clock = clock
        self._lock = threading.Lock()
        self._items: dict[str, Challenge] = {}  # insertion order == creation order

    def add(self, kind: str, generated: Generated, *, variant: str = "", lang: str = "en") -> Challenge:
        """Store a freshly generated challenge under a random, unguessable id."""
        now = self._clock()
        challenge = Challenge(
            id=secrets.token_urlsafe(18),
            kind=kind,
            solution=generated.solution,
            images=generated.images,
            view=generated.view,
            created=now,
            variant=variant,
            lang=lang,
        )
        with self._lock:
            self._prune_locked(now)
            while len(self._items) >= self._max:
                self._items.pop(next(iter(self._items)))
            self._items[challenge.id] = challenge
        return challenge

    def get(self, challenge_id: str) -> Challenge | None:
        """Return a live challenge without consuming it (images, checkbox token, test hook)."""
        with self._lock:
            self._prune_locked(self._clock())
            return self._items.get(challenge_id)

    def take(self, challenge_id: str) -> Challenge | None:
        """Remove and return a live challenge: every verification attempt consumes it."""
        with self._lock:
            self._prune_locked(self._clock())
            return self._items.pop(challenge_id, None)

    def latest(self, kind: str) -> Challenge | None:
        """The most recently issued live challenge of a kind (test hook only)."""
        with self._lock:
            self._prune_locked(self._clock())
            return next((c for c in reversed(self._items.values()) if c.kind == kind), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def _prune_locked(self, now: float) -> None:
        """Drop expired challenges (the oldest come first, so stop at the first live one)."""
        while self._items:
            oldest = next(iter(self._items.values()))
            if now - oldest.created < self._ttl:
                break
            del self._items[oldest.id]


challenges = ChallengeStore()
