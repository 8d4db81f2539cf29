"""Template helpers of the dashboard: the nav, status badges, JSON, the target overlay."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.template.defaultfilters import filesizeformat
from django.conf import settings
from django.http.request import split_domain_port
from django.utils.html import format_html

from venus_rpa.dashboard.access import access_for

register = template.Library()

VIEWPORT = (1280, 800)  # the browser environment's viewport, in CSS px
STATUS_TONES = {
    "queued": "muted", "running": "info", "awaiting_review": "warn", "awaiting_user": "warn", "succeeded": "ok",
    "failed": "bad", "cancelled": "muted", "timed_out": "bad", "pending": "warn", "answered": "ok", "approved": "ok",
    "rejected": "bad", "expired": "muted", "delivered": "ok", "edited": "ok",
}


@register.inclusion_tag("dashboard/_nav.html", takes_context=True)
def dashboard_nav(context) -> dict:
    from venus_rpa.dashboard.views.triggers import triggers_available
    from venus_rpa.reviews.models import ReviewRequest, ReviewStatus

    request = context["request"]
    access = getattr(request, "access", None) or access_for(request.user)
    pending = (ReviewRequest.objects.filter(workspace=access.workspace, status=ReviewStatus.PENDING).count()
               if access else 0)
    section = request.resolver_match.url_name if request.resolver_match else ""
    return {"request": request, "access": access, "pending_reviews": pending, "section": section or "",
            "triggers": triggers_available(), "flower_url": flower_url(request)}


def flower_url(request) -> str:
    """VENUS_FLOWER_URL, or Flower's port on the host this page was reached on (not 127.0.0.1,
    which is the viewer's own machine when the dashboard is served to others)."""
    if settings.VENUS_FLOWER_URL:
        return settings.VENUS_FLOWER_URL
    host, _port = split_domain_port(request.get_host())  # IPv6 hosts keep their brackets
    return f"{request.scheme}://{host or '127.0.0.1'}:5555/"


@register.simple_tag
def status_tones_json() -> str:
    """The badge tones by status as JSON (escaped for an attribute by the template engine), for the
    live feed to redraw a row's badge at once (the nav's data-status-tones)."""
    return json.dumps(STATUS_TONES, separators=(",", ":"))


@register.simple_tag
def status_badge(status: str, words: str = "") -> str:
    """A status as a coloured badge; `words` says it when the status's own name would not
    (a review's "edited" is "Approved with changes")."""
    tone = STATUS_TONES.get(status, "muted")
    return format_html('<span class="badge badge-{}" data-status="{}">{}</span>', tone, status,
                       words or status.replace("_", " "))


@register.filter
def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


@register.filter
def edit_inputs(detail: dict | None) -> list:
    """The reviewer's edit form for a risky action's review detail (dashboard.review_edit)."""
    from venus_rpa.dashboard.review_edit import edit_inputs as inputs

    return inputs(detail or {})


@register.filter
def decided_view(review) -> Any:
    """A decided review in words, with what an edit changed (dashboard.review_decided); None while pending."""
    from venus_rpa.dashboard.review_decided import decided_view as view

    return view(review)


@register.filter
def get(mapping: dict, key: str) -> Any:
    return (mapping or {}).get(key)


@register.filter
def ms(value: float | None) -> str:
    if not value:
        return "–"
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


@register.simple_tag
def querystring_with(filters: str, **kwargs) -> str:
    """`filters` (an urlencoded query) plus the given pairs."""
    from urllib.parse import urlencode

    extra = urlencode({k: v for k, v in kwargs.items() if v not in (None, "")})
    return "&".join(p for p in (filters, extra) if p)


def _pct(value: float, total: float) -> float:
    return round(max(0.0, min(100.0, value / total * 100)), 3)


