"""One run as dataset records: a JSONL record per agent turn in the UI-Venus message layout.

Contract (`run_shard`):
- Each model turn of an agent step (a Step row of kind "agent" with an action the model gave)
  is one record: `messages` as the model saw them (system prompt rebuilt from the automation
  version's goal with the run's parameters — `prompt.matches` says whether the template's hash
  equals the one the run recorded —, the earlier turns of the same agent step with the last
  `HISTORY_IMAGES` screenshots, the current screenshot), the model's `response` (thought and
  action text as it was), the raw answer, and `labels`: the step's status and evaluator
  verdict, the run's status and trace verdict, and the people's decisions (approved, rejected
  with comment, edited action, answers to CallUser): `human` those on this turn (the review its
  safety verdict names, the question it asked), `run_human` all of the run's.
- Images are referenced by their path in the export (`images/run-<id>/step-<index>.jpg`): the
  stored step screenshots, which were masked when they were taken (workers/envs/masking.py).
- Every string is scrubbed with the run's secret scrubber (`SecretBox.scrub_data`) before it
  leaves: whole values, URL-encoded and base64 forms; fragments too in page text (URLs,
  errors, outputs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models.fields.files import FieldFile

from venus_rpa.datasets import selectors
from venus_rpa.runs.models import Run, Step
from venus_rpa.runs.services import secrets_for, version_spec
from workers import actions as A
from workers.envs.base import ACTION_SPACES
from workers.policies.messages import CURRENT_LABEL, HISTORY_LABEL
from workers.policies.parser import format_action
from workers.policies.prompts import PromptError, load_prompt
from workers.steps import render_step

HISTORY_IMAGES = 2  # AgentConfig.history_images: the earlier screenshots the model was sent
SCHEMA = "venus-rpa/trajectory-step@1"


@dataclass
class RunShard:
    """A run's records, the images they reference (export path -> stored file), and facts for the card."""

    run_id: int
    records: list[dict[str, Any]] = field(default_factory=list)
    images: list[tuple[str, FieldFile]] = field(default_factory=list)
    skipped_steps: int = 0


def image_name(run_id: int, index: int) -> str:
    return f"images/run-{run_id:06d}/step-{index:04d}.jpg"


def shard_name(run_id: int) -> str:
    return f"data/run-{run_id:06d}.jsonl"


def _agent_goals(run: Run) -> dict[str, str]:
    """Agent steps' record names (`name` or the goal's first 200 characters) -> goal with the run's parameters."""
    goals: dict[str, str] = {}
    try:
        spec = version_spec(version=run.version)
    except Exception:  # an old version the runtime no longer parses: no prompt to rebuild
        return goals
    for step in spec.steps:
        if getattr(step, "kind", "") == "agent":
            try:
                rendered = render_step(step, run.params)
            except Exception:
                rendered = step
            goals.setdefault(step.name or step.goal[:200], rendered.goal)
    return goals


def _system_prompt(space: str, goal: str | None, step: Step) -> dict[str, Any]:
    if goal is None:
        return {"text": None, "matches": False, "recorded_sha256": step.model.get("prompt_sha256")}
    try:
        prompt = load_prompt(space, task=goal, current_date=step.started_at.date().isoformat())
    except PromptError:
        return {"text": None, "matches": False, "recorded_sha256": step.model.get("prompt_sha256")}
    return {"text": prompt.text, "sha256": prompt.sha256, "matches": prompt.sha256 == step.model.get("prompt_sha256"),
            "source": step.model.get("prompt_source", prompt.source)}


def _canonical(step: Step) -> str:
    return f"<think>{step.thought}</think>\n<action>{step.action.get('text', '')}</action>"


def _feedback(step: Step, space: str, answer: str | None) -> str:
    """What a turn sent back to the model, rebuilt from its record: action errors (each mapped
    entry is the action at the same position) and, for the run's last question, the answer."""
    mapped, actions = (step.grounding or {}).get("mapped") or [], (step.action or {}).get("actions") or []
    lines = []
    for i, m in enumerate(mapped):
        if isinstance(m, dict) and m.get("error"):
            try:
                text = format_action(A.parse_action(actions[i], surface=space))
            except (IndexError, ValueError):
                text = "?"
            lines.append(f"The action {text} failed: {m['error']}")
    if answer is not None:
        lines.append(f"The user answered: {answer}")
    return "\n".join(lines)


