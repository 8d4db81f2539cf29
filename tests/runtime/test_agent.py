"""Agent steps (`workers.agent.AgentLoop`) run by `Runner` in a real Chromium against the practice
site, with the model test double (`FakeModel`, a real local OpenAI-compatible server) answering
in the UI-Venus-2 format at points measured on the real page (`practice_layout`). No Django.

One Chromium (one `BrowserPool`) and one FakeModel serve the module from one event loop; every
run gets a fresh browser context and a fresh model client, exactly as worker runs do.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from PIL import Image

from tests.helpers.fake_model import FakeModel, Reply, venus
from tests.helpers.layout import practice_layout
from tests.helpers import runtime
from tests.helpers.runtime import Browser
from workers import actions as A
from workers import steps as S
from workers.agent import AgentConfig, AgentLoop
from workers.policies.client import ModelClient, ModelSettings
from workers.runner import RunResult, Runner, StepRecord
from workers.secrets import Credential, SecretBox

PASSWORD = "demo-password"
USER_SLOT = "{{credentials.acme.username}}"
PASSWORD_SLOT = "{{credentials.acme.password}}"
VIEWPORT = (1280, 800)


# --- fixtures and helpers ------------------------------------------------------------------


browser = runtime.browser  # one Chromium for the module


@pytest.fixture(scope="module")
def layout(practice_url) -> dict[str, tuple[int, int]]:
    return practice_layout(practice_url)


@pytest.fixture(scope="module")
def model_server():
    with FakeModel() as model:
        yield model


@pytest.fixture
def fake(model_server) -> FakeModel:
    model_server.clear()
    model_server.default = None
    return model_server


@dataclass
class Recorder:
    """An in-memory RunRecorder; `ask_user` answers `answer` after `wait_s` seconds."""

    answer: str = ""
    wait_s: float = 0.0
    records: list[StepRecord] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)

    async def record_step(self, record: StepRecord) -> None:
        self.records.append(record)

    async def heartbeat(self) -> bool:
        return True

    async def ask_user(self, question: str) -> str:
        self.questions.append(question)
        await asyncio.sleep(self.wait_s)
        return self.answer

    @property
    def agent_records(self) -> list[StepRecord]:
        return [r for r in self.records if r.kind == "agent"]


def local_secrets() -> SecretBox:
    return SecretBox({"acme": Credential("acme", {"username": "demo", "password": PASSWORD}, domains=["127.0.0.1"])})


def spec_for(browser: Browser, steps: list[dict], *, path: str = "/login", **extra: Any) -> S.AutomationSpec:
    return S.AutomationSpec.model_validate(
        {"start_url": browser.base_url + path, "allowed_domains": ["127.0.0.1"], "steps": steps, **extra}
    )


def run_agent(browser: Browser, fake: FakeModel, spec: S.AutomationSpec, *, config: AgentConfig | None = None,
              recorder: Recorder | None = None, tries: int = 2) -> tuple[RunResult, Recorder, float]:
    """Run spec with an agent loop talking to the fake model; (result, recorder, seconds)."""
    recorder = recorder or Recorder()

    async def main() -> RunResult:
        client = ModelClient(ModelSettings(url=fake.url, model=fake.model, timeout_s=10, tries=tries, backoff_s=0.05))
        try:
            runner = Runner({"web": browser.host}, agent=AgentLoop(client, config or AgentConfig()))
            return await runner.run(spec, params={}, secrets=local_secrets(), recorder=recorder)
        finally:
            await client.aclose()

    t0 = time.monotonic()
    result = browser.run(main())
    return result, recorder, time.monotonic() - t0


def click(point: tuple[int, int]) -> str:
    return f"Click(point=({point[0]}, {point[1]}))"


def pixels(point: tuple[int, int]) -> dict[str, int]:
    x, y = A.map_point(point, width=VIEWPORT[0], height=VIEWPORT[1])
    return {"x": x, "y": y}


def images(message: dict) -> list[bytes]:
    """The images of one message, decoded from their base64 data URLs."""
    content = message["content"]
    if isinstance(content, str):
        return []
    out = []
    for part in content:
        if part["type"] == "image_url":
            prefix, _, data = part["image_url"]["url"].partition(",")
            assert prefix == "data:image/jpeg;base64"
            out.append(base64.b64decode(data))
    return out


def text(message: dict) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part["type"] == "text")


def image_size(jpeg: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(jpeg)) as image:
        assert image.format == "JPEG"
        return image.size


def script_sign_in(fake: FakeModel, layout) -> None:
    """Six turns that sign in; the environment waits for the form post the click starts."""
    fake.script(
        venus("The sign-in form is open. Focus the username field.", click(layout["Username"])),
        venus("Type the user name.", f"Type(content='{USER_SLOT}')"),
        venus("Now the password field.", click(layout["Password"]), inline=False),  # reasoning_content variant
        venus("Type the password.", f"Type(content='{PASSWORD_SLOT}')"),
        venus("Submit the form.", click(layout['Sign in'])),
        venus("The expense form is open, so I am signed in.", "Finished(content='Signed in')"),
    )


SIGN_IN = {"kind": "agent", "name": "Sign in", "goal": f"Sign in as {USER_SLOT} with the password {PASSWORD_SLOT}.",
           "max_actions": 10}


# --- the closed loop -----------------------------------------------------------------------


def test_an_agent_step_signs_in_from_the_models_answers(browser, fake, layout):
    script_sign_in(fake, layout)
    spec = spec_for(browser, [SIGN_IN], success_criteria={"url_contains": "/expenses/new",
                                                          "text_visible": "Signed in as demo"})
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "succeeded", result.reason
    assert result.output == {"result": "Signed in"}
    assert result.verdict["passed"] is True

    # One record per model turn, after the start URL's goto.
    assert [r.kind for r in recorder.records] == ["goto"] + ["agent"] * 6
    assert [r.index for r in recorder.records] == list(range(7))
    turns = recorder.agent_records
    assert all(r.status == "succeeded" and r.name == "Sign in" for r in turns)
    assert turns[0].thought == "The sign-in form is open. Focus the username field."
    assert turns[2].thought == "Now the password field."
    assert turns[0].action["actions"] == [{"type": "Click", "point": list(layout["Username"])}]
    focused = {"verdict": "effective", "check": "focus_moved", "evidence": {"focused": "input"}}
    assert turns[0].grounding == {"mapped": [{**pixels(layout["Username"]), "effect": focused}],
                                  "viewport": {"width": 1280, "height": 800}, "effect": focused}
    assert turns[4].grounding["mapped"] == [{**pixels(layout["Sign in"]), "effect": {
        "verdict": "effective", "check": "navigation", "evidence": {"url_changed": True}}}]
    assert turns[3].action["text"] == f"Type(content='{PASSWORD_SLOT}')"  # the record keeps the placeholder
    assert turns[-1].url == browser.base_url + "/expenses/new"
    for turn in turns:
        assert turn.screenshot[:2] == b"\xff\xd8"
        assert turn.model["prompt_sha256"] and turn.model["calls"][0]["tries"] == 1
        assert turn.model["image"]["width"] == 1280 and turn.model["image"]["height"] == 800
    assert [t.model["history_turns"] for t in turns] == list(range(6))
    assert turns[-1].action["actions"] == [{"type": "Finished", "content": "Signed in"}]

    # The credential was typed (the sign-in worked) but never sent to the model nor recorded.
    assert len(fake.requests) == 6
    sent = json.dumps(fake.requests)
    assert PASSWORD not in sent and PASSWORD_SLOT in sent
    system = fake.requests[0]["messages"][0]
    assert system["role"] == "system" and system["content"].rstrip().endswith(SIGN_IN["goal"])
    recorded = [(r.action, r.grounding, r.output, r.error, r.thought, r.model) for r in recorder.records]
    assert PASSWORD not in repr(recorded)
    # Navigation turns keep thinking at the template default (never sent as false).
    assert all("chat_template_kwargs" not in body for body in fake.requests)


def test_downscaled_screenshots_still_click_in_viewport_pixels(browser, fake, layout):
    script_sign_in(fake, layout)
    spec = spec_for(browser, [SIGN_IN], success_criteria={"url_contains": "/expenses/new"})
    result, recorder, _ = run_agent(browser, fake, spec, config=AgentConfig(max_pixels=320 * 200))

    assert result.status == "succeeded", result.reason
    sent = [image for body in fake.requests for message in body["messages"] for image in images(message)]
    # The current screenshot plus up to two history screenshots per request.
    assert len(sent) == sum(1 + min(k, 2) for k in range(len(fake.requests)))
    assert {image_size(image) for image in sent} == {(320, 200)}
    turns = recorder.agent_records
    first_image = images(fake.requests[0]["messages"][-1])[0]
    assert turns[0].model["image"] == {"width": 320, "height": 200, "bytes": len(first_image)}
    # Points are mapped with the 1280×800 viewport, not the 320×200 image.
    assert [{k: m[k] for k in ("x", "y")} for m in turns[0].grounding["mapped"]] == [pixels(layout["Username"])]
    assert [{k: m[k] for k in ("x", "y")} for m in turns[4].grounding["mapped"]] == [pixels(layout["Sign in"])]
    assert turns[0].grounding["viewport"] == {"width": 1280, "height": 800}
    assert image_size(turns[0].screenshot) == VIEWPORT  # the record keeps the full-size screenshot


def test_history_keeps_two_screenshots_canonical_answers_and_action_feedback(browser, fake, layout):
    fake.script(
        venus("Focus the username field.", click(layout["Username"])),
        venus("Open the help site in a new tab.", "Launch(url='https://evil.example/')"),
        venus("That was refused. Type the user name.", "Type(content='visitor')", inline=False),
        venus("The user name is typed.", "Finished(content='typed')"),
    )
    spec = spec_for(browser, [
        {"kind": "agent", "goal": "Type the user name", "max_actions": 6},
        {"kind": "extract", "target": {"label": "Username"}, "into": "typed", "attribute": "value"},
    ])
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "succeeded", result.reason  # the refused Launch did not end the step
    assert result.output == {"result": "typed", "typed": "visitor"}
    assert len(fake.requests) == 4

    refused = ("The action Launch(url='https://evil.example/') failed: the run may only visit 127.0.0.1; "
               "blocked navigation to evil.example")
    launch = recorder.agent_records[1]
    assert launch.status == "succeeded" and "blocked navigation to evil.example" in launch.grounding["mapped"][0]["error"]
    # The failure is fed back as text in the very next user turn, before the screenshot label.
    third = fake.requests[2]["messages"][-1]
    assert text(third).startswith(refused + "\n")
    assert text(third).endswith("Current Screenshot:\n")

    messages = fake.requests[3]["messages"]
    assert [m["role"] for m in messages] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    # Exactly the last two earlier screenshots, plus the current one.
    assert [len(images(m)) for m in messages] == [0, 0, 0, 1, 0, 1, 0, 1]
    assert messages[1]["content"] == ""  # the oldest turn lost its image
    current = [images(body["messages"][-1])[0] for body in fake.requests]
    assert images(messages[3]) == [current[1]] and images(messages[5]) == [current[2]]
    assert images(messages[7]) == [current[3]]
    assert text(messages[3]) == "History Screenshot:"
    assert text(messages[5]) == refused + "\nHistory Screenshot:"
    assert text(messages[7]) == f"Current URL: {browser.base_url}/login\nCurrent Screenshot:\n"
    # Earlier answers come back in canonical form, thought included (also when it came as reasoning).
    assert [m["content"] for m in messages[2:7:2]] == [
        f"<think>Focus the username field.</think>\n<action>{click(layout['Username'])}</action>",
        "<think>Open the help site in a new tab.</think>\n<action>Launch(url='https://evil.example/')</action>",
        "<think>That was refused. Type the user name.</think>\n<action>Type(content='visitor')</action>",
    ]


def call_user_script() -> list[Reply]:
    return [
        venus("I do not know which account to use.", "CallUser(content='Which account should I use?')"),
        venus("The user chose the demo account.", "Finished(content='the visitor account')"),
    ]


def test_call_user_asks_the_recorder_and_the_wait_is_not_counted_against_the_step_budget(browser, fake):
    fake.script(*call_user_script())
    # The budget leaves room for the agent's own turns and the step evaluator's page reads on a loaded CI machine;
    # the wait alone is longer than the whole budget.
    recorder = Recorder(answer="Use the visitor account", wait_s=4.5)
    spec = spec_for(browser, [{"kind": "agent", "goal": "Sign in", "timeout_s": 3}])
    result, recorder, took = run_agent(browser, fake, spec, recorder=recorder)

    assert result.status == "succeeded", result.reason
    assert took > 4.5  # longer than the step's budget, thanks to the wait
    assert recorder.questions == ["Which account should I use?"]
    assert result.output == {"result": "the visitor account"}
    assert len(fake.requests) == 2
    answered = text(fake.requests[1]["messages"][-1])
    assert answered.startswith("The user answered: Use the visitor account\n")
    assert fake.requests[1]["messages"][2]["content"].endswith(
        "<action>CallUser(content='Which account should I use?')</action>")
    asked = recorder.agent_records[0]
    assert asked.action["actions"] == [{"type": "CallUser", "content": "Which account should I use?"}]
    assert [r.status for r in recorder.agent_records] == ["succeeded", "succeeded"]


def test_a_wait_for_the_user_longer_than_the_runs_time_limit_does_not_time_the_run_out(browser, fake):
    fake.script(*call_user_script())
    recorder = Recorder(answer="Use the visitor account", wait_s=4.0)
    spec = spec_for(browser, [{"kind": "agent", "goal": "Sign in"}], limits={"max_seconds": 3})
    result, recorder, took = run_agent(browser, fake, spec, recorder=recorder)

    assert result.status == "succeeded", result.reason
    assert took > 4.0
    assert result.output == {"result": "the visitor account"}


# --- the step's limits and failures --------------------------------------------------------


def test_an_agent_that_never_finishes_fails_after_max_actions(browser, fake):
    fake.default = venus("Where am I?", "GetUrl()")
    spec = spec_for(browser, [{"kind": "agent", "name": "Look around", "goal": "Look around", "max_actions": 3}])
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "failed"
    # The automation's one step, though its three turns and the failure are trace records #1 to #4.
    assert result.reason == "step 1 (Look around): agent step did not finish within 3 actions"
    assert recorder.records[-1].status == "failed" and recorder.records[-1].index == 4  # the trace ends on the failure
    assert len(fake.requests) == 3 and len(recorder.agent_records) == 4
    assert text(fake.requests[1]["messages"][-1]).startswith(f"Current URL: {browser.base_url}/login\n")


def test_an_agent_repeating_the_same_click_is_stopped_as_stuck(browser, fake):
    fake.default = venus("Click the empty space again.", "Click(point=(500, 950))")
    spec = spec_for(browser, [{"kind": "agent", "goal": "Click around", "max_actions": 10, "repeat_limit": 3}])
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "failed"
    assert result.reason.endswith("the agent repeated Click(point=(500, 950)) 3 times; stopped as stuck")
    assert len(fake.requests) == 3
    assert [r.status for r in recorder.agent_records] == ["succeeded", "succeeded", "failed"]
    assert recorder.agent_records[-1].error == "stuck"


def test_an_agent_step_past_its_time_budget_fails(browser, fake):
    fake.default = Reply(content="Still looking.</think>\n<action>GetUrl()</action>", delay_s=0.4)
    spec = spec_for(browser, [{"kind": "agent", "goal": "Look around", "timeout_s": 3, "max_actions": 50,
                                "repeat_limit": 50}])
    result, _, took = run_agent(browser, fake, spec)

    assert result.status == "failed"
    assert "agent step ran out of its time budget (3s)" in result.reason
    assert 2 <= len(fake.requests) <= 8  # 0.4 s a turn: the budget, not max_actions, stopped it
    assert took < 10


def test_a_model_server_that_keeps_failing_fails_the_step_naming_it(browser, fake):
    fake.default = Reply(status=503)
    spec = spec_for(browser, [{"kind": "agent", "goal": "Sign in"}])
    result, recorder, _ = run_agent(browser, fake, spec, tries=2)

    assert result.status == "failed"
    assert result.reason.endswith(f"model server unavailable at {fake.url} after 2 tries (HTTP 503)")
    assert len(fake.requests) == 2
    assert recorder.records[-1].kind == "agent" and recorder.records[-1].status == "failed"


def test_an_answer_unparsable_twice_fails_the_step(browser, fake):
    fake.script(Reply(content="I would click somewhere."), Reply(content="<action>Tap(x=1)</action>"))
    spec = spec_for(browser, [{"kind": "agent", "goal": "Sign in"}])
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "failed"
    assert "the model's answer could not be parsed twice: Unknown action 'Tap'" in result.reason
    assert "could not be used: No <action>" in text(fake.requests[1]["messages"][-1])
    assert recorder.agent_records[0].model["raw"] == "<action>Tap(x=1)</action>"


# --- model grounding for explicit steps ------------------------------------------------------


def grounding_spec(browser: Browser, *, model_grounding: bool) -> S.AutomationSpec:
    return spec_for(browser, [
        {"kind": "fill", "name": "User", "target": "The login name box", "value": "demo", "timeout_s": 0.5},
        {"kind": "fill", "name": "Password", "target": "Password", "value": PASSWORD_SLOT},
        {"kind": "click", "name": "Sign in", "target": "The big blue sign-in button", "timeout_s": 0.5},
        {"kind": "wait_for", "name": "Form", "text": "Step 1 of 2", "timeout_s": 5},
    ], model_grounding=model_grounding)


def test_model_grounding_finds_targets_the_dom_grounder_cannot(browser, fake, layout):
    fake.script(Reply(content="[{},{}]".format(*layout["Username"])),
                Reply(content="[{}, {}].".format(*layout["Sign in"])))
    result, recorder, _ = run_agent(browser, fake, grounding_spec(browser, model_grounding=True))

    assert result.status == "succeeded", result.reason
    fill, _, clicked, waited = recorder.records[1:]
    assert fill.grounding == {"strategy": "model grounding", "instruction": "the input field 'The login name box'",
                              "point": list(pixels(layout["Username"]).values())}
    assert clicked.grounding == {"strategy": "model grounding",
                                 "instruction": "the element 'The big blue sign-in button'",
                                 "point": list(pixels(layout["Sign in"]).values())}
    assert waited.status == "succeeded"

    assert len(fake.requests) == 2
    for body, instruction in zip(fake.requests, ("the input field 'The login name box'",
                                                 "the element 'The big blue sign-in button'")):
        (message,) = body["messages"]  # one user message: the image, then the instruction
        assert message["role"] == "user"
        assert [part["type"] for part in message["content"]] == ["image_url", "text"]
        assert image_size(images(message)[0]) == VIEWPORT
        assert f"Element: {instruction}\n" in text(message)
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        assert body["temperature"] == 0.0 and body["top_p"] == 1.0 and body["max_tokens"] == 1024


def test_model_grounding_that_finds_nothing_fails_the_step(browser, fake, layout):
    fake.script(Reply(content="[{},{}]".format(*layout["Username"])), Reply(content="[-1,-1]"))
    result, recorder, _ = run_agent(browser, fake, grounding_spec(browser, model_grounding=True))

    assert result.status == "failed"
    assert result.reason.startswith("step 3 (Sign in): target 'The big blue sign-in button' not found")
    assert result.reason.endswith("; the model did not find it either")
    assert recorder.records[-1].status == "failed"


def test_without_model_grounding_a_missing_target_fails_without_asking_the_model(browser, fake):
    fake.default = Reply(content="[500,500]")
    result, recorder, _ = run_agent(browser, fake, grounding_spec(browser, model_grounding=False))

    assert result.status == "failed"
    assert result.reason.startswith("step 1 (User): target 'The login name box' not found")
    assert "model" not in result.reason
    assert fake.requests == []


# --- form controls -------------------------------------------------------------------------


def test_the_agent_types_a_date_and_picks_a_select_option_from_the_listed_options(browser, fake, layout):
    fake.script(
        venus("Open the date field.", click(layout["Date"])),
        venus("Type the date.", "Type(content='2024-03-05')"),
        venus("Open the category list.", click(layout["Category"])),
        venus("Meals is option 2.", "SelectOption(index=2)"),
        venus("Date and category are set.", "Finished(content='set')"),
    )
    spec = spec_for(browser, [
        {"kind": "fill", "target": "Username", "value": "demo"},
        {"kind": "fill", "target": "Password", "value": PASSWORD_SLOT},
        {"kind": "click", "target": "Sign in"},
        {"kind": "wait_for", "url_contains": "/expenses/new"},
        {"kind": "agent", "goal": "Set the date to 2024-03-05 and the category to Meals", "max_actions": 8},
        {"kind": "extract", "target": {"label": "Date"}, "into": "date", "attribute": "value"},
        {"kind": "extract", "target": {"label": "Category"}, "into": "category", "attribute": "value"},
    ])
    result, recorder, _ = run_agent(browser, fake, spec)

    assert result.status == "succeeded", result.reason
    assert result.output == {"result": "set", "date": "2024-03-05", "category": "Meals"}
    after_select_click = text(fake.requests[3]["messages"][-1])
    assert after_select_click.startswith(
        "The clicked select has options (use SelectOption(index=n)): 0: Choose a category; 1: Travel; 2: Meals; "
        "3: Lodging; 4: Office supplies; 5: Other\n")
    assert text(fake.requests[4]["messages"][-1]).startswith("Selected option 2: Meals\n")
