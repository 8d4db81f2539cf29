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
    """DRF's JSON parser with a body-size limit (413) and a nesting limit (400, parse_error)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        raw = _read_limited(stream)
        try:
            text = codecs.decode(raw, get_encoding(parser_context or {}))
            return json_loads_bounded(text, parse_constant=strict_constant if self.strict else None)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
