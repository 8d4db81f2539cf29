"""The replay cache in the runtime (`workers.replay`): agent steps run by `Runner` in a real
Chromium against the practice site's /lab/replay pages, with the model test double answering at
points measured on the real page. The store is the in-memory `MemoryStore` (the platform's is
tested in tests/runs/test_replay_cache.py); no Django.
"""

from __future__ import annotations

import copy
from urllib.parse import urlsplit
from dataclasses import dataclass, field

import httpx
import pytest

from tests.helpers import gate
from tests.helpers.fake_model import FakeModel, venus
from workers import steps as S
from workers.agent import AgentConfig, AgentLoop
from workers.gates.guard import SafetyGate
from workers.gates.review import ReviewDecision
from workers.policies.client import ModelClient, ModelSettings
from workers.replay import CachedTurn, replay_applies, step_key
from workers.runner import RunResult, Runner

EMAIL = "ada@example.com"
GOAL = f"Send the weekly updates to {EMAIL}"
browser = gate.browser  # one Chromium for the module (pages can start signed in)


@dataclass
class MemoryStore:
    """An in-memory ReplayStore for one automation version."""

    enabled: bool = True
    paths: dict[str, list[CachedTurn]] = field(default_factory=dict)
    saves: int = 0

    async def load(self, key: str) -> list[CachedTurn] | None:
        return copy.deepcopy(self.paths.get(key))

    async def save(self, paths: dict[str, list[CachedTurn]]) -> None:
        self.paths.update(copy.deepcopy(paths))
        self.saves += 1


@pytest.fixture(scope="module")
def model_server():
    with FakeModel() as model:
        yield model


@pytest.fixture
def fake(model_server) -> FakeModel:
    model_server.clear()
    model_server.default = None
    return model_server


@pytest.fixture
def lab(browser):
    httpx.post(browser.base_url + "/api/reset")
    yield browser.base_url
    httpx.post(browser.base_url + "/api/reset")


def layout(browser, name: str) -> None:
    httpx.post(browser.base_url + "/api/lab/replay", json={"layout": name}).raise_for_status()


def centre(browser, path: str, role: str, name: str) -> tuple[int, int]:
    """A control's centre on `path` in the model's 0-1000 space, measured in Chromium."""

    async def body(env, _executor):
        await env.page.goto(browser.base_url + path)
        box = await env.page.get_by_role(role, name=name).bounding_box()
        return round((box["x"] + box["width"] / 2) / 1280 * 1000), round((box["y"] + box["height"] / 2) / 800 * 1000)

    return browser.session(body)


def spec(browser) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/lab/replay", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "agent", "name": "Preferences", "goal": GOAL, "max_actions": 8}],
        "success_criteria": {"url_contains": "/lab/replay/done", "text_visible": "Preferences saved"},
    })


def confirm_turns(browser, button: str):
    return [venus("Save the preferences.", click(centre(browser, f"/lab/replay/confirm?email={EMAIL}", "button", button))),
            venus("Saved.", "Finished(content='saved')")]


def script_first_run(fake: FakeModel, browser, button: str = "Save preferences") -> None:
    fake.script(
        venus("Focus the email field.", click(centre(browser, "/lab/replay", "textbox", "Email"))),
        venus("Type the address.", f"Type(content='{EMAIL}')"),
        venus("Continue.", click(centre(browser, "/lab/replay", "button", "Continue"))),
        *confirm_turns(browser, button),
    )


def click(point: tuple[int, int]) -> str:
    return f"Click(point=({point[0]}, {point[1]}))"


def run(browser, fake: FakeModel, automation: S.AutomationSpec, store: MemoryStore | None, *,
        recorder=None, safety: bool = True) -> tuple[RunResult, object]:
    recorder = recorder or gate.ReviewRecorder()

    async def main() -> RunResult:
        client = ModelClient(ModelSettings(url=fake.url, model=fake.model, timeout_s=10, tries=1))
        try:
            runner = Runner({"web": browser.host}, agent=AgentLoop(client, AgentConfig()),
                            safety=SafetyGate(hold_s=600) if safety else None)
            return await runner.run(automation, params={}, secrets=gate.secrets(), recorder=recorder, replay=store)
        finally:
            await client.aclose()

    return browser.run(main()), recorder


def turns(recorder) -> list:
    return [r for r in recorder.records if r.kind == "agent"]


def replayed(recorder) -> list[bool]:
    return [bool(r.model.get("replay", {}).get("replayed")) for r in turns(recorder)]


def saved(browser) -> list[str]:
    return httpx.get(browser.base_url + "/api/lab/replay").json()["saved"]


# --- tests ---------------------------------------------------------------------------------