def _messages(system: str | None, history: list[Step], current: Step, space: str, run: Run,
              last_question: int | None) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": system or ""}]
    pending, first_with_image = "", len(history) - HISTORY_IMAGES
    for i, turn in enumerate(history):
        lead = f"{pending}\n{HISTORY_LABEL}" if pending else HISTORY_LABEL
        if turn.screenshot and i >= first_with_image:
            user: Any = [{"type": "text", "text": lead}, {"type": "image", "image": image_name(run.pk, turn.index)}]
        else:
            user = pending
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": _canonical(turn)}]
        pending = _feedback(turn, space, run.answer if turn.index == last_question else None)
    where = f"Current URL: {current.url}" if space == "browser" and current.url else ""
    pending = "\n".join(x for x in (pending, where) if x)
    content: list[dict] = [{"type": "text", "text": f"{pending}\n{CURRENT_LABEL}" if pending else CURRENT_LABEL}]
    if current.screenshot:
        content.append({"type": "image", "image": image_name(run.pk, current.index)})
    messages.append({"role": "user", "content": content})
    return messages


def _decisions(run: Run) -> list[dict[str, Any]]:
    """The people's decisions on the run, as labels."""
    labels = []
    for review in selectors.run_reviews(run=run):
        label = {"review": review.pk, "kind": review.kind, "decision": review.status, "comment": review.comment,
                 "proposed_action": review.proposed_action, "edited_action": review.edited_action or None,
                 "decided_at": review.decided_at.isoformat() if review.decided_at else None}
        if review.kind == "call_user":
            label["question"], label["answer"] = review.detail.get("question", review.title), review.response.get("text")
        labels.append(label)
    if run.answer and not any(d["kind"] == "call_user" for d in labels):
        labels.append({"kind": "call_user", "decision": "answered", "question": run.question, "answer": run.answer})
    return labels


def _is_turn(step: Step) -> bool:
    actions = (step.action or {}).get("actions")
    return step.kind == "agent" and bool(actions) and step.action.get("type") != "unparsable"


def run_shard(run: Run) -> RunShard:
    """The run's records and images (see the module contract)."""
    shard, secrets = RunShard(run.pk), secrets_for(run=run)
    space = ACTION_SPACES.get(run.version.surface, "browser")
    goals, decisions = _agent_goals(run), _decisions(run)
    last_question = selectors.run_last_question_index(run=run)
    run_labels = {"run_status": run.status, "status_reason": run.status_reason, "trace_verdict": run.verdict or None}
    history: list[Step] = []
    for step in selectors.run_steps(run=run):
        if not _is_turn(step):
            history = [] if step.kind != "agent" else history
            shard.skipped_steps += 1
            continue
        if history and history[-1].name != step.name:
            history = []  # another agent step: the model starts from an empty history
        prompt = _system_prompt(space, goals.get(step.name), step)
        record = {
            "schema": SCHEMA, "id": f"run-{run.pk}-step-{step.index}", "run_id": run.pk, "step_index": step.index,
            "turn": len(history), "automation": run.automation.slug, "version": run.version.number,
            "surface": run.version.surface, "action_space": space, "url": step.url,
            "source": "replayed" if step.replayed else step.model.get("source", "model"),
            "messages": _messages(prompt.pop("text"), history, step, space, run, last_question),
            "response": _canonical(step), "thought": step.thought, "action_text": step.action.get("text", ""),
            "actions": step.action.get("actions", []), "raw": step.model.get("raw"),
            "images": [image_name(run.pk, step.index)] if step.screenshot else [], "prompt": prompt,
            "labels": {"step_status": step.status, "step_error": step.error,
                       "step_effect": (step.grounding or {}).get("effect"),
                       "step_judge": (step.grounding or {}).get("judge"), **run_labels,
                       "human": [d for d in decisions if _concerns(d, step)], "run_human": decisions},
        }
        shard.records.append(secrets.scrub_data(record, fragments=False) | {
            "url": secrets.scrub(step.url), "labels": secrets.scrub_data(record["labels"])})
        if step.screenshot:
            shard.images.append((image_name(run.pk, step.index), step.screenshot))
        history.append(step)
    return shard


def _concerns(decision: dict[str, Any], step: Step) -> bool:
    """Whether a decision belongs to this turn: the review the turn's safety verdict names, or a
    question the turn asked (CallUser). Others (CAPTCHAs) are in every record's `run_human`."""
    risk = (step.grounding or {}).get("risk") or {}
    review = risk.get("review") if isinstance(risk, dict) else None
    if isinstance(review, dict) and review.get("id") is not None:
        return review.get("id") == decision.get("review")
    if decision.get("kind") == "call_user":
        return any(a.get("type") == "CallUser" for a in (step.action or {}).get("actions", []))
    return False
