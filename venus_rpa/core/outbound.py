"""Requests the platform sends to user-supplied URLs (run callbacks, review notifications).

One set of rules for all of them: http(s) only; the destination must be a public address unless
VENUS_EGRESS_ALLOW_PRIVATE lists it (`workers.egress`); the connection goes to the address that
was judged (no second DNS answer); no proxy from the environment; redirects are never followed
(a 3xx is a failed attempt); a bounded timeout; the receiver's answer body is never read or kept.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit

import httpx
from django.conf import settings

from venus_rpa.core.errors import InvalidInput
from workers import egress

URL_MAX = 2000
REASON_CHARS = 200  # an attempt's recorded reason: short, and never the answer body


def allow_private() -> egress.PrivateAllowList:
    return egress.PrivateAllowList.parse(settings.VENUS_EGRESS_ALLOW_PRIVATE)


def outbound_url_check(url: str, *, field: str, invalid: str, refused: str, userinfo: bool = True) -> str:
    """The URL if requests may be sent there, else InvalidInput on `field` (`invalid`: the message
    for a malformed URL, `refused`: for a forbidden destination). Well formed: at most URL_MAX
    characters, no space or control character anywhere (the URL parser would drop a tab or line
    break unseen), http(s), a port in range, and a host that is an IP address or a host name
    (`egress.host_name_valid`: "exa mple.com" or "*.example.com" is none). A name that does not
    resolve now is accepted: every attempt checks it again before connecting. `userinfo=False`
    also refuses credentials in the URL (`user:pass@`)."""
    def bad(problem: str) -> InvalidInput:
        return InvalidInput(invalid, fields={field: [problem]})

    if len(url) > URL_MAX:
        raise bad(f"Must be at most {URL_MAX} characters (this one has {len(url):,}).")
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in url):
        raise bad("Must not contain spaces or control characters (write a space in the path as %20).")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError on a port out of range
    except ValueError as exc:
        problem = "The port is not a number between 0 and 65535." if "port" in str(exc).lower() else (
            "The host is not a valid IPv6 address in brackets, such as https://[2001:db8::1]/.")
        raise bad(problem) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise bad("Must be an http:// or https:// URL.")
    if not egress.host_name_valid(parts.hostname):
        raise bad(f"{parts.hostname[:100]!r} is not a host name such as example.com, or an IP address.")
    if not userinfo and "@" in parts.netloc:
        raise bad("Must not contain a user name or password before the host.")
    try:
        host, port = egress.url_destination(url)
        egress.destination_check(host, port, allow=allow_private())
    except egress.EgressRefused as exc:
        if not exc.unresolved:
            raise InvalidInput(refused, fields={field: [str(exc)]}) from None
    return url


def outbound_pinned(url: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """(URL with the checked address in place of the name, Host header, httpx extensions) so the
    connection goes to the address that was judged: a second DNS answer (rebinding) cannot differ.
    EgressRefused when the destination is not allowed."""
    host, port = egress.url_destination(url)
    address = egress.destination_check(host, port, allow=allow_private())
    parts = urlsplit(url)
    shown = f"[{address}]" if ":" in address else address
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (f"{userinfo}@" if userinfo else "") + shown + (f":{parts.port}" if parts.port else "")
    host_header = parts.netloc.rpartition("@")[2]
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return parts._replace(netloc=netloc).geturl(), {"Host": host_header}, extensions


def outbound_post(url: str, *, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """One POST under the rules above; (status code or None, error text or "" on a 2xx)."""
    try:
        pinned, host_header, extensions = outbound_pinned(url)
    except egress.EgressRefused as exc:
        return None, f"refused: {exc}"[:REASON_CHARS]
    try:  # no proxy from the environment: the connection must go to the address just checked
        with httpx.Client(trust_env=False, timeout=timeout, follow_redirects=False) as client:
            with client.stream("POST", pinned, content=body, headers={**headers, **host_header},
                               extensions=extensions) as response:
                status, phrase = response.status_code, response.reason_phrase
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return None, f"{type(exc).__name__}: {exc}"[:REASON_CHARS]
    if 200 <= status < 300:
        return status, ""
    if 300 <= status < 400:
        return status, f"HTTP {status} {phrase}: redirects are not followed"[:REASON_CHARS]
    return status, f"HTTP {status} {phrase}"[:REASON_CHARS]