def target_marks(grounding: dict | None) -> list[dict]:
    """Boxes and points of what a step acted on, in percent of the screenshot.

    Grounding is in CSS px of the viewport (`grounding.viewport` if recorded, else 1280x800):
    `box` {x, y, width, height} from the DOM grounder, `x`/`y` for a pointer action, and
    `mapped[*].x/y` for each action of an agent turn.
    """
    if not isinstance(grounding, dict):
        return []
    viewport = grounding.get("viewport") or {}
    width = float(viewport.get("width") or VIEWPORT[0])
    height = float(viewport.get("height") or VIEWPORT[1])
    marks = []
    box = grounding.get("box")
    if isinstance(box, dict) and all(isinstance(box.get(k), (int, float)) for k in ("x", "y", "width", "height")):
        marks.append({"kind": "box", "left": _pct(box["x"], width), "top": _pct(box["y"], height),
                      "width": _pct(box["width"], width), "height": _pct(box["height"], height)})
    points = [grounding] + [m for m in grounding.get("mapped") or [] if isinstance(m, dict)]
    for point in points:
        if isinstance(point.get("x"), (int, float)) and isinstance(point.get("y"), (int, float)):
            marks.append({"kind": "point", "left": _pct(point["x"], width), "top": _pct(point["y"], height)})
    return marks


@register.filter
def marks(grounding: dict | None) -> list[dict]:
    return target_marks(grounding)


@register.filter
def risk_of(step) -> Any:
    """The safety gate's verdict for a step, wherever the recorder put it (absent until the
    safety gate exists)."""
    for source in (step.output, step.grounding, step.action, step.model):
        if isinstance(source, dict) and source.get("risk"):
            return source["risk"]
    return None


EFFECT_LABELS = {"navigation": "navigated", "element_state": "control changed", "page_changed": "page changed",
                 "focus_moved": "field focused", "field_value": "field value", "scrolled": "scrolled",
                 "nothing_scrolled": "did not scroll", "target_disabled": "target disabled",
                 "nothing_changed": "nothing changed", "error_message": "error shown", "form_invalid": "form invalid",
                 "no_field_focused": "no field focused"}


@register.filter
def effect_view(step) -> dict | None:
    """The step evaluator's verdict on an agent turn (`grounding.effect`) for the step card."""
    effect = (step.grounding or {}).get("effect") if isinstance(step.grounding, dict) else None
    if not isinstance(effect, dict) or not effect.get("verdict"):
        return None
    tone = {"effective": "ok", "ineffective": "warn", "error": "bad"}.get(effect["verdict"], "info")
    return {"verdict": effect["verdict"], "tone": tone, "label": EFFECT_LABELS.get(effect.get("check"), effect.get("check")),
            "evidence": effect.get("evidence") or {}}


@register.filter
def judge_view(step) -> dict | None:
    """The step judges' verdict on an agent turn (`grounding.judge`, workers.step_judge) for the step
    card: the agreed verdict (or "split" / "unavailable"), why it was asked, each vote, and the reason
    to look when it disagrees with the step evaluator."""
    judged = (step.grounding or {}).get("judge") if isinstance(step.grounding, dict) else None
    if not isinstance(judged, dict):
        return None
    verdict = judged.get("verdict") or ("unavailable" if judged.get("unavailable") else "split")
    tone = "warn" if judged.get("needs_a_look") else {"effective": "ok", "ineffective": "warn"}.get(verdict, "info")
    votes = [v for v in judged.get("votes") or [] if isinstance(v, dict)]
    return {"verdict": verdict, "tone": tone, "why": judged.get("asked_because", ""), "votes": votes,
            "look": judged.get("look_reason", "") if judged.get("needs_a_look") else "",
            "error": judged.get("error", "")}


