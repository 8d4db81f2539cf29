"""Input rules for automations and credentials that the runtime's models do not state: slugs,
names and descriptions, allowed domains, start and goto URLs, user regexes, credential field
names, the size of a definition. Each `*_problem` returns None when the value is fine, else a
message for people (the services turn it into a field error).

Bounds: the texts inside a definition are bounded by the step schema (`workers.steps`: LABEL_MAX,
URL_MAX, TEXT_MAX..., checked when saving); here the automation's name and description, the
number of steps and the stored definition's size."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from django.core.validators import slug_re
from django.utils.text import slugify

from venus_rpa.core.text import NOT_STORABLE, not_storable
from workers import egress, flow, patterns
from workers.sign_in import sign_in_credential, sign_in_domain
from workers.steps import WEB_ONLY_KINDS, AutomationSpec, ExtractStep, GotoStep
from workers.totp import TOTP_FIELD, TotpSecretError, normalise_secret

SLUG_MAX = 80
NAME_MAX = 120  # shown in lists and every Automation dropdown (the column holds 200: older names)
DESCRIPTION_MAX = 2000
CHANGE_NOTE_MAX = 300  # AutomationVersion.change_note's column
STEPS_MAX = 5000  # steps of one definition, those inside blocks included (calls: calls.MAX_CALLED_STEPS)
DEFINITION_MAX_BYTES = 256 * 1024  # the stored definition as JSON (UTF-8): what every run and API answer carries
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


def name_problem(name: str) -> str | None:
    if not name.strip():
        return "A name is required."
    if not_storable(name):
        return NOT_STORABLE
    if len(name) > NAME_MAX:
        return f"A name has at most {NAME_MAX} characters (this one has {len(name):,})."
    return None


def change_note_problem(note: str) -> str | None:
    if not_storable(note):
        return NOT_STORABLE
    if len(note) > CHANGE_NOTE_MAX:
        return f"A change note has at most {CHANGE_NOTE_MAX} characters (this one has {len(note):,})."
    return None


def description_problem(description: str) -> str | None:
    if not_storable(description):
        return NOT_STORABLE
    if len(description) > DESCRIPTION_MAX:
        return f"A description has at most {DESCRIPTION_MAX:,} characters (this one has {len(description):,})."
    return None


def domain_normalize(entry: str) -> str:
    """An allowed-domains entry, an automation's or a credential's, in canonical form; ValueError
    with a sentence for people otherwise. Both boxes take one domain per line (the dashboard's
    `domain_entries`), so spaces inside an entry are a mistake refused by name ("erp example.com"
    is not two hosts, and "not a domain" not three), before `egress.domain_normalize`."""
    text = str(entry)
    if any(c.isspace() for c in text.strip()):
        raise ValueError(f"{text[:100]!r} is not a host name (it has spaces): give one domain per line, "
                         "such as example.com or *.example.com.")
    try:
        domain = egress.domain_normalize(text)
    except ValueError as exc:
        raise ValueError(f"{exc}.") from exc
    if problem := _wildcard_problem(text.strip(), domain):
        raise ValueError(problem)
    return domain


def _wildcard_problem(entry: str, domain: str) -> str | None:
    """A wildcard is kept in its canonical form, the domain itself ("*.example.com" is example.com:
    a domain covers its subdomains, `egress.domain_allowed`), so it must name a domain: on a bare
    top-level label ("*.com", "*.evil") it would let runs go to every site under it, and on an
    IP address it means nothing."""
    if not entry.startswith("*."):
        return None
    if egress.ip_literal(domain) is not None:
        return f"{entry[:100]!r}: a wildcard needs a domain name, not an IP address; give the address alone."
    if "." not in domain:
        return (f"{entry[:100]!r} would allow every site under .{domain}: name a domain, such as *.example.{domain} "
                f"(which also allows example.{domain} itself).")
    return None


def param_size(value: Any) -> int:
    """A run parameter's length in characters (settings.VENUS_PARAM_MAX_CHARS): a text's own,
    anything else's as JSON."""
    return len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False, default=str))


