"""Egress policy: which hosts a run's browser and the server's callbacks may reach.

Pure Python (no Django, no Playwright), shared by the browser guard (workers/envs/egress_proxy.py)
and outbound callbacks (venus_rpa/triggers/services/callbacks.py).

Two independent rules:
- allowed domains: a run's pages may only be documents of the automation's `allowed_domains`
  (a domain covers its subdomains; an IP address or `localhost` only covers itself).
- public addresses only: a host whose name or any resolved address is loopback, private,
  link-local, cloud metadata or otherwise not globally routable is refused, unless the operator
  lists it (VENUS_EGRESS_ALLOW_PRIVATE: hosts, IP addresses or CIDR networks, each optionally
  with `:port`). Names are resolved and *every* address is checked, so a public-looking name
  that resolves to 10.0.0.5 is refused; callers connect to the returned (pinned) address.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# (host, port) -> addresses as strings; raises OSError when the name does not resolve.
Resolver = Callable[[str, int], list[str]]

METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254",
))
SETTING = "VENUS_EGRESS_ALLOW_PRIVATE"
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


class EgressRefused(Exception):
    """A destination the policy refuses; the message is meant for the user."""

    def __init__(self, message: str, *, host: str = "", unresolved: bool = False) -> None:
        super().__init__(message)
        self.host = host
        self.unresolved = unresolved  # the name did not resolve (now): nothing was judged


def system_resolve(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for host (IPv4 and IPv6), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


# Replaced in tests by a stub resolver, so no test sends a DNS query off the machine.
resolve: Resolver = system_resolve


def ip_literal(host: str) -> IPAddress | None:
    """The address if host is an IP literal ("[::1]", "::1", "127.0.0.1", and the forms browsers
    and resolvers also read as IPv4: "2130706433", "0x7f000001", "127.1"), else None."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fx.]+", host.lower()) and not host.endswith(".."):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host.rstrip(".")))
        except OSError:
            return None
    return None


