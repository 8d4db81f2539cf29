"""`manage.py check_model` against the model test double (a real local OpenAI-compatible server).

No database: the command only talks HTTP. Exit statuses are `CommandError.returncode`, which is
what `manage.py` exits with.
"""

from __future__ import annotations

import base64
import io
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image

from tests.helpers.fake_model import FakeModel, Reply, venus
from tests.helpers.servers import free_port


@pytest.fixture(scope="module")
def model_server():
    with FakeModel() as model:
        yield model


@pytest.fixture
def fake(model_server) -> FakeModel:
    model_server.clear()
    model_server.default = None
    return model_server


def good_answers(body: dict) -> Reply:
    """A capable model: navigation requests have a system prompt, grounding requests do not."""
    if body["messages"][0]["role"] == "system":
        return venus("A dialog says the changes were saved; its OK button is in the middle.", "Click(point=(500, 500))")
    return Reply(content="[500,500]")


def check(**options) -> tuple[str, int]:
    """(output, exit status) of check_model with options."""
    out = io.StringIO()
    try:
        call_command("check_model", stdout=out, **options)
    except CommandError as exc:
        return out.getvalue() + f"CommandError: {exc}\n", exc.returncode
    return out.getvalue(), 0


def test_a_good_server_passes_and_the_report_shows_the_action(fake):
    fake.default = good_answers
    output, status = check(url=fake.url, model=fake.model, timeout=5)

    assert status == 0, output
    lines = output.splitlines()
    assert lines[0] == f"Checking the model server at {fake.url} (model '{fake.model}', timeout 5s per request)"
    assert f"ok    models: '{fake.model}' is served" in lines
    navigation = next(line for line in lines if line.startswith("ok    navigation: "))
    assert navigation.startswith("ok    navigation: Click(point=(500, 500)) in ")
    assert "prompt +" in navigation and "completion tokens" in navigation
    assert "      thought: A dialog says the changes were saved; its OK button is in the middle." in lines
    assert "      the click maps to pixel (640, 400), on the OK button" in lines
    assert any(line.startswith("ok    grounding: [500,500] maps to pixel (640, 400) in ") and
               line.endswith(", inside the OK button") for line in lines)
    assert lines[-1] == "Model check passed."

    # The requests are the runtime's own: our browser prompt with the task last, a 1280×800 JPEG,
    # thinking left on for navigation and switched off for grounding.
    navigation_body, grounding_body = fake.requests
    system, user = navigation_body["messages"]
    assert system["role"] == "system" and system["content"].rstrip().endswith("User task: Click the OK button")
    assert user["content"][0] == {"type": "text",
                                  "text": "Current URL: https://example.com/settings\nCurrent Screenshot:\n"}
    data_url = user["content"][1]["image_url"]["url"]
    assert data_url.startswith("data:image/jpeg;base64,")
    with Image.open(io.BytesIO(base64.b64decode(data_url.partition(",")[2]))) as image:
        assert (image.format, image.size) == ("JPEG", (1280, 800))
    assert "chat_template_kwargs" not in navigation_body
    (grounding,) = grounding_body["messages"]
    assert [part["type"] for part in grounding["content"]] == ["image_url", "text"]
    assert "Element: the OK button\n" in grounding["content"][1]["text"]
    assert grounding_body["chat_template_kwargs"] == {"enable_thinking": False}


def test_the_defaults_come_from_the_settings(fake, settings):
    settings.VENUS_MODEL_URL, settings.VENUS_MODEL, settings.VENUS_MODEL_TIMEOUT = fake.url, fake.model, 7.0
    fake.default = good_answers
    output, status = check()
    assert status == 0, output
    assert output.startswith(f"Checking the model server at {fake.url} (model '{fake.model}', timeout 7s per request)")


def test_a_model_name_the_server_does_not_serve_fails_naming_the_served_ones(fake):
    fake.default = good_answers
    output, status = check(url=fake.url, model="ui-venus-2-9b", timeout=5)

    assert status == 1
    assert (f"FAIL  models: 'ui-venus-2-9b' is not served here; the server serves '{fake.model}' "
            "(set VENUS_MODEL to one of them)") in output.splitlines()
    assert "FAIL  navigation: " in output and "HTTP 404" in output
    assert output.endswith("CommandError: model check failed (models, navigation)\n")


def test_answers_not_in_the_venus_format_fail_with_the_parse_error(fake):
    fake.default = Reply(content="Sure! I would press the OK button.")
    output, status = check(url=fake.url, model=fake.model, timeout=5)

    assert status == 1
    lines = output.splitlines()
    assert f"ok    models: '{fake.model}' is served" in lines
    assert ("FAIL  navigation: the answer is not in the UI-Venus format: No <action>…</action> block found. "
            "End your answer with exactly one, for example <action>Click(point=(500, 300))</action>.") in lines
    assert "      raw answer: 'Sure! I would press the OK button.'" in lines
    assert any(line.startswith("WARN  grounding: the answer is not [x,y]") for line in lines)
    assert output.endswith("CommandError: model check failed (navigation)\n")


def test_a_grounding_miss_is_a_warning_only(fake):
    fake.script(venus("The OK button.", "Click(point=(500, 500))"), Reply(content="[-1,-1]"))
    output, status = check(url=fake.url, model=fake.model, timeout=5)

    assert status == 0, output
    assert "WARN  grounding: the model answered [-1,-1]: it did not find the OK button" in output.splitlines()
    assert output.splitlines()[-1] == "Model check passed. Grounding missed the OK button; see the WARN line."


def test_no_url_configured_exits_2(settings):
    settings.VENUS_MODEL_URL = ""
    output, status = check()
    assert status == 2
    assert "VENUS_MODEL_URL is not set" in output


def test_an_unreachable_server_fails_at_once_without_trying_further(settings):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    t0 = time.monotonic()
    output, status = check(url=url, model="ui-venus-2", timeout=30)

    assert status == 1
    assert time.monotonic() - t0 < 5
    lines = output.splitlines()
    assert lines[1].startswith(f"FAIL  models: model server unavailable at {url} after 1 tries (ConnectError")
    assert lines[2] == "      navigation and grounding not tried: the server is not reachable"


def test_a_server_that_does_not_answer_in_time_fails_instead_of_hanging(fake):
    fake.default = Reply(content="<action>Wait()</action>", delay_s=1.5)
    t0 = time.monotonic()
    output, status = check(url=fake.url, model=fake.model, timeout=0.3)

    assert status == 1
    assert time.monotonic() - t0 < 1.5  # two 0.3 s timeouts, not the 1.5 s answers
    assert f"FAIL  navigation: model server unavailable at {fake.url} after 1 tries (ReadTimeout)" in output
    assert "WARN  grounding: model server unavailable" in output
