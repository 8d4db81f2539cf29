"""Secret substitution at typing time, and the one scrubber for everything that leaves the runtime.

The runtime carries `{{credentials.NAME.FIELD}}` placeholders everywhere (steps, records, model
messages). Only `SecretBox.reveal` turns them into values, right before a keystroke, and only on
the credential's own domains.

Every string that leaves the runtime (step URL, error, output, verdict, review title, callback
body, log line) goes through `SecretBox.scrub` / `scrub_data`, which use one `Scrubber`:

- a secret of 3 or more characters is masked wherever it appears whole, and its URL-encoded
  (`quote`, `quote_plus`) and base64 forms (standard and URL-safe, at every byte alignment, so it
  is found inside a longer encoded string, e.g. a Basic auth header) too; 1-2 character values are
  not secrets in any useful sense and are left alone (masking every "a" would garble all text);
- any 4-character run of a secret of 4+ characters is masked too (`fragments=True`, the
  default), so a secret read out in pieces (two `extract` patterns, a truncated error, a URL)
  does not leave in pieces of 4 or more: step URLs, errors, outputs, verdicts, review titles,
  callback bodies and logs.

Fragment masking also hits ordinary text that shares 4 characters with a secret
("demo-password" masks "word"). Text that only describes what the platform saw and did — the
model's thoughts, the safety gate's reasons, grounding notes — is scrubbed with
`fragments=False` (whole values and encoded forms only) so it stays readable; a whole secret
never appears there either, and screenshots (the model's only view of the page) are masked.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

from workers import totp
from workers.egress import domain_allowed
from workers.errors import StepError
from workers.templating import SECRET_RE

MASK = "••••"
FRAGMENT = 4  # secrets this long or longer are masked by any fragment of this many characters
WHOLE_ONLY = 3  # shorter secrets (down to this) are masked whole only; shorter still, not at all


# Identifiers, not secrets: shown on pages anyway (a signed-in name, a cardholder). They are not
# scrubbed, and a fragment of a secret that also occurs in one of them ("demo" of the password
# "demo-password" for the user "demo") is not masked on its own either.
PUBLIC_FIELDS = {"username", "user", "login", "email", "account", "name", "holder", "cardholder"}


def _url_forms(value: str) -> set[str]:
    """Percent-encoded forms of value (upper- and lower-case hex), without value itself."""
    forms = {quote(value, safe=""), quote(value), quote_plus(value), quote_plus(value, safe="/")}
    forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in forms}
    return forms - {value}


def _base64_forms(value: str) -> set[str]:
    """The base64 characters that encode value alone, at each of the 3 byte alignments it can
    have inside a longer encoded string (standard and URL-safe alphabets), plus the padded form."""
    raw = value.encode()
    forms = {base64.b64encode(raw).decode()}
    for skip in range(3):
        start, end = -(-8 * skip // 6), 8 * (skip + len(raw)) // 6
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(b"\0" * skip + raw).decode()[start:end]
            if len(core) >= FRAGMENT:
                forms.add(core)
    return forms


class Scrubber:
    """Masks given secret values in text (see the module docstring for what counts as a leak)."""

    def __init__(self, values: Iterable[str], *, public: Iterable[str] = (), whole_only: Iterable[str] = ()) -> None:
        """`values`: the secrets. `public`: identifiers (usernames); a fragment of a secret that
        also occurs in one of them is not masked on its own (whole secrets still are).
        `whole_only`: short-lived secrets masked only whole (one-time codes: six digits whose
        fragments are any year or amount)."""
        self._whole: set[str] = {v for v in whole_only if v and len(v) >= WHOLE_ONLY}
        self._grams: set[str] = set()
        for value in {v for v in values if v and len(v) >= WHOLE_ONLY}:
            forms = {value} | _url_forms(value)
            self._whole |= forms | _base64_forms(value)
            if len(value) >= FRAGMENT:
                self._grams |= {f[i:i + FRAGMENT] for f in forms for i in range(len(f) - FRAGMENT + 1)}
        self._grams = {g for g in self._grams if not any(g in p for p in public)}

    def __bool__(self) -> bool:
        return bool(self._whole)

    def _covered(self, text: str, fragments: bool) -> bytearray:
        covered = bytearray(len(text))
        if fragments and self._grams:
            for i in range(len(text) - FRAGMENT + 1):
                if text[i:i + FRAGMENT] in self._grams:
                    covered[i:i + FRAGMENT] = b"\1" * FRAGMENT
            # A placeholder names a secret without holding it: "{{credentials.acme.password}}"
            # stays readable even when the secret shares "word" with it.
            for match in SECRET_RE.finditer(text):
                covered[match.start():match.end()] = bytes(match.end() - match.start())
        for needle in self._whole:
            at = text.find(needle)
            while at >= 0:
                covered[at:at + len(needle)] = b"\1" * len(needle)
                at = text.find(needle, at + 1)
        return covered

    def scrub(self, text: str, *, fragments: bool = True) -> str:
        """text with every leaked secret or encoded form (and, with `fragments`, every fragment)
        replaced by one MASK per run."""
        if not self._whole or not text:
            return text
        covered = self._covered(text, fragments)
        if not any(covered):
            return text
        out, i = [], 0
        while i < len(text):
            if covered[i]:
                while i < len(text) and covered[i]:
                    i += 1
                out.append(MASK)
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    def scrub_data(self, value: Any, *, fragments: bool = True) -> Any:
        """A copy of a JSON-like value with every string value scrubbed."""
        if isinstance(value, str):
            return self.scrub(value, fragments=fragments)
        if isinstance(value, dict):  # keys are the runtime's own names ("passed", "url"), not page text
            return {k: self.scrub_data(v, fragments=fragments) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.scrub_data(v, fragments=fragments) for v in value]
        return value

    def holds_whole(self, text: str) -> bool:
        """True if text holds a whole secret (or an encoded form of one)."""
        return any(needle in text for needle in self._whole)


@dataclass
class Credential:
    name: str
    fields: dict[str, str]
    domains: list[str] = field(default_factory=list)


@dataclass(eq=False)
class SecretBox:
    """Holds decrypted credentials for one run, in memory only.

    A credential's `totp` field is a TOTP secret: its placeholder types the current one-time code
    (`workers.totp`), computed at typing time. The codes typed during the run are remembered in
    memory only, so they are masked (whole) like every other vault value until the run ends."""

    credentials: dict[str, Credential] = field(default_factory=dict)
    # The automation's allowed domains (the guard's sign-in checks read them); a credential is
    # typed only on its own domains, and one without any is typed nowhere.
    default_domains: list[str] = field(default_factory=list)
    _scrubber: tuple[tuple, Scrubber] | None = field(default=None, repr=False)
    _codes: list[str] = field(default_factory=list, repr=False)

    def reveal(self, text: str, *, url: str) -> str:
        """Replace credential placeholders in text; refuse off-domain or unknown ones."""
        host = urlsplit(url).hostname or ""

        def sub(match) -> str:
            name, field_name = match.group(1), match.group(2)
            cred = self.credentials.get(name)
            if cred is None:
                raise StepError(f"credential {name!r} is not attached to this automation")
            if field_name not in cred.fields:
                raise StepError(f"credential {name!r} has no field {field_name!r}")
            domains = cred.domains
            if not domains:  # saved before domains were required: typed nowhere rather than anywhere
                raise StepError(f"credential {name!r} has no domains, so it may not be typed on any site: "
                                "set the domains it belongs to on the Credentials page")
            if not domain_allowed(host, domains):
                raise StepError(f"credential {name!r} may only be typed on {', '.join(domains)}, not on {host or url!r}")
            if field_name == totp.TOTP_FIELD:
                return self._one_time_code(name, cred.fields[field_name])
            return cred.fields[field_name]

        return SECRET_RE.sub(sub, text)

    def _one_time_code(self, name: str, secret: str) -> str:
        try:
            value = totp.code(secret)
        except totp.TotpSecretError as exc:
            raise StepError(f"credential {name!r}: its totp field is not a usable TOTP secret ({exc})") from None
        if value not in self._codes:
            self._codes.append(value)
        return value

    @staticmethod
    def has_placeholder(text: str) -> bool:
        """True if typing text would reveal a vault value (the field it goes into must be masked)."""
        return bool(SECRET_RE.search(text or ""))

    def values(self) -> list[str]:
        """Secret values: every field except identifiers such as the username (shown on pages
        anyway; masking them would garble ordinary text)."""
        return [v for cred in self.credentials.values() for k, v in cred.fields.items()
                if v and k.lower() not in PUBLIC_FIELDS]

    def public_values(self) -> list[str]:
        """Identifier values (usernames, cardholder names): not secrets."""
        return [v for cred in self.credentials.values() for k, v in cred.fields.items()
                if v and k.lower() in PUBLIC_FIELDS]

    @property
    def scrubber(self) -> Scrubber:
        """The scrubber for the current values (rebuilt if credentials change)."""
        key = (tuple(sorted(self.values())), tuple(sorted(self.public_values())), tuple(self._codes))
        if self._scrubber is None or self._scrubber[0] != key:
            self._scrubber = (key, Scrubber(key[0], public=key[1], whole_only=key[2]))
        return self._scrubber[1]

    def scrub(self, text: str, *, fragments: bool = True) -> str:
        """Remove any secret value or encoded form (with `fragments`: any fragment) from text before it leaves."""
        return self.scrubber.scrub(text, fragments=fragments)

    def scrub_data(self, value: Any, *, fragments: bool = True) -> Any:
        """A copy of a JSON-like value (output, verdict, action) with every string scrubbed."""
        return self.scrubber.scrub_data(value, fragments=fragments)

    def holds_secret(self, text: str) -> bool:
        """True if text holds a whole secret value (or an encoded form of one)."""
        return self.scrubber.holds_whole(text)


# -- logs ---------------------------------------------------------------------------------------
_active: dict[int, SecretBox] = {}
_active_lock = threading.Lock()
_installed = False


@contextlib.contextmanager
def scrubbing_logs(box: SecretBox) -> Iterator[None]:
    """While the block runs, every log record of this process is scrubbed of box's secrets
    (once `install_log_scrubbing` has run)."""
    with _active_lock:
        _active[id(box)] = box
    try:
        yield
    finally:
        with _active_lock:
            _active.pop(id(box), None)


def scrub_log_text(text: str) -> str:
    """text scrubbed of the secrets of every run in progress in this process."""
    with _active_lock:
        boxes = list(_active.values())
    for box in boxes:
        text = box.scrub(text)
    return text


def install_log_scrubbing() -> None:
    """Scrub every log record when it is created (message, arguments and traceback), whatever
    handlers and formatters are configured. Idempotent."""
    global _installed
    with _active_lock:
        if _installed:
            return
        _installed = True
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        if not _active:
            return record
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # bad arguments: the handler reports them when it formats the record
            return record
        scrubbed = scrub_log_text(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = scrub_log_text(logging.Formatter().formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
