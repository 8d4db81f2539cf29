"""Judge models the platform offers (issue 16, docs/verification.md): set by the operator in
`VENUS_JUDGES`, named by automations (`success_criteria.judges`). An editor can only pick among
these names; the URLs and keys never come from an automation."""

from __future__ import annotations

import functools
import json
import os

from django.conf import settings

from workers.policies.client import ModelSettings

DEFAULT_JUDGE = "ui-venus"


class JudgeConfigError(ValueError):
    """VENUS_JUDGES cannot be read; the message says why."""


@functools.cache
def _configured(raw: str, model_url: str, model: str, api_key: str) -> dict[str, ModelSettings]:
    judges: dict[str, ModelSettings] = {}
    if model_url:
        judges[DEFAULT_JUDGE] = ModelSettings(url=model_url, model=model, api_key=api_key)
    if not raw.strip():
        return judges
    try:
        items = json.loads(raw)
    except ValueError as exc:
        raise JudgeConfigError(f"VENUS_JUDGES is not JSON: {exc.msg} (position {exc.pos})") from None
    if not isinstance(items, list):
        raise JudgeConfigError("VENUS_JUDGES must be a JSON list of {name, url, model, api_key_env}")
    for item in items:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item.get(k) for k in ("name", "url", "model")):
            raise JudgeConfigError("each VENUS_JUDGES entry needs a name, a url and a model (strings)")
        key = os.environ.get(item["api_key_env"], "") if item.get("api_key_env") else ""
        judges[item["name"]] = ModelSettings(url=item["url"], model=item["model"], api_key=key)
    return judges


def configured_judges() -> dict[str, ModelSettings]:
    """The judges this platform offers, by name (the UI-Venus server as "ui-venus" when configured)."""
    return _configured(settings.VENUS_JUDGES or "", settings.VENUS_MODEL_URL or "", settings.VENUS_MODEL or "",
                       settings.VENUS_API_KEY or "")


def judge_names() -> list[str]:
    try:
        return sorted(configured_judges())
    except JudgeConfigError:
        return []


def unknown_judges(names: list[str]) -> list[str]:
    """Names an automation asks for that the platform does not offer (a field error at save)."""
    offered = set(judge_names())
    return [n for n in names if n not in offered]
