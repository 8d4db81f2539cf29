"""Server-side validation for the two expense form steps.

Plain functions (not Django forms) keep the exact error texts that automations and
tests look for in one obvious place.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import PurePath

from django.core.files.uploadedfile import UploadedFile

CATEGORIES = ("Travel", "Meals", "Lodging", "Office supplies", "Other")
RECEIPT_EXTENSIONS = (".pdf", ".png", ".jpg", ".jpeg", ".txt")
TITLE_MAX = 200
NOTES_MAX = 2000

_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")

Errors = dict[str, str]


def clean_details(data: Mapping[str, str]) -> tuple[dict[str, str], Errors]:
    """Validate step 1 (title, amount, date, category); return normalised values and errors."""
    values = {key: (data.get(key) or "").strip() for key in ("title", "amount", "date", "category")}
    errors: Errors = {}

    if not values["title"]:
        errors["title"] = "Title is required."
    elif len(values["title"]) > TITLE_MAX:
        errors["title"] = f"Title must be at most {TITLE_MAX} characters."

    amount_error, amount = _clean_amount(values["amount"])
    if amount_error:
        errors["amount"] = amount_error
    else:
        values["amount"] = amount

    date_error = _check_date(values["date"])
    if date_error:
        errors["date"] = date_error

    if not values["category"]:
        errors["category"] = "Choose a category."
    elif values["category"] not in CATEGORIES:
        errors["category"] = "Choose a valid category."

    return values, errors


def _clean_amount(raw: str) -> tuple[str | None, str]:
    """Return (error, amount normalised to 2 decimals)."""
    if not raw:
        return "Amount is required.", raw
    if not _NUMBER.match(raw) or Decimal(raw) <= 0:
        return "Amount must be a positive number.", raw
    if "." in raw and len(raw.split(".", 1)[1]) > 2:
        return "Amount can have at most 2 decimal places.", raw
    return None, str(Decimal(raw).quantize(Decimal("0.01")))


def _check_date(raw: str) -> str | None:
    """Return an error for a missing, malformed or future date."""
    if not raw:
        return "Date is required."
    try:
        # fromisoformat also accepts forms like 20240101; insist on YYYY-MM-DD.
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
            raise ValueError(raw)
        value = dt.date.fromisoformat(raw)
    except ValueError:
        return "Date must be a valid date (YYYY-MM-DD)."
    # Local date of the server process: the browser and tests run on the same machine.
    if value > dt.date.today():
        return "Date cannot be in the future."
    return None


def clean_confirmation(
    data: Mapping[str, str], receipt: UploadedFile | None, max_bytes: int
) -> tuple[dict[str, str], Errors]:
    """Validate step 2 (receipt, notes, confirmation checkbox)."""
    notes = (data.get("notes") or "").strip()
    errors: Errors = {}

    if receipt is None or not receipt.name:
        errors["receipt"] = "Receipt is required."
    elif PurePath(receipt.name).suffix.lower() not in RECEIPT_EXTENSIONS:
        errors["receipt"] = "Receipt must be a PDF, PNG, JPG or TXT file."
    elif not receipt.size:
        errors["receipt"] = "Receipt file is empty."
    elif receipt.size > max_bytes:
        errors["receipt"] = f"Receipt must be {max_bytes // (1024 * 1024)} MB or smaller."

    if len(notes) > NOTES_MAX:
        errors["notes"] = f"Notes must be at most {NOTES_MAX} characters."

    if not data.get("confirm"):
        errors["confirm"] = "You must confirm this expense is accurate."

    return {"notes": notes}, errors


USERNAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,30}$")
EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
PASSWORD_MIN = 8


def clean_registration(data: Mapping[str, str]) -> tuple[dict[str, str], Errors]:
    """Validate the registration form (username, email, password, confirm_password)."""
    values = {key: (data.get(key) or "").strip() for key in ("username", "email")}
    password = data.get("password") or ""
    confirm = data.get("confirm_password") or ""
    errors: Errors = {}

    if not values["username"]:
        errors["username"] = "Username is required."
    elif not USERNAME_PATTERN.match(values["username"]):
        errors["username"] = "Username must be 3-30 letters, digits, dots, dashes or underscores."

    if not values["email"]:
        errors["email"] = "Email is required."
    elif not EMAIL_PATTERN.match(values["email"]) or len(values["email"]) > 254:
        errors["email"] = "Enter a valid email address."

    if not password:
        errors["password"] = "Password is required."
    elif len(password) < PASSWORD_MIN:
        errors["password"] = f"Password must be at least {PASSWORD_MIN} characters."

    if not errors.get("password") and confirm != password:
        errors["confirm_password"] = "Passwords do not match."

    values["password"] = password
    return values, errors
