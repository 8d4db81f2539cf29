"""A real local HTTP receiver for outbound callbacks and notifications: `http.server` in a thread
that answers 500 to the first `fail_first` requests (or sleeps, to cause timeouts, or redirects
to `redirect_to`) and records every one."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    fail_first: int = 0
    delay_s: float = 0.0
    redirect_to: str = ""
    requests: list[Received] = field(default_factory=list)
    url: str = ""

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.requests) >= count, f"received {len(self.requests)} request(s), wanted {count}"
        return self.requests


class _Handler(BaseHTTPRequestHandler):
    receiver: Receiver

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        receiver = self.server.receiver  # type: ignore[attr-defined]
        if receiver.delay_s:
            time.sleep(receiver.delay_s)
        status = 500 if len(receiver.requests) < receiver.fail_first else 307 if receiver.redirect_to else 200
        receiver.requests.append(Received(self.path, dict(self.headers.items()), body, status))
        self.send_response(status)
        if status == 307:
            self.send_header("Location", receiver.redirect_to)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"receiver down for maintenance" if status == 500 else b"ok")

    def log_message(self, *args) -> None:
        pass


class receiver_running:
    """`with receiver_running(fail_first=2) as receiver: ...receiver.url...`"""

    def __init__(self, **options) -> None:
        self.receiver = Receiver(**options)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.receiver = self.receiver  # type: ignore[attr-defined]
        self.receiver.url = f"http://127.0.0.1:{self.server.server_address[1]}/venus-callback"

    def __enter__(self) -> Receiver:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self.receiver

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
