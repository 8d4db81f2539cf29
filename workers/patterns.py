"""Bounded evaluation of user-supplied regular expressions.

Every pattern a user writes (parameter-schema `pattern` / `patternProperties`, output-schema
patterns, `extract` step patterns) runs here, never through `re`: a pattern such as `^(a|aa)+$`
backtracks exponentially, and one evaluation used to hold a web request or a worker for seconds.

Contract:
- `compile_pattern` accepts the syntax of the `regex` module in its `re`-compatible mode (VERSION0:
  backreferences, lookarounds and possessive quantifiers included), patterns up to
  `MAX_PATTERN_LENGTH` characters; anything else raises `PatternError` with a message for people.
- `search` gives up after `SEARCH_TIMEOUT_S`, or earlier when the enclosing `pattern_budget` is
  spent, and raises `PatternTimeout` ("pattern took too long on this text"); it releases the GIL
  while it matches, so other threads keep running meanwhile.
- `schema_validator` is a Draft 2020-12 validator whose regex keywords use `search`; a timeout
  becomes a validation error of the instance, never a hang. `schema_check` validates a schema and
  its patterns when it is saved.

No Django imports: the web app (validation at save and at run start) and the worker use it alike.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import jsonschema
import regex

from workers.errors import StepError
from jsonschema import FormatChecker, SchemaError, ValidationError
from jsonschema import _keywords as _base_keywords
from jsonschema.validators import extend

MAX_PATTERN_LENGTH = 1000
# The `regex` module counts its timeout in CPU time of the process; on a busy host the wall-clock
# time can be a few times longer, so the bounds leave room under the 100 ms target.
SEARCH_TIMEOUT_S = 0.025  # one evaluation
BUDGET_S = 0.05  # all evaluations of one validation or one step together

_deadline: ContextVar[float | None] = ContextVar("pattern_deadline", default=None)


class PatternError(ValueError):
    """The pattern is not a regular expression we accept (message for people)."""


class PatternTimeout(ValueError):
    """Evaluating the pattern took longer than allowed; the text was not judged."""

    def __init__(self, pattern: str) -> None:
        shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
        super().__init__(f"pattern {shown!r} took too long on this text (limit {SEARCH_TIMEOUT_S * 1000:g} ms); "
                         "simplify the pattern (avoid nested repetition such as (a+)+)")
        self.pattern = pattern


@contextmanager
def pattern_budget(seconds: float = BUDGET_S) -> Iterator[None]:
    """Share one time budget between every `search` inside the block (nested blocks only shrink it)."""
    current = _deadline.get()
    deadline = time.monotonic() + seconds
    token = _deadline.set(deadline if current is None else min(current, deadline))
    try:
        yield
    finally:
        _deadline.reset(token)


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> regex.Pattern:
    """The compiled pattern; `PatternError` when it is too long or not valid."""
    if not isinstance(pattern, str):
        raise PatternError("A pattern must be a string.")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"A pattern may have at most {MAX_PATTERN_LENGTH} characters.")
    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except (regex.error, ValueError, OverflowError) as exc:
        raise PatternError(f"Not a valid regular expression: {exc}") from None


def check_pattern(pattern: Any) -> str | None:
    """None when the pattern is acceptable, else why not (for a field error)."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def search(pattern: str, text: str) -> regex.Match | None:
    """`re.search` semantics under a time bound. Raises PatternError or PatternTimeout."""
    compiled = compile_pattern(pattern)
    timeout = SEARCH_TIMEOUT_S
    deadline = _deadline.get()
    if deadline is not None:
        timeout = min(timeout, deadline - time.monotonic())
    if timeout <= 0:
        raise PatternTimeout(pattern)
    try:
        return compiled.search(text, timeout=timeout, concurrent=True)
    except TimeoutError:
        raise PatternTimeout(pattern) from None


# -- JSON Schema -----------------------------------------------------------------------------------

def _bounded_hit(pattern: str, text: str) -> bool | str:
    """True/False for a match, or the message when the pattern could not be evaluated."""
    try:
        return search(pattern, text) is not None
    except (PatternError, PatternTimeout) as exc:
        return str(exc)


def _pattern(validator, pattern, instance, schema):
    if not validator.is_type(instance, "string"):
        return
    hit = _bounded_hit(pattern, instance)
    if isinstance(hit, str):
        yield ValidationError(hit)
    elif not hit:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            hit = _bounded_hit(pattern, key)
            if isinstance(hit, str):
                yield ValidationError(hit, path=(key,))
            elif hit:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator, additional, instance, schema):
    # jsonschema finds "additional" keys with re.search over patternProperties: decide those keys
    # here, bounded, and let the stock keyword judge a schema without patterns.
    if not validator.is_type(instance, "object") or "patternProperties" not in schema:
        yield from _base_keywords.additionalProperties(validator, additional, instance, schema)
        return
    covered = dict.fromkeys(schema.get("properties") or {}, True)
    for key in instance:
        for pattern in schema["patternProperties"]:
            hit = _bounded_hit(pattern, key)
            if isinstance(hit, str):
                yield ValidationError(hit, path=(key,))
                return
            if hit:
                covered[key] = True
                break
    plain = {k: v for k, v in schema.items() if k != "patternProperties"}
    yield from _base_keywords.additionalProperties(validator, additional, instance, {**plain, "properties": covered})


def _unevaluated_properties(validator, unevaluated, instance, schema):
    # The stock keyword evaluates patternProperties with re.search deep inside; refuse the pair.
    if _uses_pattern_properties(schema):
        yield ValidationError(UNEVALUATED_WITH_PATTERNS)
        return
    yield from _base_keywords.unevaluatedProperties(validator, unevaluated, instance, schema)


