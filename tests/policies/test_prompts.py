"""System prompts per surface (`workers.policies.prompts`): built-in packs, overrides, slots, checks."""

from __future__ import annotations

import hashlib
import re

import pytest

from workers.actions import action_space
from workers.errors import ConfigurationError
from workers.policies import prompts
from workers.policies.parser import parse_answer
from workers.policies.prompts import (
    BUILTIN_DIR, PROMPT_DIR_ENV, Prompt, PromptError, check_prompts, documented_slots, fill_instruction, load_prompt,
)

ACTION_SURFACES = ["browser", "mobile", "desktop", "captcha"]
NAVIGATION = ["browser", "mobile", "desktop"]
ACTION_LINE = re.compile(r"^- ([A-Z][A-Za-z]*)\((.*?)\): ", re.M)


@pytest.fixture(autouse=True)
def no_override_from_the_environment(monkeypatch):
    monkeypatch.delenv(PROMPT_DIR_ENV, raising=False)


def write(folder, surface: str, text: str | bytes):
    path = folder / f"{surface}.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# --- built-in packs -------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", prompts.PROMPT_SURFACES)
def test_every_builtin_pack_loads_with_its_source_and_hash(surface):
    prompt = load_prompt(surface, task="Book a table")
    assert isinstance(prompt, Prompt)
    assert prompt.source == f"builtin:{surface}"
    assert prompt.sha256 == hashlib.sha256((BUILTIN_DIR / f"{surface}.txt").read_bytes()).hexdigest()


@pytest.mark.parametrize("surface", NAVIGATION)
def test_the_task_is_the_last_line_of_navigation_prompts(surface):
    text = load_prompt(surface, task="Find the cheapest flight to Lisbon").text
    assert text.rstrip().splitlines()[-1] == "User task: Find the cheapest flight to Lisbon"
    assert "{task}" not in text


def test_the_browser_prompt_carries_the_date_and_the_desktop_prompt_the_password_token():
    assert "Today's date is 2026-05-01 (Friday)." in load_prompt("browser", current_date="2026-05-01 (Friday)").text
    desktop = load_prompt("desktop", password="{{credentials.vm.password}}").text
    assert "type {{credentials.vm.password}}." in desktop
    assert "{password}" not in desktop


@pytest.mark.parametrize("surface", ACTION_SURFACES)
def test_the_action_list_names_exactly_the_models_actions_and_arguments(surface):
    text = load_prompt(surface).text
    lines = ACTION_LINE.findall(text)
    classes = action_space(surface).classes
    assert sorted(name for name, _ in lines) == sorted(classes)  # each action once, none missing
    for name, signature in lines:
        expected = set(classes[name].model_fields) - {"type"}
        assert set(re.findall(r"(\w+)=", signature)) == expected, name


@pytest.mark.parametrize(
    ("surface", "coordinate", "sentence"),
    [
        ("browser", "point=", "integers from 0 to 1000 relative to the screenshot"),
        ("mobile", "point=", "integers from 0 to 1000 relative to the screenshot"),
        ("desktop", "box=", "integers from 0 to 999 relative to the screenshot"),
        ("captcha", "box=", "integers from 0 to 999 relative to the screenshot"),
    ],
)
def test_each_pack_uses_its_surfaces_coordinate_name_and_range(surface, coordinate, sentence):
    text = load_prompt(surface).text
    assert sentence in text
    other = "box=" if coordinate == "point=" else "point="
    assert coordinate in text and other not in text


@pytest.mark.parametrize("surface", ACTION_SURFACES)
def test_the_output_example_in_each_pack_parses(surface):
    text = load_prompt(surface).text
    example = re.search(r"^<think>(.*?)</think>\n<action>(.*?)</action>$", text, re.M | re.S)
    assert example, "the pack shows an example answer"
    parsed = parse_answer(example.group(0), surface=surface)
    assert parsed.canonical() == example.group(0)


def test_the_captcha_pack_asks_for_the_whole_sequence_in_one_block():
    example = re.search(r"^<think>.*?</think>\n<action>.*?</action>$", load_prompt("captcha").text, re.M | re.S)
    parsed = parse_answer(example.group(0), surface="captcha")
    assert [a.type for a in parsed.actions] == ["Click", "Type"]


def test_the_grounding_pack_keeps_its_instruction_slot_for_each_call():
    prompt = load_prompt("grounding")
    assert "{instruction}" in prompt.text and "[-1,-1]" in prompt.text
    text = fill_instruction(prompt, "the blue Submit button.")
    assert "Element: the blue Submit button\n" in text
    assert fill_instruction(prompt, "搜索框。").count("Element: 搜索框\n") == 1


def test_builtin_packs_hold_no_literal_image_marker():
    for surface in prompts.PROMPT_SURFACES:
        assert "<image>" not in load_prompt(surface).text


# --- overrides ------------------------------------------------------------------------------------


def test_an_override_file_replaces_the_builtin_text(tmp_path):
    path = write(tmp_path, "mobile", "Operator wording. Task: {task}")
    prompt = load_prompt("mobile", task="Call Anna", prompt_dir=str(tmp_path))
    assert prompt.text == "Operator wording. Task: Call Anna"
    assert prompt.source == str(path)
    assert prompt.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_surfaces_without_an_override_file_keep_the_builtin_text(tmp_path):
    write(tmp_path, "mobile", "Operator wording. {task}")
    assert load_prompt("browser", prompt_dir=str(tmp_path)).source == "builtin:browser"


