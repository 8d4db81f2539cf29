"""Addresses: scope (allowed domains), look-alike origins, downloads and data in URLs."""

from __future__ import annotations

import re
from urllib.parse import unquote, urljoin, urlsplit

from workers.gates.safety import values
from workers.egress import domain_allowed

EXECUTABLE = (".exe", ".msi", ".dmg", ".pkg", ".apk", ".deb", ".rpm", ".sh", ".bat", ".cmd", ".ps1", ".appimage", ".jar",
              ".scr", ".vbs", ".msix", ".appx", ".run", ".xpi", ".crx", ".ipa")
ARCHIVE = (".zip", ".rar", ".7z", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".iso", ".img")
# Sites whose logins are commonly imitated; used for look-alike checks when an automation lists no domains.
BRANDS = ("paypal.com", "google.com", "apple.com", "microsoft.com", "microsoftonline.com", "amazon.com", "facebook.com",
          "github.com", "taobao.com", "tmall.com", "alipay.com", "jd.com", "qq.com", "icloud.com", "outlook.com", "live.com",
          "okta.com", "chase.com", "bankofamerica.com", "wellsfargo.com", "dropbox.com", "linkedin.com", "netflix.com",
          "baidu.com", "aliyun.com", "dingtalk.com", "feishu.cn", "163.com", "icbc.com.cn", "weibo.com", "coinbase.com")
_SECOND_LEVEL = {"com", "net", "org", "gov", "edu", "co", "ac", "or", "ne", "go"}
_GLYPHS = str.maketrans({"0": "o", "1": "l", "3": "e", "5": "s", "@": "a", "$": "s"})
_BLOB = re.compile(r"[A-Za-z0-9+/_=-]{40,}")


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def resolve(href: str, base: str) -> str:
    """An absolute address for a link's href (relative hrefs resolve against the page URL)."""
    if not href or href.startswith(("javascript:", "#")):
        return ""
    try:
        return urljoin(base, href) if base else href
    except ValueError:
        return href


def in_scope(host: str, domains: list[str]) -> bool:
    return bool(host) and domain_allowed(host, domains)


def registrable(host: str) -> str:
    """example.co.uk / shop.example.com -> the registrable part, without a public suffix list."""
    labels = host.split(".")
    if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _distance(a: str, b: str) -> int:
    if abs(len(a) - len(b)) > 1:
        return 2
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def lookalike_of(host: str, domains: list[str] | tuple[str, ...]) -> str | None:
    """The domain that `host` imitates (contains it, carries its name, or spells it with
    swapped glyphs), or None. A host that is the domain or its subdomain is not a look-alike."""
    if not host:
        return None
    tokens = set(re.split(r"[.-]", host))
    own = registrable(host)
    own_name = own.split(".")[0]
    for domain in domains:
        domain = domain.lower().strip().lstrip("*.")
        if not domain or domain_allowed(host, [domain]):
            continue
        name = registrable(domain).split(".")[0]
        if domain in host or (len(name) >= 4 and name in tokens and own != registrable(domain)):
            return domain
        if len(name) >= 5 and (own_name.translate(_GLYPHS).replace("rn", "m").replace("vv", "w") == name
                               or _distance(own_name, name) == 1):
            return domain
        if host.startswith("xn--") or ".xn--" in host:
            return domain
    return None


def download_kind(url: str) -> str | None:
    """'executable' or 'archive' when the address names such a file."""
    path = urlsplit(url).path.lower() if url else ""
    if path.endswith(EXECUTABLE):
        return "executable"
    if path.endswith(ARCHIVE):
        return "archive"
    return None


def carried_data(url: str) -> str | None:
    """Why a composed address looks like it carries data out: a long query, an encoded blob,
    personal data or a secret in the query or fragment. None when it does not."""
    parts = urlsplit(url)
    payload = unquote(parts.query + " " + parts.fragment)
    if values.secrets_in(payload):
        return "a secret in the address"
    if values.card_numbers(payload):
        return "a card number in the address"
    if values.personal_data(payload):
        return "personal data in the address"
    if _BLOB.search(parts.query):
        return "an encoded blob in the query"
    if len(parts.query) > 300:
        return "a long composed query"
    return None
