"""What a form with a filled password field does when it is submitted, read from the form's
structure rather than from its button's wording (issue 12: works on apps nobody here wrote).

A submit whose form holds a filled password field is a credential act in any UI language:

- a current (or old) password beside a new one, or two passwords one of which is current: it
  changes the account's password (SEC);
- a new password (autocomplete="new-password", or a password and its confirmation) beside an
  identity field (e-mail, user name, phone): it creates an account (ACCT); without an identity
  field it sets a new password (SEC: a reset);
- a single password (current, or unmarked): it signs in (AUTH), and the sign-in origin checks
  apply as to any sign-in.

The button's own label still wins when it says more (a "Delete my account" confirmed by the
password stays ACCT); a control that only dismisses, shows or hides is never read this way, and
neither is a plain `type="button"` or `type="reset"` control, which submits nothing.
"""

from __future__ import annotations

import re

from workers.gates.safety.context import FormField
from workers.gates.safety.text import norm

# "Old" / "current" and "new" in the 29 lexicon languages, as field labels say them.
_OLD = re.compile(
    r"\b(?:old|current|existing|actuel\w*|ancien\w*|alte[snr]?|aktuell\w*|bisherig\w*|actual|anterior|antigu\w*|attuale|vecchi\w*|"
    r"atual|antig\w*|huidig\w*|oud\w*|stare|obecne|aktualne|текущ\w*|стар\w*|поточн\w*|mevcut|eski|nuvarande|gammal\w*|"
    r"současn\w*|původní|staré|nuværende|gamle|nåværende|nykyi\w*|vanha\w*|jelenlegi|régi|curent\w*|vechi\w*|τρέχ\w*|παλι\w*|"
    r"الحالية|القديمة|הנוכחית|הישנה|वर्तमान|पुराना|saat ini|lama|hiện tại|cũ|semasa)\b|"
    r"旧|現在の|当前|目前|原密码|현재|기존|ปัจจุบัน|เดิม")
_NEW = re.compile(
    r"\b(?:new|neue[snr]?|nouveau|nouvelle|nuev[oa]|nuov[oa]|nov[oa]|nieuw\w*|now\w*|нов\w*|yeni|ny|nytt|nya|uusi|új|"
    r"nou[ăa]?|νέ\w*|جديد\w*|חדש\w*|नया|नई|baru|mới)\b|新|새|ใหม่")
_CONFIRM = re.compile(
    r"\b(?:confirm\w*|repeat|again|retype|re-enter|bestätig\w*|wiederhol\w*|répét\w*|ripet\w*|repet\w*|herhaal\w*|"
    r"bevestig\w*|powtórz\w*|potwierd\w*|подтвер\w*|повтор\w*|підтвер\w*|tekrar\w*|doğrula\w*|bekräfta|upprepa|potvr\w*|"
    r"zopakuj\w*|bekræft\w*|gentag|bekreft\w*|gjenta|vahvist\w*|toista|megerősít\w*|ismét|επιβεβαί\w*|επανάλη\w*|"
    r"تأكيد|אימות|אישור|पुष्टि|konfirmasi|ulangi|xác nhận|nhập lại|sahkan)\b|确认|確認|再次|재입력|확인|ยืนยัน")
_IDENTITY = re.compile(r"^(?:email|tel|text|)$")
_NOT_A_SUBMIT = ("button", "reset", "checkbox", "radio", "file", "hidden")


def _is_password(f: FormField) -> bool:
    return f.input_type.lower() == "password" or f.autocomplete.lower() in ("current-password", "new-password")


def reading(fields: list[FormField], input_type: str = "") -> tuple[str, str] | None:
    """(category, reason) for a submit of a form with a filled password field, else None."""
    if input_type.lower() in _NOT_A_SUBMIT:
        return None
    passwords = [f for f in fields if f.filled and _is_password(f)]
    if not passwords:
        return None
    label = lambda f: norm(f"{f.label} {f.name}")  # noqa: E731
    current = [f for f in passwords if f.autocomplete.lower() == "current-password" or _OLD.search(label(f))]
    new = [f for f in passwords if f not in current and (f.autocomplete.lower() == "new-password" or _NEW.search(label(f))
                                                         or _CONFIRM.search(label(f)))]
    if current and (new or len(passwords) >= 2):
        return "SEC", "It submits a form with the current password and a new one: it changes the account's password."
    identity = [f for f in fields if f.filled and not _is_password(f) and _IDENTITY.match(f.input_type.lower())
                and f.autocomplete.lower() != "one-time-code"]
    if new or len(passwords) >= 2:
        if identity:
            return "ACCT", "It submits a form with an identity and a new password: it creates an account."
        return "SEC", "It submits a form that sets a new password."
    return "AUTH", "It submits a form with a filled password: it signs in."