@register.filter
def run_outcome(run) -> str:
    """Why a failed run failed, when a person or the safety gate decided it (the badge alone says
    only "failed"): "rejected", "review expired" or "blocked"."""
    if getattr(run, "status", "") != "failed":
        return ""
    reason = getattr(run, "status_reason", "") or ""
    if "rejected by " in reason:
        return "rejected"
    if "expired without a decision" in reason:
        return "review expired"
    if ": blocked: " in reason or reason.startswith("blocked: "):
        return "blocked"
    return ""


CATEGORY_WORDS = {
    "PAY": "payment", "DEL": "deletion", "SEND": "sending", "SHARE": "sharing", "AUTH": "sign-in", "SEC": "security",
    "INSTALL": "install or permission", "LEGAL": "legal agreement", "ACCT": "account", "BOOK": "booking",
    "SYS": "system change", "NAV-OUT": "leaving the allowed sites", "UNKNOWN": "could not judge",
    "INJECT": "on-screen instructions", "NONE": "",
}
DECISION_WORDS = {"allow": "allowed", "review": "asked a person", "block": "blocked"}


@register.filter
def risk_view(risk: Any) -> dict | None:
    """A step's safety verdict in words for the run page (the raw record stays one click away):
    level, category, decision, the reason, and what the reviewer did. None for harmless steps."""
    if not isinstance(risk, dict):
        return None
    raw = str(risk.get("level") or "")
    level = int(raw.lstrip("Rr")) if raw.lstrip("Rr").isdigit() else None  # "R3" (or 3)
    review = risk.get("review") if isinstance(risk.get("review"), dict) else {}
    if risk.get("decision") == "allow" and not review and not (level is not None and level >= 2):
        return None  # a harmless step gets no risk line at all
    if review.get("reused"):
        outcome = "approved earlier on this page"
    elif review.get("covered"):
        outcome = "covered by the approval of this act"
    elif review.get("decision"):
        said = {"approve": "approved", "reject": "rejected", "edit": "edited and approved"}
        outcome = said.get(review["decision"], str(review["decision"]))
        outcome += f" by {review['decided_by']}" if review.get("decided_by") else ""
        if float(review.get("waited_ms") or 0) >= 100:  # a parked run resumes in a new process: no wait measured there
            outcome += f" after {float(review['waited_ms']) / 1000:.1f} s"
    else:
        outcome = ""
    category = str(risk.get("category") or "")
    return {
        "level": f"R{level}" if level is not None else "", "tone": "bad" if level is not None and level >= 3 else "muted",
        "notable": risk.get("decision") != "allow" or bool(review),  # drawn as a box; an allowed R2 is a quiet line
        "category": CATEGORY_WORDS.get(category, category.lower()), "decision": DECISION_WORDS.get(risk.get("decision"), ""),
        "reason": str(risk.get("reason") or ""), "target": str(risk.get("target") or ""), "review": outcome,
    }


@register.filter
def action_summary(action: dict | None) -> str:
    if not isinstance(action, dict):
        return ""
    parts = [str(action.get("type") or action.get("kind") or "")]
    for key, value in action.items():
        if key in ("type", "kind", "name", "timeout_s") or value in (None, "", [], {}):
            continue
        parts.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
    return " ".join(p for p in parts if p)


def _target_words(target: Any) -> str:
    if isinstance(target, str):
        return target
    if isinstance(target, dict):
        for key in ("name", "text", "label", "placeholder", "css"):
            if target.get(key):
                return str(target[key])
    return ""


STEP_WORDS = {"click": "Click “{t}”", "fill": "Type into “{t}”", "select": "Choose “{option}” in “{t}”",
              "check": "Tick “{t}”", "upload": "Attach a file to “{t}”", "download": "Download from “{t}”", "press": "Press {key}", "goto": "Open {url}",
              "wait_for": "Wait for “{text}”", "assert": "Check “{text}”", "extract": "Read “{t}”"}