def test_a_verified_run_is_cached_and_the_next_run_makes_no_model_call(browser, fake, lab):
    store = MemoryStore()
    script_first_run(fake, browser)
    first, recorder = run(browser, fake, spec(browser), store)
    assert first.status == "succeeded", first.reason
    assert len(fake.requests) == 5 and replayed(recorder) == [False] * 5
    (key,) = store.paths
    assert key == step_key(1, GOAL)
    path = store.paths[key]
    assert [t.actions[0]["type"] for t in path] == ["Click", "Type", "Click", "Click", "Finished"]
    assert path[0].anchors[0]["role"] == "textbox" and path[0].anchors[0]["name"] == "Email"
    assert path[3].anchors[0]["name"] == "Save preferences" and path[3].anchors[0]["selector"] == "#save"
    assert path[0].fingerprint["path"] == "/lab/replay" and path[3].fingerprint["path"] == "/lab/replay/confirm"

    fake.clear()  # no script: any model call would get an error
    second, recorder = run(browser, fake, spec(browser), store)
    assert second.status == "succeeded", second.reason
    assert second.output == {"result": "saved"} and second.verdict["passed"] is True
    assert fake.requests == []
    assert replayed(recorder) == [True] * 5
    assert all(r.model_ms == 0 and r.status == "succeeded" for r in turns(recorder))
    assert saved(browser) == [EMAIL, EMAIL]  # the replay really acted
    assert store.saves == 1  # a fully replayed path is already cached: nothing rewritten


@pytest.mark.parametrize("changed, button", [("renamed", "Keep these settings"), ("moved", "Save preferences")])
def test_a_changed_screen_hands_over_to_the_model_there_and_the_new_path_is_cached(browser, fake, lab, changed, button):
    store = MemoryStore()
    script_first_run(fake, browser)
    assert run(browser, fake, spec(browser), store)[0].status == "succeeded"

    layout(browser, changed)
    fake.clear()
    fake.script(*confirm_turns(browser, button))
    result, recorder = run(browser, fake, spec(browser), store)
    assert result.status == "succeeded", result.reason
    assert len(fake.requests) == 2  # only the changed screen onwards
    assert replayed(recorder) == [True, True, True, False, False]
    handed_over = turns(recorder)[3].model["replay"]
    assert handed_over["replayed"] is False and "controls changed" in handed_over["drift"]
    # The model saw the replayed turns as its history.
    assert turns(recorder)[3].model["history_turns"] == 3
    (path,) = store.paths.values()
    assert path[3].anchors[0]["name"] == button and store.saves == 2

    fake.clear()
    again, recorder = run(browser, fake, spec(browser), store)
    assert again.status == "succeeded", again.reason
    assert fake.requests == [] and replayed(recorder) == [True] * 5


def test_with_the_cache_off_every_turn_asks_the_model_and_nothing_is_saved(browser, fake, lab):
    store = MemoryStore()
    script_first_run(fake, browser)
    run(browser, fake, spec(browser), store)
    store.enabled = False
    fake.clear()
    script_first_run(fake, browser)
    result, recorder = run(browser, fake, spec(browser), store)
    assert result.status == "succeeded", result.reason
    assert len(fake.requests) == 5 and store.saves == 1
    assert turns(recorder)[0].model["replay"] == {"applies": False, "reason": "the replay cache is off for this automation"}


def test_a_failed_run_does_not_replace_the_cached_path(browser, fake, lab):
    store = MemoryStore()
    script_first_run(fake, browser)
    run(browser, fake, spec(browser), store)
    cached = copy.deepcopy(store.paths)
    layout(browser, "renamed")
    fake.clear()
    fake.script(venus("Give up.", "Finished(content='not here')"))
    result, _ = run(browser, fake, spec(browser), store)
    assert result.status == "failed" and "success criteria" in result.reason
    assert store.paths == cached and store.saves == 1


def test_a_replayed_risky_click_still_waits_for_a_reviewer(browser, fake, lab):
    store = MemoryStore()
    x, y = gate_point(browser)
    fake.script(venus("Turn it off.", f"Click(point=({x}, {y}))"), venus("It is off.", "Finished(content='off')"))
    first, recorder = run(browser, fake, security_spec(browser), store)
    assert first.status == "succeeded", first.reason
    assert len(recorder.questions) == 1
    assert store.paths

    httpx.post(browser.base_url + "/api/reset")  # two-factor on again
    fake.clear()
    rejected = gate.ReviewRecorder(decide=lambda q: ReviewDecision("reject", comment="keep it", decided_by="rita"))
    fake.script(venus("The reviewer said no.", "Finished(content='left on')"))
    result, recorder = run(browser, fake, security_spec(browser), store, recorder=rejected)
    assert result.status == "succeeded", result.reason
    (question,) = rejected.questions  # the replayed click was classified and reviewed like a reasoned one
    assert question.verdict["category"] == "SEC" and question.step["thought"] == "Turn it off."
    assert replayed(recorder) == [True, False]  # refused: the model took over at once
    assert len(fake.requests) == 1 and two_factor_on(browser)

    httpx.post(browser.base_url + "/api/reset")
    fake.clear()
    approved = gate.ReviewRecorder()
    result, recorder = run(browser, fake, security_spec(browser), store, recorder=approved)
    assert result.status == "succeeded", result.reason
    assert len(approved.questions) == 1 and not two_factor_on(browser) and fake.requests == []


