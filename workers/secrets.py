"""Secret substitution at typing time.

The runtime carries `{{credentials.NAME.FIELD}}` placeholders everywhere (steps, records, model
messages). Only `SecretBox.reveal` turns them into values, right before a keystroke, and only on
the credential's own domains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from workers.errors import StepError
from workers.steps import SECRET_RE


def host_matches(host: str, domains: list[str]) -> bool:
    """True if host is one of domains or a subdomain of one ("example.com" covers "a.example.com")."""
    host = host.lower().rstrip(".")
    for domain in domains:
        domain = domain.lower().strip().lstrip("*.").rstrip(".")
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


PUBLIC_FIELDS = {"username", "user", "login", "email", "account"}


@dataclass
class Credential:
    name: str
    fields: dict[str, str]
    domains: list[str] = field(default_factory=list)


@dataclass
class SecretBox:
    """Holds decrypted credentials for one run, in memory only."""

    credentials: dict[str, Credential] = field(default_factory=dict)
    # Where a credential without domains of its own may be typed: the automation's allowed domains.
    default_domains: list[str] = field(default_factory=list)

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
            domains = cred.domains or self.default_domains
            if not domains:
                raise StepError(
                    f"credential {name!r} has no domains and the automation allows any site: set the credential's domains"
                )
            if not host_matches(host, domains):
                raise StepError(f"credential {name!r} may only be typed on {', '.join(domains)}, not on {host or url!r}")
            return cred.fields[field_name]

        return SECRET_RE.sub(sub, text)

    def values(self) -> list[str]:
        """Secret values: every field except identifiers such as the username (shown on pages
        anyway; masking them would garble ordinary text)."""
        return [v for cred in self.credentials.values() for k, v in cred.fields.items()
                if v and k.lower() not in PUBLIC_FIELDS]

    def scrub(self, text: str) -> str:
        """Remove any secret value that leaked into text (errors, page text) before it is stored."""
        for value in sorted(self.values(), key=len, reverse=True):
            if len(value) >= 3:
                text = text.replace(value, "••••")
        return text
