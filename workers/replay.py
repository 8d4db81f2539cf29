"""The replay cache, runtime side: a verified agent path replayed without the model.

A run whose agent steps succeeded and whose verdict passed leaves, per agent step, the turns it
took: each turn's screen fingerprint, the actions as done and the anchors that identified their
targets (`CachedTurn`). The next run of the same automation version replays them (`StepReplay`)
without calling the model while each screen still matches its fingerprint and each target
resolves to exactly one element; at the first drift it hands the step over to the model, which
goes on from there with the replayed turns in its history. The path of a run that verifies
replaces the cached one.

Contract:
- `ReplayStore` is the platform's storage, bound to one run's automation version; the runtime
  names steps by `step_key` (place in the automation + the rendered goal) and never sees the
  version or the database. `load` returns None when nothing is cached or the cache is off.
- The surface supplies three reads (`Replayable`): the screen fingerprint, the anchor of the
  element an action acts on, and the resolution of an anchor on the current screen. A surface
  without them (Android and desktop today) does not replay; every agent turn then records why.
- Replayed actions go through the same gates (CAPTCHA before the turn, safety before each action)
  and the same executor (domain checks, egress guard) as the model's: a cache entry can only
  propose what a model answer could.
- Only clean paths are cached: a turn with a failed, skipped or refused action, a question to a
  person, or a hand-over that never finished leaves the cache as it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from workers import actions as A
from workers.errors import StepError

log = logging.getLogger(__name__)

POINTED = (A.Click, A.DoubleClick, A.LongPress, A.Hover)  # their target must resolve uniquely
ANSWERS = ("Finished", "Answer")
NOT_CACHED = ("CallUser",)  # a turn that asked a person: what followed depended on the answer


@dataclass
class CachedTurn:
    """One turn of a verified path. `fingerprint`: the screen the turn was decided on (see the
    surface's `screen_fingerprint`); `actions`: as done (JSON, points in the model's space);
    `anchors`: per action, what identified its target (None: the action has no target)."""

    fingerprint: dict[str, str]
    thought: str
    action_text: str
    actions: list[dict[str, Any]]
    anchors: list[dict[str, Any] | None]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CachedTurn:
        return cls(fingerprint=dict(data["fingerprint"]), thought=str(data.get("thought", "")),
                   action_text=str(data.get("action_text", "")), actions=list(data["actions"]),
                   anchors=list(data["anchors"]))


class ReplayStore(Protocol):
    """Where verified paths are kept for one run's automation version (the platform's side).

    `enabled` is False when the automation's cache is off (nothing is loaded or saved). `load`
    returns the cached turns of a step, or None. `save` replaces the paths of the given steps
    with the ones of a run that verified; it is only called for such runs."""

    enabled: bool

    async def load(self, key: str) -> list[CachedTurn] | None: ...

    async def save(self, paths: dict[str, list[CachedTurn]]) -> None: ...


class Replayable(Protocol):
    """The reads a surface needs for replay (the browser has them)."""

    async def screen_fingerprint(self) -> dict[str, str]: ...

    async def action_anchor(self, action: A.ActionModel) -> dict[str, Any] | None: ...

    async def resolve_anchor(self, anchor: dict[str, Any]) -> tuple[tuple[int, int] | None, str]:
        """The anchored element's centre in the model's coordinate space, or (None, why)."""
        ...


def step_key(position: int, goal: str) -> str:
    """A step's name in the cache: its place in the automation and its goal as rendered (a goal
    filled with other parameters is another path)."""
    return f"{position}:{hashlib.sha256(goal.encode()).hexdigest()[:16]}"


def replay_applies(env) -> str:
    """Why `env` cannot replay ("" when it can)."""
    if all(callable(getattr(env, name, None)) for name in ("screen_fingerprint", "action_anchor", "resolve_anchor")):
        return ""
    return f"the {getattr(env, 'surface', 'this')} surface has no anchors for replay; every turn asks the model"


def screen_matches(cached: dict[str, str], current: dict[str, str], *, answer: bool) -> str:
    """"" when the screen is the one the cached turn was decided on, else the drift. The page's
    full text counts only for a turn that answers (its answer may be read off the page)."""
    if not cached.get("path") or not current.get("path"):
        return "the screen could not be read (a page between documents)"
    if cached.get("path") != current.get("path"):
        return f"the screen is at {current.get('path')!r}, the cached path was at {cached.get('path')!r}"
    if cached.get("controls") != current.get("controls"):
        return "the screen's controls changed (moved, renamed, added or removed)"
    if answer and cached.get("text") != current.get("text"):
        return "the page's text changed since the cached answer was read from it"
    return ""


@dataclass
class StepReplay:
    """One agent step's replay: the cached turns to follow (`cached`, None: nothing cached),
    where it is (`position`), the drift that ended it, and the turns this run did (`recorded`,
    the path cached if the run verifies)."""

    cached: list[CachedTurn] | None = None
    note: str = ""  # why replay does not apply on this surface ("" when it does)
    enabled: bool = True
    position: int = 0
    drift: str = ""
    replayed: int = 0
    reasoned: int = 0
    recorded: list[CachedTurn] = field(default_factory=list)
    clean: bool = True

    @property
    def applies(self) -> bool:
        return self.enabled and not self.note

    def next_turn(self) -> CachedTurn | None:
        """The cached turn to replay now, or None (nothing cached, drifted, or done)."""
        if not self.applies or self.drift or self.cached is None or self.position >= len(self.cached):
            return None
        return self.cached[self.position]

    def drifted(self, why: str) -> None:
        self.drift = why or "drift"

    def record(self, turn: CachedTurn, *, replayed: bool, clean: bool, nothing_done: bool = False) -> None:
        """Count a turn done and keep it for the path. `clean`: done as proposed, none failed;
        `nothing_done`: every action failed (e.g. a cached navigation the domain check refused)."""
        if replayed:
            self.replayed += 1
            self.position += 1
            if not clean:  # the model goes on from here
                self.drifted("a replayed action failed, was refused or was edited by a reviewer")
            if nothing_done and turn.actions:  # it left no trace on the page: the new path goes without it
                return
        else:
            self.reasoned += 1
        self.clean = self.clean and clean and not any(a.get("type") in NOT_CACHED for a in turn.actions)
        self.recorded.append(turn)

    def path(self) -> list[CachedTurn] | None:
        """The path to cache when the run verifies: this step's turns if they were all clean, a
        turn was reasoned (a fully replayed path is already cached) and it ended on an answer."""
        if not self.applies or not self.clean or not self.recorded or not self.reasoned:
            return None
        last = self.recorded[-1].actions
        return self.recorded if last and last[-1].get("type") in ANSWERS else None

    def facts(self, *, replayed: bool) -> dict[str, Any]:
        """What a turn's record says about replay (`model.replay`)."""
        if not self.enabled:
            return {"applies": False, "reason": "the replay cache is off for this automation"}
        if self.note:
            return {"applies": False, "reason": self.note}
        if replayed:
            return {"replayed": True, "turn": self.position}
        if self.drift:
            return {"replayed": False, "drift": self.drift}
        return {"replayed": False, "reason": "nothing cached for this step" if self.cached is None else "past the cached path"}

    def to_json(self) -> dict[str, Any]:
        return {"cached": None if self.cached is None else [t.to_json() for t in self.cached], "note": self.note,
                "enabled": self.enabled, "position": self.position, "drift": self.drift, "replayed": self.replayed,
                "reasoned": self.reasoned, "recorded": [t.to_json() for t in self.recorded], "clean": self.clean}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StepReplay:
        cached = data.get("cached")
        return cls(cached=None if cached is None else [CachedTurn.from_json(t) for t in cached],
                   note=data.get("note", ""), enabled=data.get("enabled", True), position=data.get("position", 0),
                   drift=data.get("drift", ""), replayed=data.get("replayed", 0), reasoned=data.get("reasoned", 0),
                   recorded=[CachedTurn.from_json(t) for t in data.get("recorded", [])], clean=data.get("clean", True))