@pytest.mark.parametrize("safety", [True, False])
def test_a_cached_navigation_off_the_allowed_domains_is_refused_and_the_model_takes_over(browser, fake, lab, safety):
    """A cache entry is data a hostile hand may have written: its navigation meets the safety gate
    (when on) and the executor's domain check like a model's, and never leaves the allowed domains."""
    store = MemoryStore(paths={step_key(1, GOAL): [CachedTurn(
        fingerprint={}, thought="", action_text="", actions=[{"type": "Launch", "url": "http://example.com/"}],
        anchors=[None])]})
    poisoned = store.paths[step_key(1, GOAL)][0]

    async def fingerprint(env, _executor):
        await env.page.goto(browser.base_url + "/lab/replay")
        return await env.screen_fingerprint()

    poisoned.fingerprint = browser.session(fingerprint)
    script_first_run(fake, browser)
    result, recorder = run(browser, fake, spec(browser), store, safety=safety)
    assert result.status == "succeeded", result.reason
    first = turns(recorder)[0]
    assert first.model["replay"]["replayed"] is True
    refused = first.grounding["mapped"][0]
    assert refused.get("skipped") if safety else "blocked navigation to example.com" in refused["error"]
    assert {urlsplit(r.url).hostname for r in recorder.records} == {"127.0.0.1"}
    assert len(fake.requests) == 5  # the drift handed every later turn to the model
    if not safety:  # the refused turn left no trace: the model's path replaces the poisoned one
        assert store.paths[step_key(1, GOAL)][0].actions[0]["type"] == "Click"


def test_surfaces_without_anchors_say_replay_does_not_apply():
    class Phone:
        surface = "android"

    assert replay_applies(Phone()) == "the android surface has no anchors for replay; every turn asks the model"


# --- the security page (safety gate) ---------------------------------------------------------


def security_spec(browser) -> S.AutomationSpec:
    sign_in = gate.checkout_spec(browser.base_url).steps[:4]
    return S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [*[s.model_dump(exclude_none=True) for s in sign_in], {"kind": "goto", "url": "/security"},
                  {"kind": "agent", "name": "Security", "goal": "Turn off two-factor authentication", "max_actions": 5}],
    })


def gate_point(browser) -> tuple[int, int]:
    async def body(env):
        await env.page.goto(browser.base_url + "/security")
        box = await env.page.get_by_role("button", name="Turn off two-factor authentication").bounding_box()
        return round((box["x"] + box["width"] / 2) / 1280 * 1000), round((box["y"] + box["height"] / 2) / 800 * 1000)

    return browser.page(body)


def two_factor_on(browser) -> bool:
    return httpx.get(browser.base_url + "/api/security").json()["accounts"]["demo"]["two_factor_enabled"]


def test_a_replayed_risky_click_that_parks_for_its_review_resumes_still_replaying(browser, fake, lab):
    import json

    from workers.durable import Continuation

    store = MemoryStore()
    x, y = gate_point(browser)
    fake.script(venus("Turn it off.", f"Click(point=({x}, {y}))"), venus("It is off.", "Finished(content='off')"))
    assert run(browser, fake, security_spec(browser), store)[0].status == "succeeded"
    httpx.post(browser.base_url + "/api/reset")
    fake.clear()

    def runner_with(client) -> Runner:
        return Runner({"web": browser.host}, agent=AgentLoop(client, AgentConfig()), safety=SafetyGate(hold_s=0.3))

    async def go(recorder, resume=None) -> RunResult:
        client = ModelClient(ModelSettings(url=fake.url, model=fake.model, timeout_s=10, tries=1))
        try:
            return await runner_with(client).run(security_spec(browser), params={}, secrets=gate.secrets(),
                                                 recorder=recorder, replay=store, resume=resume)
        finally:
            await client.aclose()

    waiting = gate.ReviewRecorder(delay_s=3600)
    parked = browser.run(go(waiting))
    assert parked.status == "parked", parked.reason
    (question,) = waiting.questions
    continuation = Continuation.from_json(json.loads(json.dumps(parked.continuation.to_json())))  # as stored
    assert continuation.agent["replay"]["position"] == 0 and continuation.agent["replay"]["cached"]

    decided = gate.ReviewRecorder(pending="1", questions=[question], opened={"1": 0.0})
    result = browser.run(go(decided, continuation))
    assert result.status == "succeeded", result.reason
    assert result.output == {"result": "off"} and not two_factor_on(browser)
    assert fake.requests == [] and replayed(decided) == [True, True]
    assert store.saves == 1  # a fully replayed path is not rewritten
