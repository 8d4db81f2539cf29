"""Small typed helpers that read settings from the environment.

Every setting of the project goes through one of these, so a missing or malformed value gives
one clear error at start instead of a surprise later.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


class ConfigError(RuntimeError):
    """A setting in the environment is malformed."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from exc


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name} must be a boolean (true/false), got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def local_secret(name: str, path: Path, *, generate) -> str:
    """The value of env var `name`, else the content of `path`, else a new value written there.

    Used for the Django secret key and the credential encryption key, so a fresh checkout works
    without configuration while production sets both explicitly.
    """
    value = os.environ.get(name)
    if value:
        return value
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = generate()
    # Exclusive create: two processes starting at once must agree on one key.
    try:
        with open(path, "x") as fh:
            fh.write(value)
        os.chmod(path, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    return value


def token_urlsafe() -> str:
    return secrets.token_urlsafe(50)