async def replay_answer(turn: CachedTurn, env, fingerprint: dict[str, str], *, space: str):
    """The cached turn as actions for this screen: (actions, anchors, "") with each pointed
    action moved to where its anchor resolves now, or (None, None, drift)."""
    answer = any(a.get("type") in ANSWERS and a.get("content") for a in turn.actions)
    why = screen_matches(turn.fingerprint, fingerprint, answer=answer)
    if why:
        return None, None, why
    actions = []
    for data, anchor in zip(turn.actions, turn.anchors, strict=True):
        try:
            action = A.parse_action(data, surface=space)
        except Exception as exc:  # noqa: BLE001 -- a cache entry the action schema refuses is a drift
            return None, None, f"the cached action {data.get('type')!r} is not valid: {exc}"
        if isinstance(action, POINTED):
            if not anchor:
                return None, None, f"the cached {action.type} has no anchor"
            try:
                point, why = await env.resolve_anchor(anchor)
            except StepError as exc:
                return None, None, f"the target could not be looked for: {exc}"
            if point is None:
                return None, None, why
            action = A.parse_action({**data, "point": list(point)}, surface=space)
        actions.append(action)
    return actions, list(turn.anchors), ""


async def step_replay(store: ReplayStore | None, env, key: str, *, run_id: int | None = None) -> StepReplay | None:
    """An agent step's replay: its cached path (if any), or why replay does not apply; None
    without a store (every turn asks the model, nothing is recorded)."""
    if store is None:
        return None
    if not store.enabled:
        return StepReplay(enabled=False)
    note = replay_applies(env)
    if note:
        return StepReplay(note=note)
    try:
        return StepReplay(cached=await store.load(key))
    except Exception:  # noqa: BLE001 -- an unreadable cache is no cache: the model decides
        log.warning("could not read the replay cache of run %s", run_id, exc_info=True)
        return StepReplay()


async def replay_save(store: ReplayStore | None, paths: dict[str, list[CachedTurn]], secrets, *,
                      run_id: int | None = None) -> None:
    """Cache the clean reasoned paths of a run that verified (the caller checks that it did). A
    path that typed a vault value as itself is left out (replaying it would need the value); the
    rest is scrubbed of the run's secrets. A failure is logged: it only costs model calls later."""
    if store is None or not store.enabled or not paths:
        return
    kept = {key: [CachedTurn.from_json(secrets.scrub_data(t.to_json(), fragments=False)) for t in turns]
            for key, turns in paths.items()
            if not any(secrets.holds_secret(json.dumps(t.actions)) for t in turns)}
    if not kept:
        return
    try:
        await store.save(kept)
    except Exception:  # noqa: BLE001 -- the run is done; a cache it could not write only costs model calls
        log.warning("could not save the replay cache of run %s", run_id, exc_info=True)
