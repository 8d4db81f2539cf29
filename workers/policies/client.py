"""The model client: vLLM's OpenAI-compatible chat API, async, pooled, with bounded retries.

One `ModelClient` per worker process is shared by all its runs (one HTTP connection pool).
Connection errors, timeouts and 5xx answers are retried with exponential backoff; after the
last try the caller gets `ModelUnavailable` with a message that names the URL, never a hang.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

log = logging.getLogger(__name__)


class ModelUnavailable(Exception):
    """The model server could not be reached or kept failing."""


class ModelRequestError(Exception):
    """The model server refused the request (4xx): retrying the same request cannot help."""


@dataclass(frozen=True)
class ModelSettings:
    url: str
    model: str
    api_key: str = ""
    timeout_s: float = 120.0
    connect_timeout_s: float = 5.0
    tries: int = 3
    backoff_s: float = 0.5
    max_connections: int = 32


@dataclass(frozen=True)
class Sampling:
    """Sampling for one use (navigation, grounding, CAPTCHA); see the protocol reference §8."""

    temperature: float = 0.6
    top_p: float | None = None
    max_tokens: int = 4096
    enable_thinking: bool | None = None  # None: the template default (on)
    extra: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}
        if self.top_p is not None:
            body["top_p"] = self.top_p
        if self.enable_thinking is not None:
            body["chat_template_kwargs"] = {"enable_thinking": self.enable_thinking}
        return body


@dataclass
class Completion:
    content: str
    reasoning: str | None
    finish_reason: str | None
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    tries: int = 1

    def record(self) -> dict[str, Any]:
        return {"latency_ms": round(self.latency_ms, 1), "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "finish_reason": self.finish_reason, "tries": self.tries}


class ModelClient:
    def __init__(self, settings: ModelSettings, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._http = httpx.AsyncClient(
            base_url=settings.url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s),
            limits=httpx.Limits(max_connections=settings.max_connections,
                                max_keepalive_connections=settings.max_connections),
            transport=transport,
        )

    async def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        body = {"model": self.settings.model, "messages": messages, **sampling.body()}
        data, latency_ms, tries = await self._post("chat/completions", body)
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ModelRequestError(f"model server at {self.settings.url} answered without choices: {str(data)[:200]}") from exc
        usage = data.get("usage") or {}
        return Completion(
            content=message.get("content") or "",
            reasoning=message.get("reasoning_content") or message.get("reasoning"),
            finish_reason=choice.get("finish_reason"),
            latency_ms=latency_ms,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            tries=tries,
        )

    async def list_models(self) -> list[str]:
        response = await self._request("GET", "models")
        try:
            return [m.get("id", "") for m in response.json().get("data", [])]
        except (ValueError, AttributeError, TypeError) as exc:
            raise ModelRequestError(f"model server at {self.settings.url} answered /models with {response.text[:200]!r}") from exc

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], float, int]:
        started = time.perf_counter()
        response, tries = await self._request_with_tries("POST", path, json=body)
        try:
            data = response.json()
        except ValueError as exc:
            raise ModelRequestError(f"model server at {self.settings.url} answered with non-JSON: {response.text[:200]}") from exc
        return data, (time.perf_counter() - started) * 1000, tries

    async def _request(self, method: str, path: str, **kwargs) -> httpx.Response:
        return (await self._request_with_tries(method, path, **kwargs))[0]

    async def _request_with_tries(self, method: str, path: str, **kwargs) -> tuple[httpx.Response, int]:
        last = ""
        for attempt in range(1, self.settings.tries + 1):
            try:
                response = await self._http.request(method, path, **kwargs)
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            else:
                if response.status_code < 400:
                    return response, attempt
                if response.status_code < 500 and response.status_code != 429:
                    raise ModelRequestError(
                        f"model server at {self.settings.url} refused the request: HTTP {response.status_code} "
                        f"{response.text[:300]}"
                    )
                last = f"HTTP {response.status_code}"
            if attempt < self.settings.tries:
                delay = self.settings.backoff_s * 2 ** (attempt - 1)
                log.warning("model call failed (%s); retry %d/%d in %.1fs", last, attempt, self.settings.tries - 1, delay)
                await asyncio.sleep(delay)
        raise ModelUnavailable(f"model server unavailable at {self.settings.url} after {self.settings.tries} tries ({last})")

    async def aclose(self) -> None:
        await self._http.aclose()