UNEVALUATED_WITH_PATTERNS = "unevaluatedProperties cannot be combined with patternProperties here."


def _regex_format(instance: object) -> bool:
    if isinstance(instance, str):
        compile_pattern(instance)
    return True


# Draft 2020-12's format checks, with "regex" judged by the bounded engine's rules.
_FORMATS = FormatChecker(formats=())
_FORMATS.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
_FORMATS.checks("regex", raises=PatternError)(_regex_format)

BoundedValidator = extend(
    jsonschema.Draft202012Validator,
    validators={"pattern": _pattern, "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties, "unevaluatedProperties": _unevaluated_properties},
    format_checker=_FORMATS,
)


def schema_validator(schema: dict, **options: Any) -> jsonschema.protocols.Validator:
    """A validator for `schema` whose regexes are bounded; iterate its errors inside `pattern_budget`.
    `options` go to the validator (e.g. a `registry` that never fetches a remote `$ref`)."""
    return BoundedValidator(schema, **options)


_NOT_SCHEMAS = {"const", "enum", "default", "examples"}  # keywords whose values are data, not schemas


def _entries(schema: Any, where: str = "") -> Iterator[tuple[str, str, Any]]:
    """(location, keyword, value) of every keyword in a schema, nested ones included."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _entries(item, f"{where}.{index}" if where else str(index))
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in _NOT_SCHEMAS:
            continue
        here = f"{where}.{key}" if where else key
        yield here, key, value
        if isinstance(value, (dict, list)):
            yield from _entries(value, here)


def schema_patterns(schema: Any) -> Iterator[tuple[str, Any]]:
    """(location, pattern) of every `pattern` and `patternProperties` key in a schema."""
    for where, key, value in _entries(schema):
        if key == "pattern" and not isinstance(value, (dict, list)):
            yield where, value
        elif key == "patternProperties" and isinstance(value, dict):
            yield from ((where, pattern) for pattern in value)


def _uses_pattern_properties(schema: Any) -> bool:
    return any(key == "patternProperties" for _, key, _ in _entries(schema))


def schema_check(schema: Any) -> None:
    """Raise `jsonschema.SchemaError` (with a message for people) unless `schema` is a valid
    Draft 2020-12 schema whose every pattern compiles under our rules."""
    for where, pattern in schema_patterns(schema):
        problem = check_pattern(pattern)
        if problem:
            raise SchemaError(f"{problem} (at {where})")
    keywords = {key for _, key, _ in _entries(schema)}
    if {"unevaluatedProperties", "patternProperties"} <= keywords:
        raise SchemaError(UNEVALUATED_WITH_PATTERNS)
    BoundedValidator.check_schema(schema)


def schema_errors(schema: dict, instance: Any, *, budget_s: float = BUDGET_S, **options: Any) -> list[ValidationError]:
    """Every validation error of instance, sorted by path, with all regexes sharing one budget."""
    with pattern_budget(budget_s):
        errors = schema_validator(schema, **options).iter_errors(instance)
        return sorted(errors, key=lambda e: [str(p) for p in e.path])


# -- measurement -----------------------------------------------------------------------------------

# Patterns that backtrack exponentially in a plain backtracking engine, with texts that trigger it.
EVIL_CASES: tuple[tuple[str, str], ...] = (
    (r"^(a+)+$", "a" * 27 + "!"),
    (r"^(a|aa)+$", "a" * 60 + "!"),
    (r"^(a|a?)+$", "a" * 60 + "!"),
    (r"^(\w+\s?)*$", "word " * 30 + "!"),
)


def measure_max_block_ms(cases: tuple[tuple[str, str], ...] = EVIL_CASES) -> dict[str, float]:
    """How long the bounded paths held the calling thread on known catastrophic cases, in ms of
    wall-clock time (`*_ms`, `max_ms`) and of the thread's CPU time (`max_cpu_ms`, the figure that
    does not grow with other load on the host): `search` (extract steps) and `schema_errors`
    (parameter validation, a pattern in `pattern`, `patternProperties` and `additionalProperties`)."""
    worst = {"search_ms": 0.0, "schema_ms": 0.0}
    cpu = 0.0

    def timed(key: str, fn, *args: Any) -> None:
        nonlocal cpu
        wall, thread = time.perf_counter(), time.thread_time()
        fn(*args)
        worst[key] = max(worst[key], (time.perf_counter() - wall) * 1000)
        cpu = max(cpu, (time.thread_time() - thread) * 1000)

    for pattern, text in cases:
        timed("search_ms", _search_quietly, pattern, text)
        schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": pattern}},
                  "patternProperties": {pattern: {}}, "additionalProperties": False}
        timed("schema_ms", schema_errors, schema, {"p": text, text: 1})
    return {**{k: round(v, 1) for k, v in worst.items()}, "max_ms": round(max(worst.values()), 1),
            "max_cpu_ms": round(cpu, 1)}


def _search_quietly(pattern: str, text: str) -> None:
    try:
        with pattern_budget():
            search(pattern, text)
    except PatternTimeout:
        pass


def extract(value: str, pattern: str | None) -> str:
    """What an `extract` step keeps of `value`: all of it without a pattern, else the pattern's
    first group (or its whole match); StepError when the pattern is bad, too slow or misses."""
    if not pattern:
        return value
    try:
        match = search(pattern, value)
    except (PatternError, PatternTimeout) as exc:
        raise StepError(f"extract: {exc}") from None
    if match is None:
        raise StepError(f"extracted text {value[:80]!r} does not match pattern {pattern!r}")
    return match.group(1) if match.groups() else match.group(0)
