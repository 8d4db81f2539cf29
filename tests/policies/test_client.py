"""The model client (`workers.policies.client`) over real HTTP against the model test double.

No Django. One `FakeModel` (a real local OpenAI-compatible server) serves the module; each test
gets it with an empty script and request log, and closes its client so that no keep-alive
connection outlives the test.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from tests.helpers.fake_model import FakeModel, Reply, venus
from tests.helpers.servers import free_port
from workers.policies.client import (
    Completion, ModelClient, ModelRequestError, ModelSettings, ModelUnavailable, Sampling,
)

MESSAGES = [{"role": "user", "content": [{"type": "text", "text": "Current Screenshot:\n"}]}]


@pytest.fixture(scope="module")
def model_server():
    with FakeModel() as model:
        yield model


@pytest.fixture
def fake(model_server):
    model_server.clear()
    model_server.default = None
    return model_server


def settings_for(url: str, model: str = "ui-venus-2-test", **overrides: Any) -> ModelSettings:
    return ModelSettings(**{"url": url, "model": model, "timeout_s": 5.0, "tries": 3, "backoff_s": 0.01, **overrides})


def with_client(settings: ModelSettings, body: Callable[[ModelClient], Awaitable[Any]], *,
                transport: httpx.AsyncBaseTransport | None = None) -> Any:
    """Run body(client) on a fresh event loop; the client (and its connections) closed afterwards."""

    async def main():
        client = ModelClient(settings, transport=transport)
        try:
            return await body(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


def complete(settings: ModelSettings, sampling: Sampling | None = None) -> Completion:
    return with_client(settings, lambda client: client.complete(MESSAGES, sampling or Sampling()))


def fails_with(exc_type: type[Exception], settings: ModelSettings, sampling: Sampling | None = None
               ) -> tuple[str, float]:
    """(message, seconds taken) of a call that must raise exc_type."""
    t0 = time.monotonic()
    with pytest.raises(exc_type) as info:
        complete(settings, sampling)
    return str(info.value), time.monotonic() - t0


# --- success ---------------------------------------------------------------------------------


def test_a_completion_carries_content_reasoning_usage_and_latency(fake):
    fake.script(venus("The OK button is in the middle.", "Click(point=(500, 500))", inline=False))
    completion = complete(settings_for(fake.url))

    assert completion.content == "<action>Click(point=(500, 500))</action>"
    assert completion.reasoning == "The OK button is in the middle."
    assert completion.finish_reason == "stop"
    assert completion.prompt_tokens == 1000 + 10 * len(MESSAGES)  # the fake's usage numbers, passed through
    assert completion.completion_tokens == len(completion.content) // 4
    assert completion.tries == 1
    assert completion.latency_ms > 0
    assert completion.record() == {
        "latency_ms": round(completion.latency_ms, 1), "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens, "finish_reason": "stop", "tries": 1,
    }

    (body,) = fake.requests
    assert body["model"] == fake.model
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0.6 and body["max_tokens"] == 4096
    assert "chat_template_kwargs" not in body  # thinking left at the template default (on)
    assert "top_p" not in body


def test_reasoning_in_the_content_stays_in_the_content(fake):
    fake.script(venus("Thinking inline.", "Wait()"))
    completion = complete(settings_for(fake.url))
    assert completion.content == "Thinking inline.</think>\n<action>Wait()</action>"
    assert completion.reasoning is None


def test_sampling_goes_into_the_body_with_enable_thinking_as_chat_template_kwargs(fake):
    fake.script(Reply(content="[500,500]"), Reply(content="<action>Wait()</action>"))
    grounding = Sampling(temperature=0.0, top_p=1.0, max_tokens=1024, enable_thinking=False, extra={"seed": 7})
    complete(settings_for(fake.url), grounding)
    complete(settings_for(fake.url), Sampling(enable_thinking=True))

    off, on = fake.requests
    assert off["chat_template_kwargs"] == {"enable_thinking": False}
    assert (off["temperature"], off["top_p"], off["max_tokens"], off["seed"]) == (0.0, 1.0, 1024, 7)
    assert on["chat_template_kwargs"] == {"enable_thinking": True}


def test_list_models_names_what_the_server_serves(fake):
    assert with_client(settings_for(fake.url), lambda client: client.list_models()) == [fake.model]


# --- retries ---------------------------------------------------------------------------------


def test_a_500_then_a_200_succeeds_on_the_second_try(fake):
    fake.script(Reply(status=500), venus("Now it works.", "Wait()"))
    completion = complete(settings_for(fake.url))
    assert completion.tries == 2
    assert completion.content.endswith("<action>Wait()</action>")
    assert len(fake.requests) == 2


def test_a_429_is_retried_like_a_5xx(fake):
    fake.script(Reply(status=429, body='{"error": "too many requests"}'), venus("ok", "Wait()"))
    assert complete(settings_for(fake.url)).tries == 2


def test_a_server_that_keeps_answering_503_is_unavailable_naming_url_and_tries(fake):
    fake.default = Reply(status=503)
    message, took = fails_with(ModelUnavailable, settings_for(fake.url, tries=3, backoff_s=0.05))

    assert message == f"model server unavailable at {fake.url} after 3 tries (HTTP 503)"
    assert len(fake.requests) == 3
    assert 0.15 <= took < 2  # backoff 0.05 + 0.1 between the three tries, no more


def test_a_refused_connection_is_unavailable_quickly(fake):
    url = f"http://127.0.0.1:{free_port()}/v1"  # bound and released: nothing listens there
    message, took = fails_with(ModelUnavailable, settings_for(url, tries=3, backoff_s=0.05))

    assert message.startswith(f"model server unavailable at {url} after 3 tries (ConnectError")
    assert took < 2  # tries × backoff, no connect timeout to wait out


def test_an_answer_slower_than_the_timeout_is_retried_then_unavailable_not_a_hang(fake):
    fake.default = Reply(content="<action>Wait()</action>", delay_s=1.5)
    message, took = fails_with(ModelUnavailable, settings_for(fake.url, timeout_s=0.3, tries=2, backoff_s=0.05))

    assert message == f"model server unavailable at {fake.url} after 2 tries (ReadTimeout)"
    assert len(fake.requests) == 2
    assert 0.6 <= took < 1.4  # two 0.3 s timeouts and a backoff, not the 1.5 s answers


def test_a_400_is_a_request_error_without_retry(fake):
    fake.script(Reply(status=400, body='{"error": "image too large"}'), venus("never asked", "Wait()"))
    message, _ = fails_with(ModelRequestError, settings_for(fake.url, tries=3))

    assert message.startswith(f"model server at {fake.url} refused the request: HTTP 400")
    assert "image too large" in message
    assert len(fake.requests) == 1


def test_an_unknown_model_name_is_a_request_error(fake):
    message, _ = fails_with(ModelRequestError, settings_for(fake.url, model="no-such-model"))
    assert "HTTP 404" in message and "no-such-model" in message


def test_a_200_that_is_not_json_or_has_no_choices_is_a_request_error(fake):
    fake.script(Reply(body="<html>proxy error</html>"), Reply(body='{"object": "error"}'))
    message, _ = fails_with(ModelRequestError, settings_for(fake.url))
    assert "non-JSON" in message and "proxy error" in message
    message, _ = fails_with(ModelRequestError, settings_for(fake.url))
    assert "without choices" in message
    assert len(fake.requests) == 2  # neither was retried


def test_list_models_is_retried_then_unavailable_too():
    url = f"http://127.0.0.1:{free_port()}/v1"
    t0 = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"after 2 tries \(ConnectError"):
        with_client(settings_for(url, tries=2), lambda client: client.list_models())
    assert time.monotonic() - t0 < 2


# --- authentication --------------------------------------------------------------------------
# FakeModel does not check credentials, so the header test records requests at the transport.


def recording_transport(seen: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": "m"}]})
        return httpx.Response(200, json={"choices": [{"message": {"content": "[1,2]"}, "finish_reason": "stop"}]})

    return httpx.MockTransport(handler)


def test_an_api_key_is_sent_as_a_bearer_token_on_every_request():
    seen: list[httpx.Request] = []

    async def body(client: ModelClient):
        await client.list_models()
        return await client.complete(MESSAGES, Sampling())

    completion = with_client(settings_for("http://model.test/v1", model="m", api_key="sk-test-123"), body,
                             transport=recording_transport(seen))
    assert completion.content == "[1,2]"
    assert [(r.method, r.url.path) for r in seen] == [("GET", "/v1/models"), ("POST", "/v1/chat/completions")]
    assert all(r.headers["authorization"] == "Bearer sk-test-123" for r in seen)
    assert json.loads(seen[1].content)["model"] == "m"


def test_no_api_key_sends_no_authorization_header():
    seen: list[httpx.Request] = []
    with_client(settings_for("http://model.test/v1", model="m"), lambda client: client.list_models(),
                transport=recording_transport(seen))
    assert "authorization" not in seen[0].headers