@register.filter
def step_title(step) -> str:
    """A step's name, or what it did in words ("Click “Sign in”") when the automation gave none;
    never a typed value (a password is typed by a fill step)."""
    if getattr(step, "name", ""):
        return step.name
    action = step.action if isinstance(getattr(step, "action", None), dict) else {}
    words = STEP_WORDS.get(step.kind)
    values = {"t": _target_words(action.get("target")), "option": action.get("option", ""),
              "key": action.get("key", ""), "url": action.get("url", ""),
              "text": action.get("text") or action.get("url_contains") or ""}
    if not words or "{t}" in words and not values["t"] or "{text}" in words and not values["text"]:
        return step.kind
    title = words.format(**{k: str(v) for k, v in values.items()})
    return title if len(title) <= 120 else title[:119] + "…"


@register.filter
def kinds_for(field_name: str) -> str:
    from venus_rpa.dashboard.editor import kinds_for as _kinds_for

    return _kinds_for(field_name)


@register.filter
def shows(field_name: str, kind: str) -> bool:
    return kind in kinds_for(field_name).split()


@register.filter
def section_errors(form, prefix: str) -> list[str]:
    return form.section_errors(prefix)


@register.filter
def has_advanced_target(values: dict) -> bool:
    return any((values or {}).get(f"target_{k}") not in (None, "") for k in ("role", "name", "label", "placeholder", "css", "resource_id", "nth", "within", "near"))


@register.simple_tag
def duration(start, end) -> str:
    """A run's length for people: 4.2 s, 3 min 05 s, 1 h 02 min."""
    return seconds_human((end - start).total_seconds())


@register.filter
def seconds_human(seconds: float | None) -> str:
    """A number of seconds for people, as `duration` writes it; "–" for None."""
    if seconds is None:
        return "–"
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


@register.filter
def percent(fraction: float | None) -> str:
    """A fraction (0–1) as a percentage for people: 87.5 %, 100 %; "–" for None."""
    if fraction is None:
        return "–"
    value = round(float(fraction) * 100, 1)
    return f"{value:.0f} %" if value == int(value) else f"{value:.1f} %"


@register.filter
def bulk_summary(results) -> str:
    """“3 of 4 done; 1 not done” for a bulk action's per-item results."""
    done = sum(1 for r in results if r.ok)
    failed = len(results) - done
    return f"{done} of {len(results)} done" + (f"; {failed} not done (see why below)" if failed else "")


@register.filter
def item_values(item: Any, columns: list[str]) -> list[str]:
    """An item's fields in the sheet's column order (runs.items)."""
    return [str(item.data.get(column, "")) for column in columns]


@register.filter
def token_state(token, now) -> str:
    """An API token's state at `now`: "active", "expired" or "revoked"."""
    return token.state(now)


@register.filter
def step_files(step) -> list[dict[str, str]]:
    """The files a step handled, for its line in the trace: each download it started (kept,
    refused or failed, with why or a flag) and the file an upload set."""
    grounding = step.grounding if isinstance(getattr(step, "grounding", None), dict) else {}
    downloads = [grounding["download"]] if isinstance(grounding.get("download"), dict) else []
    downloads += [d for d in grounding.get("downloads") or [] if isinstance(d, dict)]
    out = []
    for d in downloads:
        size = f", {filesizeformat(d['size'])}" if isinstance(d.get("size"), int) else ""
        kind = f", {d['type']}" if d.get("type") else ""
        status = str(d.get("status", ""))
        note = d.get("reason") or d.get("flag") or ""
        out.append({"tone": "ok" if status == "kept" and not d.get("flag") else "warn" if status == "kept" else "bad",
                    "text": f"Downloaded {d.get('name', '')}{size}{kind}: {status}" + (f" — {note}" if note else "")})
    upload = grounding.get("upload")
    if isinstance(upload, dict):
        size = f", {filesizeformat(upload['size'])}" if isinstance(upload.get("size"), int) else ""
        out.append({"tone": "ok", "text": f"Uploaded {upload.get('file', '')}{size}, {upload.get('type', '')}"})
    return out
