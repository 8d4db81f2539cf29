"""Request serializers that accept exactly what the OpenAPI document describes.

DRF is lenient by default: it ignores unknown keys, turns 42 into "42" for a string field and
"yes" into True for a boolean. A client then cannot tell from the document what is accepted, and
a typo ("crn" for "cron") is silently dropped. `StrictSerializer` refuses both, and the schema
generator (venus_rpa.core.schema) marks its components `additionalProperties: false`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from venus_rpa.core.text import NOT_STORABLE, not_storable


def _type_error(field: serializers.Field, value: Any) -> tuple[str, str] | None:
    """Why `value` (parsed JSON) is not of the JSON type `field` documents, as (path below the
    field, e.g. ".1" for a list's second item, message), or None."""
    if value is None:
        return None  # allow_null decides
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else ("", "Must be true or false.")
    if isinstance(field, serializers.IntegerField):
        return None if isinstance(value, int) and not isinstance(value, bool) else ("", "Must be a whole number.")
    if isinstance(field, serializers.FloatField):
        return None if isinstance(value, int | float) and not isinstance(value, bool) else ("", "Must be a number.")
    if isinstance(field, serializers.CharField | serializers.ChoiceField):
        return None if isinstance(value, str) else ("", "Must be a string.")
    if isinstance(field, serializers.ListField | serializers.DictField):
        is_list = isinstance(field, serializers.ListField)
        if not isinstance(value, list if is_list else dict):
            return "", "Must be a list." if is_list else "Must be an object."
        for key, item in enumerate(value) if is_list else value.items():
            if error := _type_error(field.child, item):
                return f".{key}{error[0]}", error[1]
    return None


class StrictSerializer(serializers.Serializer):
    """Refuses unknown keys, values of the wrong JSON type and text that is not Unicode, each as
    a field error."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            # Keys are echoed back, so they are made encodable first.
            errors = {str(key).encode("utf-8", "backslashreplace").decode(): ["Unknown field."]
                      for key in sorted(set(data) - set(self.fields))}
            for name, field in self.fields.items():
                if name in data and not field.read_only and (error := _type_error(field, data[name])):
                    errors[name + error[0]] = [error[1]]
                elif name in data and not_storable(data[name]):
                    errors[name] = [NOT_STORABLE]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
