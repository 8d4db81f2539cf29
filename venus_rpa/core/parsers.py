"""JSON parsing with bounded nesting and size, for every JSON body the web process reads.

Python's json module recurses once per nesting level: a body nested a few thousand levels deep
raises RecursionError (an unhandled 500), and one nested a few hundred deep parses but can break
code that walks the value later. `json_loads_bounded` refuses both before parsing, with a
ValueError subclass, so callers that already turn ValueError into "not valid JSON" keep working.
"""

from __future__ import annotations

import codecs
import json
import re
from itertools import accumulate
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from venus_rpa.core.errors import PayloadTooLarge

MAX_JSON_DEPTH = 64

# A JSON string literal (escapes included); linear: the two alternatives never overlap.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JSONTooDeep(ValueError):
    """The document nests arrays/objects deeper than allowed."""


class JSONDuplicateKey(ValueError):
    """An object gives the same key twice."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook` that refuses a key given twice in one object: Python's json would keep
    the last value unseen (two credential fields named "user" would become one)."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise JSONDuplicateKey(f"the key {key[:100]!r} is given twice in one object: give each key once.")
        obj[key] = value
    return obj


def json_depth(text: str) -> int:
    """The deepest array/object nesting of `text`, brackets inside strings not counted.

    Works on malformed input too (it only counts), so it can run before the parser.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    return max(0, max(accumulate(_STEP[c] for c in brackets)))


def json_loads_bounded(data: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, **kwargs: Any) -> Any:
    """`json.loads` that raises JSONTooDeep (a ValueError) past `max_depth` levels of nesting.

    Bytes are decoded as UTF-8 (UnicodeDecodeError, also a ValueError, when they are not).
    """
    text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
    if json_depth(text) > max_depth:
        raise JSONTooDeep(f"JSON may nest arrays and objects at most {max_depth} levels deep.")
    return json.loads(text, **kwargs)


# Python's json messages, in the words of someone typing JSON into a box.
_JSON_WORDS = (
    ("Expecting property name", "a key in double quotes is expected here (a comma before '}', or a key in "
                                "single quotes?)"),
    ("Expecting value", "a value is expected here (text in double quotes, a number, true, false, null, [ or {)"),
    ("Expecting ',' delimiter", "a comma is missing before this item"),
    ("Expecting ':' delimiter", "a colon is missing after the key"),
    ("Unterminated string", "a text in double quotes is not closed"),
    ("Extra data", "there is more after the end of the JSON value"),
    ("Invalid control character", "a line break or tab inside quotes must be written as \\n or \\t"),
    ("Invalid \\escape", "a backslash starts an escape JSON does not know (write \\\\ for a backslash)"),
)


def json_error_text(exc: ValueError) -> str:
    """What is wrong with a JSON text, for people: "line 2, column 9: a comma is missing before this
    item" (never Python's "line 1 column 2 (char 1)")."""
    if isinstance(exc, json.JSONDecodeError):
        what = next((words for start, words in _JSON_WORDS if exc.msg.startswith(start)), "this is not valid JSON")
        return f"line {exc.lineno}, column {exc.colno}: {what}."
    if isinstance(exc, UnicodeDecodeError):
        return "the text is not UTF-8."
    return str(exc)  # JSONTooDeep says it in words already


def _read_limited(stream: IO[bytes]) -> bytes:
    """The whole stream, or PayloadTooLarge past DATA_UPLOAD_MAX_MEMORY_SIZE (None: no limit).

    DRF reads the request stream itself, which skips Django's own body-size check.
    """
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    data = stream.read() if limit is None else stream.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
    return data


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser with a body-size limit (413), a nesting limit and no key given twice in
    one object (400, parse_error)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        raw = _read_limited(stream)
        try:
            text = codecs.decode(raw, get_encoding(parser_context or {}))
            return json_loads_bounded(text, parse_constant=strict_constant if self.strict else None,
                                      object_pairs_hook=unique_keys)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
