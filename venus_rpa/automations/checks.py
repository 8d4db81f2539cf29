"""Input rules for automations and credentials that the runtime's models do not state: slugs,
start and goto URLs, user regexes, credential field names. Each `*_problem` returns None when the
value is fine, else a message for people (the services turn it into a field error)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from django.core.validators import slug_re
from django.utils.text import slugify

from workers import patterns
from workers.steps import AutomationSpec, ExtractStep, GotoStep

SLUG_MAX = 80
WEB_SCHEMES = ("http", "https")
CREDENTIAL_FIELD_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def slug_propose(name: str) -> str:
    """The slug the editor and the API use when none is given ("" when the name has no letters)."""
    return slugify(name)[:SLUG_MAX].strip("-")


def slug_problem(slug: str) -> str | None:
    """Slugs go into URLs: letters, digits, hyphens and underscores (Django's `slug` converter)."""
    if not slug:
        return "A slug is required (or a name to make one from)."
    if len(slug) > SLUG_MAX:
        return f"A slug has at most {SLUG_MAX} characters."
    if not slug_re.fullmatch(slug):
        proposal = slug_propose(slug)
        hint = f", e.g. {proposal!r}" if proposal else ""
        return f"Use only letters, digits, hyphens and underscores{hint}."
    return None


def web_url_problem(url: str, *, relative_ok: bool = False) -> str | None:
    """Only http(s) URLs with a host; a `{{param}}` may fill the host or path, never the scheme.
    With `relative_ok`, a path such as /login (joined onto the start URL) is fine too."""
    parts = urlsplit(url.strip())
    if relative_ok and not parts.scheme and not parts.netloc:
        return None
    if parts.scheme.lower() not in WEB_SCHEMES:
        shown = f"{parts.scheme}:" if parts.scheme else "an address without http:// or https://"
        return f"Only http:// and https:// addresses can be opened, not {shown}."
    host = parts.netloc.rpartition("@")[2]
    if not host or not (parts.hostname or "{{" in host):
        return "The address needs a host, e.g. https://example.com/."
    return None


def definition_problems(spec: AutomationSpec) -> dict[str, list[str]]:
    """Field errors for a parsed definition: start URL, goto URLs and extract patterns."""
    fields: dict[str, list[str]] = {}
    if spec.start_url:
        problem = web_url_problem(spec.start_url)
        if problem:
            fields["start_url"] = [problem]
    for index, step in enumerate(spec.steps):
        if isinstance(step, GotoStep):
            problem = web_url_problem(step.url, relative_ok=True)
            if problem:
                fields[f"steps.{index}.url"] = [problem]
        if isinstance(step, ExtractStep) and step.pattern:
            problem = patterns.check_pattern(step.pattern)
            if problem:
                fields[f"steps.{index}.pattern"] = [problem]
    return fields


def credential_fields_problem(names: Any) -> str | None:
    """Field names go into `{{credentials.NAME.FIELD}}`: letters, digits, `_` and `-` only."""
    bad = [str(n) for n in names if not (isinstance(n, str) and CREDENTIAL_FIELD_RE.fullmatch(n))]
    if bad:
        shown = ", ".join(repr(n) for n in bad)
        return (f"Field names use letters, digits, '_' and '-' only (no dots or spaces, at most 64 "
                f"characters): {shown}")
    return None
