"""Text PostgreSQL can store, checked before anything measures, stores or shows it.

Parsed JSON and command-line arguments can hold an unpaired surrogate ("\\ud83d" alone, which is
not Unicode: JSON's escapes allow it, and Python decodes undecodable argv bytes to one) or a NUL
character. Neither can be encoded as UTF-8 nor stored in a PostgreSQL text or jsonb column, so
each entry point refuses them by name with `NOT_STORABLE` rather than failing later.
"""

from __future__ import annotations

from typing import Any

NOT_STORABLE = "Contains a NUL character or an unpaired surrogate: not storable text."


def not_storable(value: Any) -> bool:
    """Whether a parsed JSON value holds such text, in a key or a string, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def shown(text: str) -> str:
    """`text` safe to put in an answer or a log: such characters written as escapes."""
    return str(text).replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
