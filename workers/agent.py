"""The UI-Venus closed loop for `agent` steps: observe → ask the model → parse → act → repeat.

Contract:
- `AgentLoop.run_step` runs one agent step to `Finished` and returns its output, or raises
  `StepError` with a reason a person can act on (model down, unparsable twice, stuck, budget).
- Every model turn becomes one step record (thought, action with raw and mapped coordinates,
  the screenshot the model saw, model facts) handed to `hooks.emit`; each action's step-evaluator
  verdict (`workers.evaluator`) is in its `grounding.mapped[i].effect`, the turn's in
  `grounding.effect`. With `config.step_judge` (`workers.step_judge`), an action the evaluator
  could not decide, or decided only weakly, is also judged by a model from the screens before and
  after it: `grounding.mapped[i].judge`, the turn's summary in `grounding.judge`. A judge never
  fails the step: one that is down or slow is recorded as unavailable.
- `CallUser` asks a person through `hooks.ask_user`; the answer comes back as feedback.
- Action errors (a click that failed, an off-domain URL) go back to the model as feedback; they
  do not end the step.
- `replay` (`workers.replay.StepReplay`): a verified path of this step to follow without the
  model while the screens match; a replayed turn goes through the same gates and executor as a
  model turn, is recorded the same way with `model.replay.replayed` true and no model call, and
  the first drift hands the step to the model (the replayed turns in its history). The turns this
  run takes are recorded in `replay` for the cache.
- `hooks.before_action(action, thought=...)`, when the hooks have it, is the safety gate: it
  returns None (no gate) or a `Gated` — run its action (maybe a reviewer's edit), or skip it with
  feedback for the model (rejected, the page changed, blocked navigation; the rest of the turn is
  dropped), or end the step with its error (a prohibited action). Its verdict goes in the turn's
  grounding (`risk`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol


from workers import actions as A
from workers.durable import Parked, decode_bytes, encode_bytes
from workers.envs.base import Observation
from workers.errors import StepError
from workers.evaluator import watch_effect, worst
from workers.policies.client import ModelClient, ModelRequestError, ModelUnavailable, Sampling
from workers.policies.messages import HistoryTurn, build_grounding_messages, build_messages, downscale
from workers.policies.parser import ParseError, ParsedAnswer, format_action, parse_answer, parse_grounding
from workers.policies.prompts import load_prompt
from workers.replay import CachedTurn, StepReplay, replay_answer
from workers.step_judge import StepIntent, StepJudge, summary
from workers.steps import AgentStep

SCROLLS = frozenset({"Scroll", "Swipe"})  # repeating these is exploring, not being stuck
CLICK_QUANTUM = 30  # normalised units (≈ 40 px on a 1280 px viewport) for loop detection


@dataclass
class AgentConfig:
    history_images: int = 2
    max_pixels: int = 0  # downscale screenshots above this many pixels before sending (0: never)
    sampling: Sampling = field(default_factory=lambda: Sampling(temperature=0.6, max_tokens=4096))
    retry_temperature: float = 0.6
    grounding_sampling: Sampling = field(
        default_factory=lambda: Sampling(temperature=0.0, top_p=1.0, max_tokens=1024, enable_thinking=False)
    )
    prompt_dir: str | None = None
    step_judge: StepJudge | None = None  # model judges for undecided actions (off: None)


@dataclass
class AgentTurn:
    """What one model turn produced, for the step record."""

    thought: str
    action: dict[str, Any]
    grounding: dict[str, Any]
    model: dict[str, Any]
    observation: Observation
    status: str = "succeeded"
    error: str = ""
    act_ms: float = 0.0
    observe_ms: float = 0.0
    model_ms: float = 0.0


class AgentHooks(Protocol):
    def emit(self, turn: AgentTurn) -> None: ...

    async def ask_user(self, question: str) -> str: ...


def _signature(action: A.ActionModel) -> tuple:
    """An action's identity for loop detection: points on a coarse grid (about 40 px)."""
    data = action.model_dump()
    for key in ("point", "start", "end"):
        if data.get(key) is not None:
            data[key] = tuple(v // CLICK_QUANTUM for v in data[key])
    return tuple(sorted((k, str(v)) for k, v in data.items()))


class AgentLoop:
    """Runs agent steps with one model client (shared by the worker's runs)."""

    def __init__(self, client: ModelClient, config: AgentConfig) -> None:
        self.client = client
        self.config = config

    async def _ask(self, messages: list[dict], sampling: Sampling, space: str) -> tuple[ParsedAnswer | None, Any, str]:
        try:
            completion = await self.client.complete(messages, sampling)
        except (ModelUnavailable, ModelRequestError) as exc:
            raise StepError(str(exc)) from exc
        try:
            return parse_answer(completion.content, completion.reasoning, surface=space,
                                finish_reason=completion.finish_reason), completion, ""
        except ParseError as exc:
            return None, completion, exc.message

    async def decide(self, messages: list[dict], *, space: str = "browser") -> tuple[ParsedAnswer, dict[str, Any], float]:
        """One navigation decision in the action space `space` (browser, mobile, desktop); an
        unusable answer is re-asked once with the parse error."""
        started = time.perf_counter()
        parsed, completion, error = await self._ask(messages, self.config.sampling, space)
        facts = {"calls": [completion.record()]}
        if parsed is None:
            retry = [*messages[:-1], _with_feedback(messages[-1], f"Your last answer could not be used: {error} "
                                                                  "Answer again in the required format.")]
            first_raw = completion.content
            sampling = Sampling(**{**self.config.sampling.__dict__,
                                   "temperature": max(self.config.sampling.temperature, self.config.retry_temperature)})
            parsed, completion, error2 = await self._ask(retry, sampling, space)
            facts["calls"].append(completion.record())
            facts["reasked"] = {"error": error, "raw": first_raw[:4000]}
            if parsed is None:
                raise _Unparsable(error2, completion.content, facts, (time.perf_counter() - started) * 1000)
        facts["raw"] = completion.content[:4000]
        return parsed, facts, (time.perf_counter() - started) * 1000

    async def run_step(self, step: AgentStep, env, hooks: AgentHooks, *, deadline: Callable[[], float],
                       repeat_limit: int = 5, resume: dict[str, Any] | None = None,
                       replay: StepReplay | None = None) -> dict[str, Any]:
        """`resume`: the state a parked step left (`Parked.agent`); the step goes on at its
        pending turn (the question asked, or the actions not done yet), its replay where it was."""
        space = env.action_space  # the surface's UI-Venus action space and prompt
        prompt = load_prompt(space, task=step.goal, current_date=date.today().isoformat(),
                             prompt_dir=self.config.prompt_dir)
        state = _AgentState.from_json(resume) if resume else _AgentState()
        state.keep_images = self.config.history_images
        state.goal, state.step_name = step.goal, step.name or ""
        if replay is not None:  # the runner's (on a resume: rebuilt from the state it left)
            state.replay = replay
        if state.pending is not None:
            done = await self._resume_turn(state, env, hooks, repeat_limit)
            if done is not None:
                return {step_output_key(step): done}
        while state.turns < step.max_actions:
            state.turns += 1
            if time.monotonic() > deadline():
                raise StepError(f"agent step ran out of its time budget ({step.timeout_s:g}s)")
            t0 = time.perf_counter()
            try:
                observation = await self._observe(env, hooks)
            except Parked as parked:  # a CAPTCHA for a person: this turn starts again on resume
                state.turns -= 1
                parked.agent = state.to_json(pending=None)
                raise
            image, img_w, img_h = downscale(observation.screenshot, self.config.max_pixels)
            fingerprint, replayed = await self._replayed(state.replay, env, space)
            observe_ms = (time.perf_counter() - t0) * 1000
            if replayed is not None:  # the cached turn, on a screen that still matches: no model call
                turn = _Turn(replayed, image, observation, {"replay": state.replay.facts(replayed=True),
                                                            "history_turns": len(state.history)},
                             observe_ms, 0.0, time.perf_counter(), fingerprint=fingerprint,
                             anchors=list(state.replay.next_turn().anchors))
                done = await self._act(state, turn, env, hooks, repeat_limit, start=0)
                if done is not None:
                    return {step_output_key(step): done}
                continue
            # What the previous turn produced (errors, answers, select options) travels in history;
            # facts about the current screen come with this turn.
            where = f"Current URL: {observation.url}" if space == "browser" else ""
            page_facts = "\n".join(x for x in (where, _notes(env)) if x)
            messages = build_messages(system=prompt.text, history=state.history, current_image=image,
                                      feedback=page_facts, n_images=self.config.history_images)
            model_facts = {"prompt_sha256": prompt.sha256, "prompt_source": prompt.source,
                           "image": {"width": img_w, "height": img_h, "bytes": len(image)},
                           "history_turns": len(state.history)}
            if state.replay is not None:
                model_facts["replay"] = state.replay.facts(replayed=False)
            try:
                async with asyncio.timeout(max(deadline() - time.monotonic(), 0.1)):
                    parsed, facts, model_ms = await self.decide(messages, space=space)
            except TimeoutError:
                raise StepError(f"agent step ran out of its time budget ({step.timeout_s:g}s) waiting for the model") from None
            except _Unparsable as exc:
                hooks.emit(AgentTurn("", {"type": "unparsable"}, {}, {**model_facts, **exc.facts, "raw": exc.raw[:4000]},
                                     observation, "failed", f"the model's answer could not be parsed twice: {exc.error}",
                                     observe_ms=observe_ms, model_ms=exc.model_ms))
                raise StepError(f"the model's answer could not be parsed twice: {exc.error}") from None
            model_facts.update(facts)
            turn = _Turn(parsed, image, observation, model_facts, observe_ms, model_ms, time.perf_counter(),
                         fingerprint=fingerprint)
            done = await self._act(state, turn, env, hooks, repeat_limit, start=0)
            if done is not None:
                return {step_output_key(step): done}
        raise StepError(f"agent step did not finish within {step.max_actions} actions")

    async def _act(self, state: _AgentState, turn: _Turn, env, hooks: AgentHooks, repeat_limit: int, *,
                   start: int, feedback: str = "", mapped: list | None = None,
                   risks: list | None = None) -> str | None:
        """Do the turn's actions from `start`; the Finished content, or None to go on. A wait that
        parks the run leaves the turn pending in `state` (`Parked.agent`)."""
        parsed, mapped, risks = turn.parsed, mapped or [], risks or []
        done, asked = None, False
        for position in range(start, len(parsed.actions)):
            action = parsed.actions[position]
            state.recent = (state.recent + [_signature(action)])[-repeat_limit:]
            if len(state.recent) == repeat_limit and len(set(state.recent)) == 1 and action.type not in SCROLLS:
                hooks.emit(self._turn(turn, mapped, status="failed", error="stuck"))
                raise StepError(f"the agent repeated {format_action(action)} {repeat_limit} times; stopped as stuck")
            if action.type in ("Finished", "Answer"):
                done = action.content
                break
            if action.type == "CallUser":
                hooks.emit(self._turn(turn, mapped))
                asked = True
                with state.parking(turn, "answer", position, question=action.content):
                    feedback = f"The user answered: {await hooks.ask_user(action.content)}"
                break
            with state.parking(turn, "actions", position, feedback=feedback, mapped=mapped, risks=risks):
                gated = await self._gate(hooks, action, parsed.thought)
            if gated is not None:
                if gated.risk:
                    risks.append(gated.risk)
                if gated.error:
                    mapped.append({"risk": gated.risk})
                    hooks.emit(self._turn(turn, mapped, status="failed", error=gated.error, risks=risks))
                    raise StepError(gated.error)
                feedback = "\n".join(x for x in (feedback, gated.feedback) if x)
                if gated.action is None:  # not done: the model re-plans from the feedback
                    mapped.append({"risk": gated.risk, "skipped": True})
                    turn.clean = False
                    break
                turn.clean = turn.clean and gated.action == action  # a reviewer's edit is not the cached path
                action = gated.action
            await self._anchor(state, turn, env, position, action)
            try:
                outcome, effect = await watch_effect(env, action, lambda a=action: _execute(env, a))
                grounding = {**outcome.grounding, "risk": gated.risk} if gated and gated.risk else dict(outcome.grounding)
                entry = {**grounding, "effect": effect.to_json()} if effect else grounding
                judged = await self._judge_step(state, turn, env, action, effect)
                mapped.append({**entry, "judge": judged} if judged else entry)
                feedback = "\n".join(x for x in (feedback, outcome.feedback) if x)
            except StepError as exc:  # back to the model as feedback, not the end of the step
                feedback = "\n".join(x for x in (feedback, f"The action {format_action(action)} failed: {exc}") if x)
                mapped.append({"error": str(exc)})
                turn.failed += 1
        if not asked:
            hooks.emit(self._turn(turn, mapped, risks=risks))
        state.history.append(HistoryTurn(image=turn.image, assistant=parsed.canonical(), feedback=feedback))
        self._record_replay(state, turn)
        return done

    async def _judge_step(self, state: _AgentState, turn: _Turn, env, action: A.ActionModel, effect) -> dict | None:
        """The step judges' record on `action` (`StepJudge.on_action`); None when none was asked.
        A replayed turn follows a path verified when it was cached: no judge is asked on it, so a
        replayed run stays free of model calls (the evaluator still checks it)."""
        judge, done = self.config.step_judge, format_action(action)
        if judge is None or turn.replayed:
            turn.since.append(done)
            return None
        intent = StepIntent(goal=state.goal, step=state.step_name, action=done, thought=turn.parsed.thought,
                            since=tuple(turn.since))
        record, after = await judge.on_action(env, action, effect, intent, before=turn.judge_shot or turn.image,
                                              max_pixels=self.config.max_pixels)
        if after is None:
            turn.since.append(done)
        else:
            turn.judge_shot, turn.since = after, []
        return record

    @staticmethod
    async def _replayed(replay: StepReplay | None, env, space: str) -> tuple[dict[str, str], ParsedAnswer | None]:
        """This screen's fingerprint (when replay applies) and the cached turn's answer for it, or
        None (nothing to replay, or the drift that hands the step to the model from here)."""
        if replay is None or not replay.applies:
            return {}, None
        try:
            fingerprint = await env.screen_fingerprint()
        except StepError:  # a page between documents: nothing to match (a cached turn drifts, see screen_matches)
            fingerprint = {}
        cached = replay.next_turn()
        if cached is None:
            return fingerprint, None
        actions, _, why = await replay_answer(cached, env, fingerprint, space=space)
        if actions is None:
            replay.drifted(why)
            return fingerprint, None
        return fingerprint, ParsedAnswer(thought=cached.thought, action_text=", ".join(format_action(a) for a in actions),
                                         actions=actions, raw="")

    @staticmethod
    async def _anchor(state: _AgentState, turn: _Turn, env, position: int, action: A.ActionModel) -> None:
        """Keep what identifies the action's target, read before it acts (replay's anchors)."""
        if state.replay is None or not state.replay.applies:
            return
        while len(turn.anchors) <= position:
            turn.anchors.append(None)
        if turn.anchors[position] is None or not turn.replayed:
            try:
                turn.anchors[position] = await env.action_anchor(action)
            except StepError:  # unreadable: a later replay of this action drifts instead of guessing
                turn.anchors[position] = None
        turn.acted[position] = action

    @staticmethod
    def _record_replay(state: _AgentState, turn: _Turn) -> None:
        if state.replay is None or not state.replay.applies:
            return
        actions = [turn.acted.get(i, a) for i, a in enumerate(turn.parsed.actions)]
        anchors = (turn.anchors + [None] * len(actions))[:len(actions)]
        state.replay.record(CachedTurn(fingerprint=turn.fingerprint, thought=turn.parsed.thought,
                                       action_text=", ".join(format_action(a) for a in actions),
                                       actions=[a.model_dump(mode="json") for a in actions], anchors=anchors),
                            replayed=turn.replayed, clean=turn.clean and not turn.failed,
                            nothing_done=bool(turn.failed) and turn.failed == len(turn.acted))

    async def _resume_turn(self, state: _AgentState, env, hooks: AgentHooks, repeat_limit: int) -> str | None:
        """Go on with the turn a parked run was in: ask the question again (the answer is there
        now) or do the actions that were not done, the gated one first."""
        pending, state.pending = state.pending, None
        parsed = ParsedAnswer(thought=pending["thought"], action_text=pending["action_text"],
                              actions=[A.parse_action(a, surface=env.action_space) for a in pending["actions"]],
                              raw=pending["raw"])
        observation = await env.observe()
        turn = _Turn(parsed, decode_bytes(pending["image"]) or b"", observation, pending.get("model", {}), 0.0, 0.0,
                     time.perf_counter(), fingerprint=pending.get("fingerprint") or {},
                     anchors=list(pending.get("anchors") or []), clean=pending.get("clean", True))
        position = pending["position"]
        if pending["kind"] == "answer":
            with state.parking(turn, "answer", position, question=pending["question"]):
                feedback = f"The user answered: {await hooks.ask_user(pending['question'])}"
            state.history.append(HistoryTurn(image=turn.image, assistant=parsed.canonical(), feedback=feedback))
            self._record_replay(state, turn)
            return None
        state.recent = state.recent[:-1]  # the gated action is counted again when it is retried
        return await self._act(state, turn, env, hooks, repeat_limit, start=position, feedback=pending["feedback"],
                               mapped=pending["mapped"], risks=pending["risks"])

    @staticmethod
    async def _gate(hooks: AgentHooks, action: A.ActionModel, thought: str):
        before_action = getattr(hooks, "before_action", None)
        return None if before_action is None else await before_action(action, thought=thought)

    async def _observe(self, env, hooks) -> Observation:
        """The screenshot for the next turn, with the CAPTCHA gate looking at the same page at the
        same time (both are browser round trips); if the gate acted, look again."""
        ready = getattr(env, "ready", None)
        if ready is not None:  # the model sees the page drawn, not an app still drawing what it loads
            await ready()
        before_turn = getattr(hooks, "before_turn", None)
        if before_turn is None:
            return await env.observe()
        gate = asyncio.ensure_future(before_turn())
        try:
            observation = await env.observe()
        finally:
            acted = await gate
        return await env.observe() if acted else observation

    def _turn(self, turn: _Turn, mapped, *, status: str = "succeeded", error: str = "",
              risks: list[dict] | None = None) -> AgentTurn:
        parsed, observation = turn.parsed, turn.observation
        grounding: dict[str, Any] = {"mapped": mapped, "viewport": {"width": observation.width, "height": observation.height}}
        effect = worst([m["effect"] for m in mapped if isinstance(m, dict) and m.get("effect")])
        if effect:  # the step evaluator's verdict on the turn (the first action that missed, if any)
            grounding["effect"] = effect
        judged = summary([m["judge"] for m in mapped if isinstance(m, dict) and m.get("judge")])
        if judged:  # the step judges' verdict on the turn (the first that needs a look, if any)
            grounding["judge"] = judged
        if risks:  # the turn's most severe verdict, for the dashboard
            grounding["risk"] = max(risks, key=lambda r: (r["level"], r["decision"] != "allow"))
        return AgentTurn(
            thought=parsed.thought,
            action={"text": parsed.action_text, "actions": [a.model_dump(mode="json") for a in parsed.actions]},
            grounding=grounding,
            model=turn.model_facts, observation=observation, status=status, error=error,
            act_ms=(time.perf_counter() - turn.t1) * 1000, observe_ms=turn.observe_ms, model_ms=turn.model_ms,
        )

    async def ground(self, *, instruction: str, observation: Observation) -> tuple[int, int] | None:
        """Ask the model where an element is (grounding prompt); None if it says it is absent."""
        prompt = load_prompt("grounding", prompt_dir=self.config.prompt_dir)
        image, _, _ = downscale(observation.screenshot, self.config.max_pixels)
        try:
            completion = await self.client.complete(
                build_grounding_messages(image=image, instruction=instruction, prompt=prompt),
                self.config.grounding_sampling)
            point = parse_grounding(completion.content)
        except (ModelUnavailable, ModelRequestError, ParseError) as exc:
            raise StepError(f"model grounding failed: {exc}") from exc
        if point is None:
            return None
        return A.map_point_for("grounding", point, width=observation.width, height=observation.height)


async def _execute(env, action: A.ActionModel):
    outcome = await env.execute(action)
    await env.settle()
    return outcome


def step_output_key(step: AgentStep) -> str:
    return step.into or "result"


def _notes(env) -> str:
    notes = getattr(env, "notes", None)
    return ("Notes so far:\n" + "\n".join(f"- {n}" for n in notes)) if notes else ""


def _with_feedback(message: dict, text: str) -> dict:
    content = message["content"]
    if isinstance(content, list) and content and content[0].get("type") == "text":
        return {**message, "content": [{"type": "text", "text": text + "\n" + content[0]["text"]}, *content[1:]]}
    return {**message, "content": [{"type": "text", "text": text}, *(content if isinstance(content, list) else [])]}


@dataclass
class _Turn:
    """One model turn being acted out."""

    parsed: ParsedAnswer
    image: bytes
    observation: Observation
    model_facts: dict[str, Any]
    observe_ms: float
    model_ms: float
    t1: float
    fingerprint: dict[str, str] = field(default_factory=dict)  # the screen it was decided on (replay)
    anchors: list[dict[str, Any] | None] = field(default_factory=list)  # per action, its target's anchor
    acted: dict[int, A.ActionModel] = field(default_factory=dict)  # position -> the action as done
    clean: bool = True  # every action as proposed (nothing skipped or edited by the gate or a reviewer)
    failed: int = 0  # actions that failed (not done; the error went back as feedback)
    judge_shot: bytes | None = None  # the last screen a step judge saw (its next "before"); None: `image`
    since: list[str] = field(default_factory=list)  # actions done since that screen (for the step judge)

    @property
    def replayed(self) -> bool:
        return bool(self.model_facts.get("replay", {}).get("replayed"))


@dataclass
class _AgentState:
    """An agent step's progress: the history sent to the model, recent actions (loop detection),
    turns taken, and the turn a parked run was in (`pending`). JSON-safe for a continuation."""

    history: list[HistoryTurn] = field(default_factory=list)
    recent: list[tuple] = field(default_factory=list)
    turns: int = 0
    pending: dict[str, Any] | None = None
    keep_images: int = 2
    replay: StepReplay | None = None
    goal: str = ""  # the agent step's goal and name (set by run_step; for the step judge)
    step_name: str = ""

    @contextmanager
    def parking(self, turn: _Turn, kind: str, position: int, **facts):
        """Around a wait for a person: if it parks the run, leave this state (with the turn
        pending at `position`) on the way out."""
        try:
            yield
        except Parked as parked:
            parked.agent = self.to_json(pending={
                "kind": kind, "position": position, "image": encode_bytes(turn.image), "model": turn.model_facts,
                "thought": turn.parsed.thought, "action_text": turn.parsed.action_text, "raw": turn.parsed.raw,
                "actions": [a.model_dump(mode="json") for a in turn.parsed.actions],
                "fingerprint": turn.fingerprint, "anchors": turn.anchors, "clean": turn.clean and not turn.failed,
                **facts})
            raise

    def to_json(self, *, pending: dict[str, Any]) -> dict[str, Any]:
        keep = len(self.history) - self.keep_images  # only the images the model will see again
        return {"history": [{"image": encode_bytes(h.image) if i >= keep else None, "assistant": h.assistant,
                             "feedback": h.feedback} for i, h in enumerate(self.history)],
                "recent": [list(map(list, r)) for r in self.recent], "turns": self.turns, "pending": pending,
                "replay": self.replay.to_json() if self.replay is not None else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> _AgentState:
        return cls(history=[HistoryTurn(decode_bytes(h["image"]), h["assistant"], h["feedback"]) for h in data["history"]],
                   recent=[tuple(tuple(kv) for kv in r) for r in data["recent"]], turns=data["turns"],
                   pending=data.get("pending"),
                   replay=StepReplay.from_json(data["replay"]) if data.get("replay") else None)


class _Unparsable(Exception):
    def __init__(self, error: str, raw: str, facts: dict, model_ms: float) -> None:
        super().__init__(error)
        self.error, self.raw, self.facts, self.model_ms = error, raw, facts, model_ms

