"""Bulk actions (cancel or retry runs, reject reviews): one result per id, in the order given.

An id of another workspace reads exactly like a missing one, so a bulk request learns nothing
about other workspaces; one item's failure does not stop the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rest_framework import serializers

from venus_rpa.core.errors import InvalidInput, ServiceError
from venus_rpa.core.pagination import IdField
from venus_rpa.core.serializers import StrictSerializer

BULK_MAX = 100


@dataclass
class BulkResult:
    """What happened to one item: `ok`, a sentence for people, and the new run a retry started."""

    id: int
    ok: bool
    message: str
    new_run_id: int | None = None
    fields: dict[str, list[str]] = field(default_factory=dict)


def bulk_ids_check(ids: list[int]) -> list[int]:
    """The ids without repeats, in order; too many is a clear 400."""
    if len(ids) > BULK_MAX:
        raise InvalidInput(f"At most {BULK_MAX} items at once.", fields={"ids": [f"At most {BULK_MAX} ids."]})
    if not ids:
        raise InvalidInput("Select at least one item.", fields={"ids": ["Select at least one item."]})
    return list(dict.fromkeys(ids))


def bulk_apply(*, ids: list[int], found: Iterable[Any], act: Callable[[Any], BulkResult],
               not_found: str) -> list[BulkResult]:
    """Apply `act` to each object of `found` (already scoped to the caller's workspace) by id."""
    by_id = {obj.pk: obj for obj in found}
    results = []
    for item_id in bulk_ids_check(ids):
        obj = by_id.get(item_id)
        if obj is None:
            results.append(BulkResult(item_id, False, not_found))
            continue
        try:
            results.append(act(obj))
        except ServiceError as exc:
            results.append(BulkResult(item_id, False, exc.message, fields=exc.fields))
    return results


class BulkInSerializer(StrictSerializer):
    ids = serializers.ListField(child=IdField(), min_length=1, max_length=BULK_MAX)


class BulkResultSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ok = serializers.BooleanField()
    message = serializers.CharField()
    new_run_id = serializers.IntegerField(allow_null=True, required=False)
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class BulkOutSerializer(serializers.Serializer):
    """The API's answer to a bulk action: one result per id, in the order given."""

    results = BulkResultSerializer(many=True)