def json_size(value: Any) -> int:
    """Bytes of `value` as compact JSON (UTF-8), as it is stored and sent."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def definition_size_problem(definition: dict[str, Any]) -> str | None:
    size = json_size(definition)
    if size <= DEFINITION_MAX_BYTES:
        return None
    return (f"The definition is {size / 1024:,.0f} KB; at most {DEFINITION_MAX_BYTES // 1024} KB can be saved. "
            "Shorten its longest texts, or split it into automations that call each other.")


def web_url_problem(url: str, *, relative_ok: bool = False) -> str | None:
    """Only http(s) URLs with a host; a `{{param}}` may fill the host or path, never the scheme.
    With `relative_ok`, a path such as /login (joined onto the start URL) is fine too."""
    parts = urlsplit(url.strip())
    if relative_ok and not parts.scheme and not parts.netloc:
        if any(c.isspace() for c in re.sub(r"\{\{[^}]*\}\}", "", url.strip())):  # "not a url" is no path
            return ("Not a web address: give one such as https://example.com/page, or a path on the start "
                    "URL's site such as /login.")
        return None
    if not parts.scheme:
        return "Start the address with https:// or http://, e.g. https://example.com/page."
    if parts.scheme.lower() not in WEB_SCHEMES:
        return f"Only http:// and https:// addresses can be opened, not {parts.scheme}:."
    host = parts.netloc.rpartition("@")[2]
    if not host or not (parts.hostname or "{{" in host):
        return "The address needs a host, e.g. https://example.com/."
    return None


def desktop_start_problem(start: str) -> str | None:
    """A desktop start or goto names an application of the worker's table (`app:gnumeric`,
    `app:gnumeric/expenses.gnumeric`), never a command line."""
    from workers.envs.desktop_apps import app_named
    from workers.errors import StepError

    name, _, document = start.strip().partition("/") if start.lower().startswith("app:") else (start, "", "")
    try:
        app_named(name)
    except StepError as exc:
        return str(exc)
    if document and (".." in document.split("/") or document.startswith("/")):
        return f"{document!r} must be a file of the run's Documents folder (no '..', not an absolute path)."
    return None


_ANDROID_APP = re.compile(r"^(?:app:.{1,100}|(?:android-app://)?[A-Za-z][\w]*(?:\.\w+)+(?:/[\w.$]+)?/?|\{\{[^}]+\}\})$")


def android_app_problem(value: str) -> str | None:
    """An Android start or `goto` names an app: `app:Display Name` (the device's app table), a
    package, `package/.Activity` or `android-app://package`."""
    if _ANDROID_APP.match(value.strip()):
        return None
    return ("On Android, open an app: app:Display Name, a package such as com.example.app, "
            "com.example.app/.MainActivity or android-app://com.example.app.")


def _where_problem(spec: AutomationSpec, url: str, *, relative_ok: bool = False) -> str | None:
    """What is wrong with a start or `goto` for the automation's surface, or None."""
    if spec.surface == "android":
        return android_app_problem(url)
    if spec.surface == "desktop":
        return desktop_start_problem(url)
    return web_url_problem(url, relative_ok=relative_ok)


def definition_problems(spec: AutomationSpec) -> dict[str, list[str]]:
    """Field errors for a parsed definition: start URL (an app on Android), goto URLs and extract patterns."""
    fields: dict[str, list[str]] = {}

    count = sum(1 for _ in flow.walk(spec.steps))
    if count > STEPS_MAX:
        fields["steps"] = [f"An automation has at most {STEPS_MAX:,} steps, those inside blocks included "
                           f"(this one has {count:,}): split it into automations that call each other."]
    if spec.start_url:
        problem = _where_problem(spec, spec.start_url)
        if problem:
            fields["start_url"] = [problem]
    for where, step, _ in flow.walk(spec.steps):  # steps inside blocks too ("steps.2.steps.0")
        if spec.surface != "web" and step.kind in WEB_ONLY_KINDS:
            fields[f"{where}.kind"] = [f"A {step.kind} step works on web pages only; this automation runs on "
                                       f"{'Android' if spec.surface == 'android' else 'the desktop'} "
                                       "(use click, fill, press, wait_for, assert, extract or an agent step)."]
        if getattr(step, "lanes", 1) > 1 and spec.surface != "web":
            fields[f"{where}.lanes"] = ["Lanes (items at once) need a browser: this automation runs on "
                                        f"{'Android' if spec.surface == 'android' else 'the desktop'}, where items "
                                        "run one after another (set lanes to 1)."]
        if isinstance(step, GotoStep):
            problem = _where_problem(spec, step.url, relative_ok=True)
            if problem:
                fields[f"{where}.url"] = [problem]
        if isinstance(step, ExtractStep) and step.pattern:
            problem = patterns.check_pattern(step.pattern)
            if problem:
                fields[f"{where}.pattern"] = [problem]
    return fields


def off_domain_problems(spec: AutomationSpec, *, allowed_domains: list[str], fields: dict[str, list[str]]) -> None:
    """A web automation's start URL and `goto` URLs (blocks' too) must be on its allowed domains:
    a run is blocked before it gets there (`egress.domain_allowed`, the browser guard's rule).
    Problems go to `fields` ("start_url", "steps.N.url"). Not checked here: a host a parameter
    fills (`{{site}}`, known only when the run starts), a relative path (on the start URL's
    site), and anything when the allowed domains are themselves wrong (reported already)."""
    if spec.surface != "web" or not allowed_domains or "allowed_domains" in fields:
        return
    listed = ", ".join(allowed_domains[:5]) + (f" and {len(allowed_domains) - 5} more" if len(allowed_domains) > 5 else "")
    places = [("start_url", spec.start_url, "start on one of them")]
    places += [(f"{where}.url", step.url, "go to a page on one of them (a path such as /login stays on the "
                "start URL's site)") for where, step, _ in flow.walk(spec.steps) if isinstance(step, GotoStep)]
    for field, url, instead in places:
        host = _fixed_host(url or "")
        if host and not egress.domain_allowed(host, allowed_domains):
            fields.setdefault(field, []).append(
                f"Goes to {host}, which is not among the allowed domains ({listed}): add it there, or {instead}.")


def _fixed_host(url: str) -> str | None:
    """The host of an absolute http(s) URL in canonical form; None for a relative one, one whose
    host a parameter fills, or one that is malformed (`web_url_problem` reports that)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in WEB_SCHEMES or not host or "{" in parts.netloc.rpartition("@")[2]:
        return None
    try:
        return egress.domain_normalize(host)
    except ValueError:
        return None


def credential_fields_problem(names: Any) -> str | None:
    """Field names go into `{{credentials.NAME.FIELD}}`: letters, digits, `_` and `-` only."""
    bad = [str(n) for n in names if not (isinstance(n, str) and CREDENTIAL_FIELD_RE.fullmatch(n))]
    if bad:
        shown = ", ".join(repr(n) for n in bad)
        return (f"Field names use letters, digits, '_' and '-' only (no dots or spaces, at most 64 "
                f"characters): {shown}")
    return None


def credential_fields_repeated_problem(names: list[str]) -> str | None:
    """A form gives field names one by one: a name given twice would keep one of its values
    unseen (a credential holds one value per name), so it is refused by name."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        shown = ", ".join(repr(n) for n in repeated)
        return (f"Each field name may be given once: {shown} {'is' if len(repeated) == 1 else 'are'} given more "
                "than once. Rename one, or remove it.")
    return None


def credential_totp_problem(fields: dict[str, str]) -> str | None:
    """A `totp` field must hold a TOTP secret (base32, or the otpauth:// address of the QR code);
    the message says what is wrong without repeating the value."""
    if TOTP_FIELD not in fields:
        return None
    try:
        normalise_secret(fields[TOTP_FIELD])
    except TotpSecretError as exc:
        return str(exc)
    return None


def sign_in_problems(spec: AutomationSpec, *, allowed_domains: list[str], credentials: dict[str, Any],
                     fields: dict[str, list[str]]) -> dict[str, Any]:
    """Check the persistent-login block (steps marked `sign_in` and the `sign_in` section) and
    return the section in stored form, with its credential and domain made explicit ({} when the
    automation has none). Problems go to `fields` ("sign_in", "sign_in.domain", "steps.N.sign_in").
    `credentials`: the automation's credentials that exist, by name (objects with `domains`)."""
    positions = spec.sign_in_positions()
    if spec.sign_in is None:
        if positions:
            fields["sign_in"] = ["Say how a run can tell it is signed in (a text such as \"Sign out\", or a URL "
                                 "condition), so a saved session can be checked before the sign-in steps are skipped."]
        return {}
    if not positions:
        fields.setdefault("sign_in", []).append("Mark the steps that sign in (sign_in: true on each).")
        return {}
    gaps = [i for i in range(positions[0], positions[-1] + 1) if i not in positions]
    for index in gaps:
        fields.setdefault(f"steps.{index}.sign_in", []).append(
            "The sign-in steps must follow each other: mark this step too, or move it out of the block.")
    credential = sign_in_credential(spec)
    if not credential:
        fields.setdefault("sign_in.credential", []).append(
            "Name the credential the sign-in steps use (they type none, or several).")
    elif credential not in credentials:
        fields.setdefault("sign_in.credential", []).append(
            f"{credential!r} is not one of this automation's credentials.")
    domain = sign_in_domain(spec)
    if not domain or "{" in domain:
        fields.setdefault("sign_in.domain", []).append(
            "Give the domain the session belongs to (the start URL has no fixed host).")
        return {}
    try:
        domain = egress.domain_normalize(domain)
    except ValueError as exc:
        fields.setdefault("sign_in.domain", []).append(str(exc))
        return {}
    if not egress.domain_allowed(domain, allowed_domains):
        fields.setdefault("sign_in.domain", []).append(f"{domain} is not among the allowed domains.")
    cred = credentials.get(credential)
    if cred is not None and cred.domains and not egress.domain_allowed(domain, cred.domains):
        fields.setdefault("sign_in.domain", []).append(
            f"The credential {credential!r} may not be used on {domain} (its domains: {', '.join(cred.domains)}).")
    return {**spec.sign_in.model_dump(mode="json", exclude_none=True), "credential": credential, "domain": domain}
