"""The ports the worker bridge (`runs.execution`) needs from other apps, registered by those apps
at start-up, so `runs` imports none of them.

`ReviewPort` is the review queue as a run waiting on a person sees it. The `reviews` app registers
its implementation in `ReviewsConfig.ready()`; every method is synchronous and called from the
recorder's database thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True)
class ReviewState:
    """A review as the waiting run reads it. `decision`: approve | reject | edit | expired |
    cancelled | answered, or "" while it is pending."""

    id: int
    decision: str
    expires_at: datetime
    comment: str = ""
    decided_by: str = ""
    edited_action: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    fingerprint: str = ""


class ReviewPort(Protocol):
    def key(self, review_id: int) -> str:
        """The Redis list a waiting worker BLPOPs on; a decision pushes to it."""
        ...

    def create_captcha(self, *, run_id: int, title: str, detail: dict[str, Any], screenshot: bytes | None,
                       ttl_s: float) -> ReviewState: ...

    def create_risky(self, *, run_id: int, title: str, detail: dict[str, Any], screenshot: bytes | None,
                     ttl_s: float, action: dict[str, Any], verdict: dict[str, Any], fingerprint: str) -> ReviewState: ...

    def get(self, review_id: int) -> ReviewState: ...

    def expire(self, review_id: int) -> bool: ...

    def cancel(self, review_id: int) -> bool: ...

    def note(self, review_id: int, facts: dict[str, Any]) -> None: ...


_review_port: ReviewPort | None = None


def review_port_register(port: ReviewPort) -> None:
    global _review_port
    _review_port = port


def review_port() -> ReviewPort:
    if _review_port is None:
        raise RuntimeError("no review port registered: is venus_rpa.reviews in INSTALLED_APPS?")
    return _review_port
