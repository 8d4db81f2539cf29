"""Message lists for UI-Venus-2 calls (`workers.policies.messages`, reference §5)."""

from __future__ import annotations

import base64

import pytest

from workers.policies.messages import (
    HistoryTurn, build_captcha_messages, build_grounding_messages, build_messages, estimate_image_tokens,
)
from workers.policies.parser import parse_answer
from workers.policies.prompts import load_prompt

SYSTEM = "You are a web agent.\nUser task: find the opening hours"
CURRENT = b"\xff\xd8current-jpeg"


def step(i: int, feedback: str = "", image: bytes | None = b"") -> HistoryTurn:
    return HistoryTurn(
        image=f"shot-{i}".encode() if image == b"" else image,
        assistant=f"<think>step {i}</think>\n<action>Wait()</action>",
        feedback=feedback,
    )


def images_in(content) -> list[bytes]:
    if isinstance(content, str):
        return []
    urls = [part["image_url"]["url"] for part in content if part["type"] == "image_url"]
    return [base64.b64decode(url.split(",", 1)[1]) for url in urls]


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part["text"] for part in content if part["type"] == "text")


def test_a_first_step_is_the_system_prompt_and_the_current_screenshot():
    messages = build_messages(system=SYSTEM, history=[], current_image=CURRENT)
    assert messages[0] == {"role": "system", "content": SYSTEM}
    assert [m["role"] for m in messages] == ["system", "user"]
    content = messages[1]["content"]
    assert content[0] == {"type": "text", "text": "Current Screenshot:\n"}
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"] == "data:image/jpeg;base64," + base64.b64encode(CURRENT).decode()


def test_roles_alternate_strictly_after_the_system_message():
    messages = build_messages(system=SYSTEM, history=[step(i) for i in range(5)], current_image=CURRENT)
    assert [m["role"] for m in messages] == ["system"] + ["user", "assistant"] * 5 + ["user"]


def test_only_the_last_n_earlier_screenshots_are_attached():
    history = [step(i) for i in range(5)]
    messages = build_messages(system=SYSTEM, history=history, current_image=CURRENT, n_images=2)
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users[:3] == ["", "", ""]
    for index, content in zip((3, 4), users[3:5]):
        assert content[0] == {"type": "text", "text": "History Screenshot:"}
        assert images_in(content) == [f"shot-{index}".encode()]
    assert images_in(users[5]) == [CURRENT]
    assert sum(len(images_in(content)) for content in users) == 3


def test_n_images_zero_attaches_only_the_current_screenshot():
    messages = build_messages(system=SYSTEM, history=[step(i) for i in range(3)], current_image=CURRENT, n_images=0)
    assert [images_in(m["content"]) for m in messages if m["role"] == "user"] == [[], [], [], [CURRENT]]


def test_a_history_step_without_a_kept_screenshot_gets_an_empty_user_turn():
    history = [step(0), step(1, image=None)]
    messages = build_messages(system=SYSTEM, history=history, current_image=CURRENT, n_images=2)
    assert images_in(messages[1]["content"]) == [b"shot-0"]
    assert messages[3]["content"] == ""


def test_more_images_allowed_than_steps_attaches_every_screenshot():
    messages = build_messages(system=SYSTEM, history=[step(0)], current_image=CURRENT, n_images=4)
    assert images_in(messages[1]["content"]) == [b"shot-0"]


def test_negative_image_counts_are_refused():
    with pytest.raises(ValueError):
        build_messages(system=SYSTEM, history=[], current_image=CURRENT, n_images=-1)


def test_feedback_opens_the_user_turn_after_the_step_that_produced_it():
    history = [step(0, feedback="Action failed: no element at (412, 318)"), step(1), step(2, feedback="Current URL: https://x.test/")]
    messages = build_messages(system=SYSTEM, history=history, current_image=CURRENT, n_images=1)
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users[0] == ""  # step 0 itself: nothing before it
    assert users[1] == "Action failed: no element at (412, 318)"  # text only: outside the last image
    assert users[2][0]["text"] == "History Screenshot:"  # step 1 produced no feedback
    assert text_of(users[3]) == "Current URL: https://x.test/\nCurrent Screenshot:\n"


def test_feedback_comes_before_the_history_label_when_the_turn_has_an_image():
    history = [step(0, feedback="The user replied: the second Anna"), step(1)]
    messages = build_messages(system=SYSTEM, history=history, current_image=CURRENT, n_images=2)
    assert messages[3]["content"][0]["text"] == "The user replied: the second Anna\nHistory Screenshot:"
    assert messages[3]["content"][1]["type"] == "image_url"


def test_current_feedback_follows_the_last_steps_feedback_before_the_label():
    history = [step(0, feedback="Options: 0 Red, 1 Blue")]
    messages = build_messages(system=SYSTEM, history=history, current_image=CURRENT, feedback="Gate: denied by policy")
    last = messages[-1]["content"]
    assert last[0]["text"] == "Options: 0 Red, 1 Blue\nGate: denied by policy\nCurrent Screenshot:\n"
    assert images_in(last) == [CURRENT]
    assert build_messages(system=SYSTEM, history=[], current_image=CURRENT, feedback="Note")[-1]["content"][0]["text"] == (
        "Note\nCurrent Screenshot:\n"
    )


def test_assistant_turns_hold_the_canonical_answer_with_its_thought():
    parsed = parse_answer("\n<action>Click(point=(10, 20))</action>", "The button is top left.", surface="browser")
    messages = build_messages(
        system=SYSTEM, history=[HistoryTurn(image=b"a", assistant=parsed.canonical())], current_image=CURRENT
    )
    assert messages[2] == {
        "role": "assistant",
        "content": "<think>The button is top left.</think>\n<action>Click(point=(10, 20))</action>",
    }


def test_the_image_mime_type_goes_into_the_data_url():
    messages = build_messages(system=SYSTEM, history=[step(0)], current_image=b"png", image_mime="image/png")
    assert messages[1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert messages[-1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_no_text_ever_holds_a_literal_image_marker():
    messages = build_messages(system=SYSTEM, history=[step(i, feedback="f") for i in range(4)], current_image=CURRENT)
    assert all("<image>" not in text_of(m["content"]) for m in messages)


def test_grounding_is_one_user_message_with_the_image_first():
    prompt = load_prompt("grounding", prompt_dir="")
    messages = build_grounding_messages(image=b"shot", instruction="the Search button.", prompt=prompt)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    image, text = messages[0]["content"]
    assert images_in([image]) == [b"shot"]
    assert text["type"] == "text"
    assert "Element: the Search button\n" in text["text"] and "{instruction}" not in text["text"]


def test_captcha_is_the_system_prompt_and_the_screenshot_alone():
    messages = build_captcha_messages(system="Solve it.", image=b"captcha", image_mime="image/png")
    assert messages[0] == {"role": "system", "content": "Solve it."}
    assert messages[1]["role"] == "user"
    assert [part["type"] for part in messages[1]["content"]] == ["image_url"]
    assert images_in(messages[1]["content"]) == [b"captcha"]


@pytest.mark.parametrize(
    ("size", "tokens"),
    [((1080, 2400), 2550), ((1920, 1080), 2040), ((1280, 800), 1000), ((1024, 768), 768), ((10, 10), 1)],
)
def test_image_tokens_are_about_one_per_32_pixel_square(size, tokens):
    assert estimate_image_tokens(*size) == tokens
