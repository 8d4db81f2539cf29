"""A parameter that fails the automation's schema, said in the words of the person who typed it.

jsonschema's own messages are for developers ("'abc' does not match '^[A-Z]{3}-\\d+$'", "'x' is
not of type 'integer'"). A regex is never shown: the property's description or title says what is
expected, or else an example (the first of "examples", the default, or one made from a `format`) in
"Must look like …".
"""

from __future__ import annotations

from typing import Any

from jsonschema import ValidationError

TYPE_WORDS = {"integer": "a whole number (integer)", "number": "a number", "string": "text",
              "boolean": "yes or no (true or false)", "array": "a list", "object": "an object", "null": "empty"}
FORMAT_EXAMPLES = {"date": "2026-01-31", "date-time": "2026-01-31T09:30:00Z", "time": "09:30:00",
                   "email": "name@example.com", "uri": "https://example.com/page", "uuid":
                   "123e4567-e89b-12d3-a456-426614174000", "hostname": "example.com", "ipv4": "192.0.2.10"}


def _example(schema: dict[str, Any]) -> str:
    examples = schema.get("examples")
    if isinstance(examples, list) and examples and isinstance(examples[0], str | int | float):
        return str(examples[0])
    if isinstance(schema.get("default"), str) and schema["default"]:  # a value the automation accepts
        return schema["default"]
    return FORMAT_EXAMPLES.get(str(schema.get("format", "")), "")


def _pattern_text(error: ValidationError, schema: dict[str, Any]) -> str:
    if "took too long" in error.message:  # the bounded engine gave up: the value was not judged
        return ("Checking this value took too long (the automation's rule for it is too complex); "
                "ask the automation's editor to simplify it.")
    hint = schema.get("description") or schema.get("title")
    if hint:
        return f"Not in the expected form: {str(hint).rstrip('.')}."
    example = _example(schema)
    return f"Must look like {example}." if example else "Not in the form this automation expects."


def _words(values: Any) -> str:
    return ", ".join(str(v) for v in values) if isinstance(values, list) else str(values)


def param_error_text(error: ValidationError) -> str:
    """One schema error about one parameter, in words; never echoes a pattern."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    value, kind = error.validator_value, error.validator
    if kind == "pattern":
        return _pattern_text(error, schema)
    if kind == "type":
        expected = [value] if isinstance(value, str) else list(value or [])
        return "Must be " + " or ".join(TYPE_WORDS.get(t, t) for t in expected) + "."
    if kind == "enum":
        return f"Must be one of: {_words(value)}."
    if kind == "minLength":
        return "Must not be empty." if value == 1 else f"Must be at least {value} characters long."
    if kind == "maxLength":
        return f"Must be at most {value} characters long."
    if kind == "minimum":
        return f"Must be at least {value}."
    if kind == "maximum":
        return f"Must be at most {value}."
    if kind == "exclusiveMinimum":
        return f"Must be more than {value}."
    if kind == "exclusiveMaximum":
        return f"Must be less than {value}."
    if kind == "format":
        example = FORMAT_EXAMPLES.get(str(value))
        return f"Must be a valid {value}" + (f", such as {example}." if example else ".")
    if kind in ("minItems", "maxItems"):
        return f"Must have {'at least' if kind == 'minItems' else 'at most'} {value} item{'s' if value != 1 else ''}."
    return error.message