def address_kind(ip: IPAddress) -> str | None:
    """Why ip is not a public address ("loopback", "private", "link-local", "metadata",
    "non-public"), or None when it is one a run may reach."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in METADATA_ADDRESSES:
        return "metadata"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified or ip.is_multicast or ip.is_reserved:
        return "non-public"
    if ip.is_private:
        return "private"
    return None if ip.is_global else "non-public"


def domain_allowed(host: str, domains: Iterable[str]) -> bool:
    """True if host is one of domains or a subdomain of a domain name among them. IP
    addresses match only themselves ("127.0.0.1" is not "localhost", "0.1" does not cover it)."""
    host = host.lower().strip("[]").rstrip(".")
    host_ip = ip_literal(host)
    for entry in domains:
        domain = entry.lower().strip().removeprefix("*.").strip("[]").rstrip(".")
        if not domain:
            continue
        entry_ip = ip_literal(domain)
        if host_ip is not None or entry_ip is not None:
            if host_ip is not None and entry_ip is not None and host_ip == entry_ip:
                return True
            continue
        if host == domain or host.endswith("." + domain):
            return True
    return False


def host_name_valid(host: str) -> bool:
    """True if host (a URL's host, as `urlsplit(...).hostname` gives it) is an IP address or a
    host name: dot-separated labels of letters, digits and hyphens (other letters through IDNA),
    no wildcard, no space."""
    if ip_literal(host) is not None:
        return True
    try:
        ascii_name = host.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return False
    return bool(ascii_name) and all(_LABEL.match(label) for label in ascii_name.split("."))


def domain_normalize(entry: str) -> str:
    """An allowed-domains entry in canonical form; ValueError with a user-facing reason when it
    is not a host name or IP address ("example.com", "*.example.com", "10.0.0.1")."""
    value = entry.strip().lower().rstrip(".")
    if "://" in value or "/" in value:
        raise ValueError(f"{entry!r} is a URL: enter only its host, such as {urlsplit(value).hostname or 'example.com'}")
    ip = ip_literal(value)
    if ip is not None:
        return str(ip)
    name = value.removeprefix("*.")
    try:
        ascii_name = name.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_name = ""
    if not ascii_name or not all(_LABEL.match(label) for label in ascii_name.split(".")):
        raise ValueError(f"{entry!r} is not a host name such as example.com")
    return ascii_name


@dataclass(frozen=True)
class _Rule:
    name: str = ""
    network: Network | None = None
    port: int | None = None

    def covers(self, *, host: str, port: int, ip: IPAddress | None) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            return ip is not None and ip in self.network
        return host == self.name


@dataclass(frozen=True)
class PrivateAllowList:
    """The operator's exceptions to "public addresses only"."""

    rules: tuple[_Rule, ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, entries: Iterable[str]) -> PrivateAllowList:
        """Entries: "127.0.0.1", "10.0.0.0/8", "::1", "[::1]:8001", "127.0.0.1:8001",
        "practice.internal", "practice.internal:8001". ValueError on a malformed one."""
        return cls(tuple(_rule(entry.strip()) for entry in entries if entry.strip()))

    def allows_name(self, host: str, port: int) -> bool:
        host = host.lower().rstrip(".")
        return any(rule.covers(host=host, port=port, ip=None) for rule in self.rules if rule.network is None)

    def allows_address(self, ip: IPAddress, port: int) -> bool:
        return any(rule.covers(host="", port=port, ip=ip) for rule in self.rules if rule.network is not None)


def _rule(entry: str) -> _Rule:
    host, port = entry, None
    match = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?|([^:]+):(\d+)", entry)
    if match:
        host, port_text = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        port = int(port_text) if port_text else None
    try:
        return _Rule(network=ipaddress.ip_network(host, strict=False), port=port)
    except ValueError:
        pass
    try:
        return _Rule(name=domain_normalize(host), port=port)
    except ValueError:
        raise ValueError(f"{SETTING}: {entry!r} is not a host, IP address or CIDR network") from None


def destination_check(host: str, port: int, *, allow: PrivateAllowList,
                      resolver: Resolver | None = None) -> str:
    """Resolve host and return the address to connect to (pinned: connect to it, not to the name,
    so a second DNS answer cannot differ). EgressRefused when the host does not resolve or any of
    its addresses is not public and not allowed by the operator."""
    host = host.lower().strip("[]").rstrip(".")
    if not host:
        raise EgressRefused("the address has no host", host=host)
    literal = ip_literal(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = [ipaddress.ip_address(a.split("%")[0]) for a in (resolver or resolve)(host, port)]
        except (OSError, UnicodeError, ValueError):
            raise EgressRefused(f"{host} could not be resolved", host=host, unresolved=True) from None
        if not addresses:
            raise EgressRefused(f"{host} could not be resolved", host=host, unresolved=True)
        if host == "localhost" or host.endswith(".localhost"):  # browsers map these to loopback themselves
            addresses.append(ipaddress.ip_address("127.0.0.1"))
    if literal is None and allow.allows_name(host, port):
        return str(addresses[0])
    for ip in addresses:
        kind = address_kind(ip)
        if kind is not None and not allow.allows_address(ip, port):
            shown = host if literal is not None else f"{host} ({ip})"
            raise EgressRefused(
                f"{shown} is a {kind} address; loopback, private, link-local and metadata addresses "
                f"may not be reached unless the operator lists them in {SETTING}", host=host)
    return str(addresses[0])


def url_destination(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL; EgressRefused for another scheme or no host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EgressRefused(f"only http and https addresses can be reached, not {url[:80]!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise EgressRefused(f"{url[:80]!r} has an invalid port") from None
    return parts.hostname, port


def off_domain_message(host: str, domains: Iterable[str]) -> str:
    listed = ", ".join(domains) or "no domains (the automation lists none)"
    return f"the run may only visit {listed}; blocked navigation to {host}"


# -- JSON Schema references ------------------------------------------------------------------------

def schema_remote_refs(schema: object, where: str = "") -> list[tuple[str, str]]:
    """(location, reference) of every `$ref` / `$dynamicRef` that points outside the schema
    itself (anything not starting with "#"): such a schema is refused when it is saved."""
    found: list[tuple[str, str]] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            here = f"{where}.{key}" if where else key
            if key in ("$ref", "$dynamicRef") and isinstance(value, str) and not value.startswith("#"):
                found.append((here, value))
            elif key not in ("const", "enum", "default", "examples"):
                found += schema_remote_refs(value, here)
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            found += schema_remote_refs(item, f"{where}.{index}" if where else str(index))
    return found


def _refuse_retrieval(uri: str):
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


def no_fetch_registry():
    """A `referencing.Registry` for jsonschema validators that never retrieves a remote
    resource: an unknown `$ref` is an unresolvable reference error, never a network request."""
    from referencing import Registry

    return Registry(retrieve=_refuse_retrieval)


@dataclass(frozen=True)
class EgressDecision:
    allowed: bool
    reason: str = ""
    address: str = ""  # the checked address to connect to, when allowed


@dataclass(frozen=True)
class EgressPolicy:
    """Both rules for one run, as one decision per URL (what the browser guard enforces for a
    page's navigations): http(s) only, on the allowed domains, public or operator-listed."""

    allowed_domains: list[str]
    operator_allow: list[str] = field(default_factory=list)

    def check_url(self, url: str, *, resolve: Callable[[str], list[str]] | None = None) -> EgressDecision:
        """`resolve(host)` replaces the system resolver (tests, benchmarks)."""
        try:
            host, port = url_destination(url)
            if not domain_allowed(host, self.allowed_domains):
                raise EgressRefused(off_domain_message(host, self.allowed_domains), host=host)
            resolver = (lambda name, _port: resolve(name)) if resolve is not None else None
            address = destination_check(host, port, allow=PrivateAllowList.parse(self.operator_allow),
                                        resolver=resolver)
        except EgressRefused as exc:
            return EgressDecision(False, str(exc))
        return EgressDecision(True, address=address)
