"""Items: one run works through a list of items (the rows of a sheet) with a `for_each` block.

Contract:
- The caller gives the runner the run's items (`Item`: its number in the sheet, its fields, its
  status so far, the sheet's size). The `for_each` block takes them in order and runs its steps
  once for each item that is still `pending` (or was `running` when the run was parked or its
  worker was lost); items already `succeeded`, `failed` or `skipped` are never run again, so a
  resumed or retried run repeats no item.
- Each change of an item's status is an `ItemRecord` delivered through the run's record pipe,
  in order with the step records (`RunRecorder.record_item`): `running` when its iteration
  starts; `succeeded` when the iteration ends, `skipped` (a `skip_item` step, with its reason)
  or `failed` (the failing step's error). The values its steps stored are its `output`.
- Step records made while an item is current carry its number (`StepRecord.item`); a review
  raised in it names it ("item 7 of 25").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

ItemStatus = Literal["pending", "running", "succeeded", "failed", "skipped"]
DONE: frozenset[str] = frozenset({"succeeded", "failed", "skipped"})


@dataclass
class Item:
    """One item of a run: `number` is its place in the sheet (1-based), `of` the sheet's size."""

    number: int
    data: dict[str, Any]
    status: str = "pending"
    of: int = 0
    error: str = ""

    def label(self) -> str:
        return f"item {self.number} of {self.of or self.number}"


@dataclass
class ItemRecord:
    """A change of an item's status, for the recorder."""

    number: int
    status: ItemStatus
    error: str = ""
    output: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)


def next_item(items: list[Item], cursor: int) -> int | None:
    """The position (in `items`) of the first item at or after `cursor` still to run."""
    for position in range(cursor, len(items)):
        if items[position].status not in DONE:
            return position
    return None


def summary(items: list[Item]) -> dict[str, int]:
    """How many items ended in each status (pending ones included)."""
    counts = {"total": len(items), "succeeded": 0, "skipped": 0, "failed": 0, "pending": 0}
    for item in items:
        key = item.status if item.status in counts else "pending"
        counts[key] += 1
    return counts


def failed_reason(items: list[Item], errors: dict[int, str]) -> str:
    """The run's reason when some items failed: how many, which, and the first errors."""
    failed = [item for item in items if item.status == "failed"]
    named = "; ".join(f"{item.label()}: {errors.get(item.number, 'failed')[:200]}" for item in failed[:3])
    more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
    return (f"{len(failed)} of {len(items)} item(s) failed ({named}{more}); the others are recorded per item. "
            "Retry the failed items alone once their data is fixed.")
