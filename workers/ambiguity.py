"""Grounding errors people can act on.

A candidate is described as a person sees it: what it is, its label (or placeholder, name
attribute, text, tooltip) and the region it sits in. An ambiguous target comes with, for each
candidate, the exact target that would pick it: the same words scoped `within` a region only
that candidate sits in, or, when no region tells them apart, `nth`.
"""

from __future__ import annotations

import json

from workers.steps import Target
from workers.targeting import normalise

VERBS = {"fill": "typed into", "select": "chosen from", "check": "checked", "input": "filled in"}
SHOWN = 6


def _words(info: dict) -> str:
    for key in ("label", "placeholder", "text", "tooltip", "value", "name"):
        if info.get(key):
            return info[key]
    return ""


def describe(info: dict) -> str:
    """e.g. `input[email] "Email address" (placeholder "you@example.com", name "email") in "Log In"`."""
    words = _words(info)
    extras = [f'{key} "{info[key]}"' for key in ("placeholder", "name") if info.get(key) and info[key] != words]
    shown = (f'{info["kind"]} "{words}"' if words else f"{info['kind']} without a label") + \
        (f" ({', '.join(extras)})" if extras else "")
    if info["regions"]:
        shown += f' in "{info["regions"][0]}"'
    return shown


def _base(target: Target, info: dict) -> dict:
    data = target.model_dump(exclude_none=True, exclude={"nth", "within", "near"})
    if target.text and info.get("label") and normalise(info["label"]) == normalise(target.text):
        data = {"label": info["label"]}
    return data


def proposals(target: Target, infos: list[dict]) -> list[dict]:
    """For each candidate, a target that picks it alone."""
    regions = [{normalise(r) for r in info["regions"]} for info in infos]
    out = []
    for i, info in enumerate(infos):
        others = set().union(*(regions[j] for j in range(len(infos)) if j != i))
        own = next((r for r in info["regions"] if normalise(r) not in others), None)
        base = _base(target, info)
        out.append({**base, "within": own} if own else {**_base(target, {}), "nth": i})
    return out


def ambiguous_message(target: Target, infos: list[dict]) -> str:
    picks = proposals(target, infos)
    lines = [f"{describe(info)} → {json.dumps(pick, ensure_ascii=False)}"
             for info, pick in list(zip(infos, picks))[:SHOWN]]
    more = f"; and {len(infos) - SHOWN} more" if len(infos) > SHOWN else ""
    return (f"target {target.describe()} is ambiguous: {len(infos)} matches: {'; '.join(lines)}{more}. "
            "Use the target that picks the one you mean")


def not_found_hint(target: Target, purpose: str, unfit: list[dict], out_of_scope: list[dict],
                   near_missing: bool) -> str:
    """Why nothing usable was found, when the page says more than "nothing"."""
    hints = []
    if near_missing:
        hints.append(f"the text {target.near!r} (near) is not on the page")
    if out_of_scope:
        seen = ", ".join(dict.fromkeys(describe(i) for i in out_of_scope[:SHOWN]))
        hints.append(f"matches outside {target.within!r}: {seen}")
    if unfit and purpose in VERBS:
        seen = ", ".join(dict.fromkeys(describe(i) for i in unfit[:SHOWN]))
        what = "a select element" if purpose == "select" else f"something that can be {VERBS[purpose]}"
        hints.append(f"is not {what}: {seen}")
    return f" ({'; '.join(hints)})" if hints else ""
