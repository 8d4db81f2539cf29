"""In-memory, thread-safe storage for submitted expenses (lives as long as the process)."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Expense:
    """One submitted expense report."""

    reference: str
    title: str
    amount: str
    date: str
    category: str
    receipt_name: str
    receipt_size: int
    notes: str
    submitted_by: str
    submitted_at: str

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON-ready representation used by the API."""
        return asdict(self)


class ExpenseStore:
    """Holds expenses and hands out sequential references (EXP-0001, EXP-0002, ...)."""

    def __init__(self) -> None:
        # The server is threaded, so reference allocation and list updates need a lock.
        self._lock = threading.Lock()
        self._expenses: list[Expense] = []
        self._counter = 0

    def add(self, **fields: Any) -> Expense:
        """Create an expense with the next reference and return it."""
        with self._lock:
            self._counter += 1
            expense = Expense(reference=f"EXP-{self._counter:04d}", **fields)
            self._expenses.append(expense)
            return expense

    def all(self) -> list[Expense]:
        """Return every expense, oldest first."""
        with self._lock:
            return list(self._expenses)

    def get(self, reference: str) -> Expense | None:
        """Return the expense with this reference, if any."""
        with self._lock:
            return next((e for e in self._expenses if e.reference == reference), None)

    def reset(self) -> None:
        """Forget all expenses and restart numbering so tests see EXP-0001 again."""
        with self._lock:
            self._expenses.clear()
            self._counter = 0


expenses = ExpenseStore()
