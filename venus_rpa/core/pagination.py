"""Query-string parsing shared by the API: bounded ids and the one pagination of every paged list.

Numbers in a query string are parsed by DRF fields with explicit bounds, so a value the database
cannot hold (`?limit=` 10^30, `?run=` 2^63) is a 400 in the API's error shape, never a database
error, and the OpenAPI document states the same bounds.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination

# Primary keys are 64-bit (DEFAULT_AUTO_FIELD = BigAutoField) and start at 1.
MAX_ID = 2**63 - 1
DEFAULT_LIMIT = 50
MAX_LIMIT = 200
# Far past any real list; small enough for every database's OFFSET.
MAX_OFFSET = 2**31 - 1


class IdField(serializers.IntegerField):
    """An object id in a query string: a whole number from 1 to MAX_ID."""

    default_error_messages = {
        "invalid": "An id is a whole number.",
        "min_value": "Ids start at {min_value}.",
        "max_value": "No object has an id above {max_value}.",
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)


class PageSerializer(serializers.Serializer):
    """`?limit=` and `?offset=` of a paged list."""

    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_LIMIT,
        error_messages={"max_value": "At most {max_value} items per page.", "min_value": "Ask for at least 1 item.",
                        "invalid": "The limit is a whole number."},
    )
    offset = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_OFFSET,
        error_messages={"max_value": "The offset is at most {max_value}.", "min_value": "The offset cannot be negative.",
                        "invalid": "The offset is a whole number."},
    )


class Pagination(LimitOffsetPagination):
    """Limit/offset pages of at most MAX_LIMIT items; out-of-range or non-numeric values are a 400.

    DRF's own class silently falls back to the default on bad input and passes any huge number
    on to the database, which then fails with a 500.
    """

    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT

    def paginate_queryset(self, queryset, request, view=None):
        page = PageSerializer(data={k: request.query_params[k] for k in (self.limit_query_param,
                                                                        self.offset_query_param)
                                    if k in request.query_params})
        page.is_valid(raise_exception=True)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        bounds = {self.limit_query_param: {"minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
                  self.offset_query_param: {"minimum": 0, "maximum": MAX_OFFSET, "default": 0}}
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters

    def get_paginated_response_schema(self, schema: dict) -> dict:
        paged = super().get_paginated_response_schema(schema)
        paged["required"] = ["count", "next", "previous", "results"]
        paged["properties"]["count"]["minimum"] = 0
        return paged


def paginated_response(*, request, view, queryset, serialize) -> Any:
    """One page of `queryset` as `{count, next, previous, results}`; `serialize(page)` gives the
    results. For the list endpoints that are APIViews (no generic view to paginate them)."""
    paginator = Pagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serialize(page))


class SearchSerializer(serializers.Serializer):
    """`?q=` of a list: words to look for (bounded, so a huge query is a 400, not a slow scan)."""

    q = serializers.CharField(required=False, allow_blank=True, max_length=200, trim_whitespace=True,
                              help_text="Words to look for (all must match).")


def search_words(request) -> str:
    search = SearchSerializer(data={k: request.query_params[k] for k in ("q",) if k in request.query_params})
    search.is_valid(raise_exception=True)
    return search.validated_data.get("q", "")