def test_the_prompt_folder_defaults_to_the_environment_variable(tmp_path, monkeypatch):
    write(tmp_path, "desktop", "Desktop override: {task}")
    monkeypatch.setenv(PROMPT_DIR_ENV, str(tmp_path))
    assert load_prompt("desktop", task="x").text == "Desktop override: x"
    assert load_prompt("desktop", task="x", prompt_dir="").source == "builtin:desktop"


def test_official_slot_names_are_filled_too(tmp_path):
    write(tmp_path, "desktop", "sudo password: {sudo_password}\nDate {current_date}\nTask: {user_task}")
    text = load_prompt(
        "desktop", task="Update the system", current_date="2026-05-01", password="<PW>", prompt_dir=str(tmp_path)
    ).text
    assert text == "sudo password: <PW>\nDate 2026-05-01\nTask: Update the system"


def test_substitution_is_literal_and_leaves_other_braces_alone(tmp_path):
    template = 'Reply as JSON {"action": {"name": "Click"}} or {0} {unknown} %s {{task}}\nTask: {task}'
    write(tmp_path, "browser", template)
    text = load_prompt("browser", task="T", prompt_dir=str(tmp_path)).text
    assert text == 'Reply as JSON {"action": {"name": "Click"}} or {0} {unknown} %s {T}\nTask: T'


def test_filled_values_are_not_searched_for_other_slots(tmp_path):
    write(tmp_path, "browser", "{current_date} | {task}")
    text = load_prompt("browser", task="print {current_date} and {password}", current_date="D", prompt_dir=str(tmp_path)).text
    assert text == "D | print {current_date} and {password}"


def test_the_hash_identifies_the_template_not_the_task(tmp_path):
    write(tmp_path, "mobile", "Version one. {task}")
    first = load_prompt("mobile", task="a", prompt_dir=str(tmp_path))
    assert load_prompt("mobile", task="b", prompt_dir=str(tmp_path)).sha256 == first.sha256
    write(tmp_path, "mobile", "Version two. {task}")
    assert load_prompt("mobile", task="a", prompt_dir=str(tmp_path)).sha256 != first.sha256


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    write(tmp_path, "mobile", "任务：{task}".encode("utf-8-sig"))
    assert load_prompt("mobile", task="打开微信", prompt_dir=str(tmp_path)).text == "任务：打开微信"


# --- startup checks -------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", NAVIGATION)
def test_a_navigation_template_without_a_task_slot_is_refused(tmp_path, surface):
    path = write(tmp_path, surface, "You are an agent. The task is {task_text}.")
    with pytest.raises(PromptError, match=re.escape(str(path))) as caught:
        load_prompt(surface, prompt_dir=str(tmp_path))
    assert "{task}" in str(caught.value) and "{user_task}" in str(caught.value)


def test_a_grounding_template_without_an_instruction_slot_is_refused(tmp_path):
    write(tmp_path, "grounding", "Find the element and answer [x,y].")
    with pytest.raises(PromptError, match=r"\{instruction\}"):
        load_prompt("grounding", prompt_dir=str(tmp_path))


def test_the_captcha_template_needs_no_task_slot(tmp_path):
    write(tmp_path, "captcha", "Solve the check shown in the screenshot.")
    assert load_prompt("captcha", prompt_dir=str(tmp_path)).text == "Solve the check shown in the screenshot."


def test_a_template_that_is_not_utf8_is_refused(tmp_path):
    path = write(tmp_path, "mobile", "Aufgabe: {task} \u2013 Gr\u00fc\u00dfe".encode("latin-1", errors="replace"))
    with pytest.raises(PromptError, match="not valid UTF-8") as caught:
        load_prompt("mobile", prompt_dir=str(tmp_path))
    assert str(path) in str(caught.value)


def test_an_empty_template_is_refused(tmp_path):
    write(tmp_path, "browser", "  \n")
    with pytest.raises(PromptError, match="empty"):
        load_prompt("browser", prompt_dir=str(tmp_path))


def test_an_unreadable_template_is_refused(tmp_path):
    (tmp_path / "browser.txt").mkdir()
    with pytest.raises(PromptError, match="cannot be read"):
        load_prompt("browser", prompt_dir=str(tmp_path))


def test_a_missing_prompt_folder_is_refused(tmp_path):
    with pytest.raises(PromptError, match="not a readable directory"):
        load_prompt("browser", prompt_dir=str(tmp_path / "nope"))


def test_an_unknown_surface_is_refused():
    with pytest.raises(PromptError, match="unknown prompt surface"):
        load_prompt("v15_web")


def test_prompt_errors_are_configuration_errors():
    assert issubclass(PromptError, ConfigurationError)


def test_check_prompts_loads_every_surface(tmp_path):
    loaded = check_prompts(prompt_dir="")
    assert set(loaded) == set(prompts.PROMPT_SURFACES)
    write(tmp_path, "desktop", "no slot here")
    with pytest.raises(PromptError, match="desktop"):
        check_prompts(prompt_dir=str(tmp_path))


def test_documented_slots_cover_our_and_the_official_names_and_appear_in_the_module_docs():
    slots = documented_slots()
    names = {name for slot in slots for name in (slot.placeholder, *slot.aliases)}
    assert names == {"{task}", "{user_task}", "{current_date}", "{password}", "{sudo_password}", "{instruction}", "{goal}"}
    for name in names:
        assert f"`{name}`" in prompts.__doc__
