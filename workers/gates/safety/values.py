"""Detectors for typed values and field kinds: card numbers (Luhn), one-time codes, passwords,
API keys, personal data, amounts. Pure functions over strings; nothing here keeps a value.
"""

from __future__ import annotations

import re

from workers.templating import SECRET_RE

_DIGIT_RUN = re.compile(r"(?<![\d])(?:\d[ -]?){12,18}\d(?![\d])")
# Issuer prefixes: Visa, Mastercard, Amex, Discover, JCB, UnionPay, Diners, Maestro.
_IIN = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|6011|64[4-9]|65|35|62|30[0-5]|36|38|50|56|57|58|6[37])")
# Every repeat is bounded: these scan values and page text anyone may make long, and an unbounded
# repeat tried at each start of a long run costs its length squared (a 20,000-character value
# took 11 s and held the worker's threads). The bounds are far above any real value's.
_SECRET_PATTERNS = [
    ("api_key", re.compile(r"\bsk[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9]{20,512}")),
    ("aws_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b|\bgithub_pat_[A-Za-z0-9_]{40,255}")),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,255}")),
    ("google_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("private_key", re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----")),
    # A JWT's header can carry a key or a certificate chain (DPoP proofs, Apple's JWS: kilobytes),
    # so its parts are not bounded; instead a match starts only where a run of token characters
    # starts and never gives characters back (possessive), so each run is read once.
    ("jwt", re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}+\.eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+")),
]
_CN_ID = re.compile(r"(?<!\d)[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\d)")
_PHONE = re.compile(r"(?<!\d)(?:\+?86[ -]?)?1[3-9]\d{9}(?!\d)|\+\d{1,3}[ -]?\(?\d{2,4}\)?[ -]?\d{3,4}[ -]?\d{3,4}")
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,253}")  # RFC 5321 lengths
_AMOUNT = re.compile(
    r"(?:[$€£¥₹]|usd|eur|gbp|cny|rmb|us \$)\s?(\d[\d,]{0,24}(?:\.\d{1,8})?)|(\d[\d,]{0,24}(?:\.\d{1,8})?)\s?(?:元|usd|eur|gbp|cny|rmb|dollars)")
_OTP_VALUE = re.compile(r"^\s*[A-Za-z0-9]{4,8}\s*$")


def luhn_ok(digits: str) -> bool:
    """The Luhn check digit of a string of digits holds."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_numbers(text: str) -> list[str]:
    """Payment card numbers in text: 13-19 digits (spaces or dashes allowed), a known issuer
    prefix and a valid Luhn digit. Chinese ID numbers are not cards."""
    found = []
    for m in _DIGIT_RUN.finditer(text or ""):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _IIN.match(digits) and luhn_ok(digits) and len(set(digits)) > 1:
            if not (len(digits) == 18 and _CN_ID.fullmatch(digits)):
                found.append(digits)
    return found


def secrets_in(text: str) -> list[tuple[str, str]]:
    """(kind, masked value) for API keys, tokens and private keys in text."""
    return [(kind, mask(m.group(0))) for kind, rx in _SECRET_PATTERNS for m in rx.finditer(text or "")]


def personal_data(text: str) -> list[str]:
    """Kinds of personal data in text: cn_id, phone, email."""
    kinds = []
    if _CN_ID.search(text or ""):
        kinds.append("cn_id")
    if _PHONE.search(text or ""):
        kinds.append("phone")
    if _EMAIL.search(text or ""):
        kinds.append("email")
    return kinds


OTP_PLACEHOLDER = re.compile(r"\{\{\s*t?otp\s*\}\}")  # the executor types the current one-time code


def looks_like_otp(value: str) -> bool:
    return bool(_OTP_VALUE.match(value or "")) and any(ch.isdigit() for ch in value)


def has_placeholder(text: str) -> bool:
    """True if text holds a `{{credentials.NAME.FIELD}}` placeholder (substituted by the executor)."""
    return bool(SECRET_RE.search(text or ""))


def amounts(text: str) -> list[float]:
    """Money amounts written with a currency in normalised text."""
    out = []
    for m in _AMOUNT.finditer(text or ""):
        raw = (m.group(1) or m.group(2) or "").replace(",", "")
        try:
            out.append(float(raw))
        except ValueError:
            continue
    return out


def mask(value: str) -> str:
    """A value safe for evidence: the first 4 characters, then its length."""
    value = value.strip()
    return value[:4] + f"…({len(value)} chars)" if len(value) > 6 else "•" * len(value)


def mask_card(digits: str) -> str:
    return f"•••• {digits[-4:]}"
