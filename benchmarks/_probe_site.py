"""A loopback web server for the egress probes: pages that try to leave 127.0.0.1 for localhost.

Both names reach this same server (it listens on 127.0.0.1), so a request that escaped the run's
allowed domains is seen here, by its Host header, without any traffic leaving the machine.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class EscapeSite:
    """`/redirect` answers 302 to localhost; `/hop` links to it; `/js` sets `location` to localhost.
    `escapes` counts requests that arrived with a `localhost` Host header."""

    def __init__(self) -> None:
        self.escapes = 0
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                return

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                host = (self.headers.get("Host") or "").split(":")[0]
                if host == "localhost":
                    with site._lock:
                        site.escapes += 1
                    return self._page("<h1>landed</h1><p>You reached localhost.</p>")
                port = self.server.server_address[1]
                away = f"http://localhost:{port}/landed"
                if self.path.startswith("/redirect"):
                    self.send_response(302)
                    self.send_header("Location", away)
                    self.end_headers()
                    return None
                if self.path.startswith("/hop"):
                    return self._page('<h1>hop</h1><a href="/redirect">Continue</a>')
                if self.path.startswith("/js"):
                    return self._page(f"<h1>js</h1><script>location = {away!r};</script>")
                return self._page("<h1>home</h1>")

            def _page(self, body: str) -> None:
                data = f"<!doctype html><html><body>{body}</body></html>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
