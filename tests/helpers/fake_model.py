"""A real local HTTP server speaking vLLM's OpenAI-compatible API, answering in the UI-Venus-2
format from a per-test script. It is the only component the tests replace.

    with FakeModel() as model:
        model.script(Reply(content="<think>...</think>\\n<action>Click(point=(500,300))</action>"))
        ... VENUS_MODEL_URL = model.url ...

A script item is a `Reply` or a callable taking the request body (dict) and returning a Reply, so
a test can compute points from the page it sees. When the script runs out, `default` answers.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    reasoning: str | None = None  # sent as reasoning_content (vLLM with --reasoning-parser)
    status: int = 200
    delay_s: float = 0.0
    finish_reason: str = "stop"
    body: str | None = None  # raw body instead of a completion (for malformed answers)


def venus(thought: str, action: str, *, inline: bool = True) -> Reply:
    """A well-formed UI-Venus-2 answer; the opening <think> is left out as the real model does."""
    if inline:
        return Reply(content=f"{thought}</think>\n<action>{action}</action>")
    return Reply(content=f"<action>{action}</action>", reasoning=thought)


Script = Reply | Callable[[dict], Reply]


@dataclass
class FakeModel:
    model: str = "ui-venus-2-test"
    default: Script | None = None
    requests: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._script: deque[Script] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- scripting ----------------------------------------------------------------------
    def script(self, *items: Script) -> None:
        with self._lock:
            self._script.extend(items)

    def clear(self) -> None:
        with self._lock:
            self._script.clear()
            self.requests.clear()

    def _next(self, body: dict) -> Reply:
        with self._lock:
            self.requests.append(body)
            item = self._script.popleft() if self._script else self.default
        if item is None:
            return Reply(status=500, body='{"error": "fake model: script exhausted"}')
        return item(body) if callable(item) else item

    # -- server -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> "FakeModel":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: str) -> None:
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, json.dumps({"object": "list", "data": [{"id": fake.model, "object": "model"}]}))
                else:
                    self._send(404, '{"error": "not found"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, '{"error": "not found"}')
                    return
                if body.get("model") != fake.model:
                    self._send(404, json.dumps({"error": f"model {body.get('model')!r} does not exist"}))
                    return
                reply = fake._next(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.body is not None or reply.status != 200:
                    self._send(reply.status, reply.body if reply.body is not None else '{"error": "fake failure"}')
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.reasoning is not None:
                    message["reasoning_content"] = reply.reasoning
                self._send(200, json.dumps({
                    "id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion", "model": fake.model,
                    "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                    "usage": {"prompt_tokens": 1000 + 10 * len(body.get("messages", [])),
                              "completion_tokens": max(1, len(reply.content) // 4)},
                }))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
