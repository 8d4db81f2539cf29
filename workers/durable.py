"""Durable waits: a run that waits for a person longer than the hold window stops and is resumed
later, on any worker, from a `Continuation`.

Contract:
- A wait point (a risky-action review, the agent's question, a CAPTCHA for a person) that gets no
  answer within the hold window raises `Parked(wait)`. `wait` says what the run waits on:
  `{"kind": "review", "ref", "fingerprint"}`, `{"kind": "answer", "question"}` or
  `{"kind": "captcha", "ref", "challenge"}`.
- On its way out, the agent loop adds its state (`Parked.agent`: history, pending turn) and the
  runner adds the rest (`Parked.continuation`): the browser session (Playwright `storage_state`,
  the page's sessionStorage, the URL), the position in the steps, the output so far, the step
  records' next index, the run's remaining time, the iteration of each repeat block under way.
- `Runner.run(..., resume=continuation)` restores the session in a fresh context, sets this page's
  fields again from the steps that set them, and goes on at the waiting action, which finds its
  answer at once (the recorder was given `continuation.wait`) and re-checks the page as usual.

Secrets: the session holds cookies of signed-in sessions; whoever stores a continuation must
store it encrypted and delete it when the run ends (the Django side does both).
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass, field
from typing import Any

# A script run in every page of a restored context: puts back the sessionStorage the page had
# when the run parked (its origin only), once per tab.
_SESSION_STORAGE_SCRIPT = """(saved) => {
  try {
    if (location.origin !== saved.origin || sessionStorage.getItem('__venus_restored')) return;
    for (const [k, v] of Object.entries(saved.items)) sessionStorage.setItem(k, v);
    sessionStorage.setItem('__venus_restored', '1');
  } catch (e) {}
}"""


class Parked(Exception):  # noqa: N818 -- a run state, not an error
    """A wait for a person outlasted the hold window: the run stops here; `continuation` resumes it."""

    def __init__(self, wait: dict[str, Any]) -> None:
        super().__init__(f"waiting for a person ({wait.get('kind')})")
        self.wait = wait
        self.agent: dict[str, Any] | None = None
        self.continuation: Continuation | None = None


@dataclass
class Continuation:
    """Everything a parked run needs to go on. JSON-safe via `to_json` / `from_json`."""

    wait: dict[str, Any]
    position: int  # index into the run's steps (the start-URL goto first)
    next_index: int  # the next step record's index
    output: dict[str, Any] = field(default_factory=dict)
    page_steps: list[dict[str, Any]] = field(default_factory=list)  # the steps done on this page, as done (edits)
    captchas_solved: list[str] = field(default_factory=list)
    session: dict[str, Any] = field(default_factory=dict)  # Playwright storage_state
    session_storage: dict[str, Any] = field(default_factory=dict)  # {"origin", "items"}
    url: str = ""
    remaining_s: float | None = None  # of the run's time limit
    agent: dict[str, Any] | None = None  # the agent step's state (`workers.agent`)
    kept: dict[str, Any] = field(default_factory=dict)  # an environment kept running for the run (its host's handle)
    loops: dict[str, int] = field(default_factory=dict)  # repeat blocks under way: path -> iterations begun
    item_output: dict[str, Any] = field(default_factory=dict)  # the values the item under way stored (workers.items)
    replay: dict[str, list] = field(default_factory=dict)  # agent steps' paths to cache if the run verifies (JSON)
    step_looks: list[str] = field(default_factory=list)  # step-judge disagreements so far (RunState.step_looks)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Continuation:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


async def save_session(env) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The browser session of `env`: storage_state (cookies, localStorage), the page's
    sessionStorage, and its URL."""
    state = await env.context.storage_state()
    try:
        session_storage = await env.page.evaluate(
            "() => ({origin: location.origin, items: Object.fromEntries(Object.entries(sessionStorage))})")
    except Exception:  # noqa: BLE001 -- an opaque origin (about:blank) has none
        session_storage = {}
    return state, session_storage, env.page.url


async def restore_session(host, env, continuation: Continuation) -> None:
    """Give `env` a new context holding the saved session, at the saved URL. The context is set up
    by the host exactly as a run's first one (egress guard included)."""
    await env.close()
    context = await host.new_context(env.egress, storage_state=continuation.session or None)
    await carry_session_storage(context, continuation.session_storage)
    from workers.envs.browser import open_page  # browser sessions only; this module stays free of Playwright

    if getattr(env, "files", None) is not None:
        env.files.attach(context)  # downloads of the restored session are captured as before
    env.context, env.page, env._cdp = context, await open_page(context), None
    if continuation.url and continuation.url != "about:blank":
        await env.goto(continuation.url)


async def carry_session_storage(context, session_storage: dict[str, Any]) -> None:
    """Every page of `context` starts with the saved sessionStorage of its origin (once per tab)."""
    if session_storage.get("items"):
        await context.add_init_script(script=f"({_SESSION_STORAGE_SCRIPT})({_js(session_storage)})")


def _js(value: Any) -> str:
    return json.dumps(value)


def encode_bytes(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data is not None else None


def decode_bytes(data: str | None) -> bytes | None:
    return base64.b64decode(data) if data is not None else None
