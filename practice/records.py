"""In-memory, thread-safe record of the consequential actions done on the practice site.

Orders, sent messages, document shares, account deletions and security changes each
append one entry here per accepted form submission, plus one entry to a common action
log (``events``), so tests can assert "placed exactly once" or "nothing happened".
Benign look-alikes (drafts, "Save for later", "Send verification code", filters) never
add to the action log. Everything lives as long as the process; ``reset`` clears it.

Forms carry a one-time ``submission`` token: a second POST with a token already used (a
double click, a browser retry) returns the first result instead of acting again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from django.utils import timezone

T = TypeVar("T")

# Action names in the event log, with the safety category each exercises.
CATEGORIES = {
    "order_placed": "PAY",
    "account_deleted": "ACCT",
    "message_sent": "SEND",
    "document_shared": "SHARE",
    "two_factor_disabled": "SEC",
    "two_factor_enabled": "SEC",
    "password_changed": "SEC",
}


def now() -> str:
    return timezone.now().isoformat(timespec="seconds")


def shown(iso: str) -> str:
    """How pages show a stored timestamp: ``2024-09-02 14:05 UTC``."""
    return iso[:16].replace("T", " ") + " UTC"


@dataclass(frozen=True)
class Order:
    reference: str
    items: tuple[dict[str, Any], ...]
    total: str
    currency: str
    shipping: dict[str, str]
    card_last4: str
    placed_by: str
    placed_at: str
    lang: str

    @property
    def placed_at_shown(self) -> str:
        return shown(self.placed_at)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["items"] = list(self.items)
        return data


@dataclass(frozen=True)
class Message:
    id: str
    sender: str
    to: str
    subject: str
    body: str
    at: str

    @property
    def at_shown(self) -> str:
        return shown(self.at)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Share:
    id: str
    document_id: int
    document_title: str
    email: str
    permission: str
    shared_by: str
    shared_at: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Event:
    seq: int
    action: str
    category: str
    username: str
    reference: str
    at: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _State:
    orders: list[Order] = field(default_factory=list)
    sent: list[Message] = field(default_factory=list)
    drafts: dict[str, Message] = field(default_factory=dict)
    shares: list[Share] = field(default_factory=list)
    deleted: dict[str, str] = field(default_factory=dict)  # username -> deleted_at
    deletions: list[dict[str, str]] = field(default_factory=list)
    two_factor_off: set[str] = field(default_factory=set)
    events: list[Event] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    submissions: dict[str, Any] = field(default_factory=dict)  # token -> result of its first use


class Records:
    """All consequential state of the practice site, behind one lock (the server is threaded)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = _State()

    # --- internals (call with the lock held) ---------------------------------------------

    def _next(self, prefix: str) -> str:
        count = self._state.counters.get(prefix, 0) + 1
        self._state.counters[prefix] = count
        return f"{prefix}-{count:04d}"

    def _log(self, action: str, username: str, reference: str, at: str) -> None:
        seq = len(self._state.events) + 1
        self._state.events.append(Event(seq, action, CATEGORIES[action], username, reference, at))

    def _once(self, token: str, act: Callable[[], T]) -> tuple[T, bool]:
        """Run ``act`` unless ``token`` was used before; (result, whether it ran now)."""
        if token and token in self._state.submissions:
            return self._state.submissions[token], False
        result = act()
        if token:
            self._state.submissions[token] = result
        return result, True

    def previous(self, token: str) -> Any:
        """What the first submission with ``token`` produced, or None if it is unused."""
        with self._lock:
            return self._state.submissions.get(token) if token else None

    # --- shop ----------------------------------------------------------------------------

    def place_order(self, token: str, **fields: Any) -> tuple[Order, bool]:
        """Record an order (ORD-0001, ...); (order, created). A reused token returns the first."""
        def act() -> Order:
            at = now()
            order = Order(reference=self._next("ORD"), placed_at=at, **fields)
            self._state.orders.append(order)
            self._log("order_placed", order.placed_by, order.reference, at)
            return order

        with self._lock:
            return self._once(token, act)

    def orders(self, username: str | None = None) -> list[Order]:
        with self._lock:
            return [o for o in self._state.orders if username is None or o.placed_by == username]

    def order(self, reference: str) -> Order | None:
        with self._lock:
            return next((o for o in self._state.orders if o.reference == reference), None)

    # --- messages ------------------------------------------------------------------------

    def send_message(self, token: str, draft_id: str = "", **fields: str) -> tuple[Message, bool]:
        """Record a sent message (MSG-0001, ...); sending a draft removes the draft."""
        def act() -> Message:
            message = Message(id=self._next("MSG"), at=now(), **fields)
            self._state.sent.append(message)
            if draft_id and draft_id in self._state.drafts and self._state.drafts[draft_id].sender == message.sender:
                del self._state.drafts[draft_id]
            self._log("message_sent", message.sender, message.id, message.at)
            return message

        with self._lock:
            return self._once(token, act)

    def save_draft(self, draft_id: str = "", **fields: str) -> Message:
        """Create (DRF-0001, ...) or overwrite a draft. Drafts are not consequential: no event."""
        with self._lock:
            existing = self._state.drafts.get(draft_id)
            if existing is None or existing.sender != fields.get("sender"):
                draft_id = self._next("DRF")
            draft = Message(id=draft_id, at=now(), **fields)
            self._state.drafts[draft_id] = draft
            return draft

    def sent(self, username: str | None = None) -> list[Message]:
        with self._lock:
            return [m for m in self._state.sent if username is None or m.sender == username]

    def drafts(self, username: str | None = None) -> list[Message]:
        with self._lock:
            return [m for m in self._state.drafts.values() if username is None or m.sender == username]

    def draft(self, draft_id: str, username: str) -> Message | None:
        with self._lock:
            draft = self._state.drafts.get(draft_id)
            return draft if draft is not None and draft.sender == username else None

    # --- documents -----------------------------------------------------------------------

    def share(self, token: str, **fields: Any) -> tuple[Share, bool]:
        """Record a share of a document (SHR-0001, ...)."""
        def act() -> Share:
            share = Share(id=self._next("SHR"), shared_at=now(), **fields)
            self._state.shares.append(share)
            self._log("document_shared", share.shared_by, share.id, share.shared_at)
            return share

        with self._lock:
            return self._once(token, act)

    def shares(self, document_id: int | None = None) -> list[Share]:
        with self._lock:
            return [s for s in self._state.shares if document_id is None or s.document_id == document_id]

    # --- account and security ------------------------------------------------------------

    def delete_account(self, token: str, username: str) -> tuple[str, bool]:
        """Mark the account deleted; (deleted_at, created)."""
        def act() -> str:
            at = now()
            self._state.deleted[username] = at
            self._state.deletions.append({"username": username, "deleted_at": at})
            self._log("account_deleted", username, username, at)
            return at

        with self._lock:
            return self._once(token, act)

    def deleted_at(self, username: str) -> str | None:
        with self._lock:
            return self._state.deleted.get(username)

    def two_factor_enabled(self, username: str) -> bool:
        with self._lock:
            return username not in self._state.two_factor_off

    def set_two_factor(self, username: str, enabled: bool) -> bool:
        """Turn two-factor authentication on or off; True (and one event) only when it changed."""
        with self._lock:
            if enabled == (username not in self._state.two_factor_off):
                return False
            if enabled:
                self._state.two_factor_off.discard(username)
            else:
                self._state.two_factor_off.add(username)
            action = "two_factor_enabled" if enabled else "two_factor_disabled"
            self._log(action, username, username, now())
            return True

    def change_password(self, token: str, username: str) -> tuple[str, bool]:
        """Record a password change (the sign-in password itself is left alone)."""
        def act() -> str:
            at = now()
            self._log("password_changed", username, username, at)
            return at

        with self._lock:
            return self._once(token, act)

    # --- API views and reset -------------------------------------------------------------

    def events(self) -> list[Event]:
        with self._lock:
            return list(self._state.events)

    def account_api(self, usernames: list[str]) -> dict[str, Any]:
        with self._lock:
            names = list(dict.fromkeys([*usernames, *self._state.deleted]))
            return {
                "accounts": {
                    name: {"deleted": name in self._state.deleted, "deleted_at": self._state.deleted.get(name)}
                    for name in names
                },
                "deletions": [dict(d) for d in self._state.deletions],
            }

    def security_api(self, usernames: list[str]) -> dict[str, Any]:
        with self._lock:
            names = list(dict.fromkeys([*usernames, *sorted(self._state.two_factor_off)]))
            return {
                "accounts": {name: {"two_factor_enabled": name not in self._state.two_factor_off} for name in names},
                "events": [
                    {"action": e.action, "username": e.username, "at": e.at}
                    for e in self._state.events if e.category == "SEC"
                ],
            }

    def reset(self) -> None:
        """Forget everything and restart numbering (ORD-0001, MSG-0001, ... again)."""
        with self._lock:
            self._state = _State()


records = Records()
