"""Small pages served on 127.0.0.1 for runtime tests that need a real origin (a form that posts,
a page that navigates): `GET /<name>` answers the page registered under that name, and a form
posted to `/sent` answers "Form sent" with the names of the fields it carried."""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


class LocalPages:
    """`pages[name] = "<html>"` serves it at `url(name)`; `posts` lists each form received."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.posts: list[dict[str, list[str]]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                page = site.pages.get(self.path.lstrip("/").split("?")[0])
                self._send(200 if page is not None else 404, page or "<h1>Not found</h1>")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode(errors="replace")
                fields = parse_qs(body, keep_blank_values=True) if "urlencoded" in self.headers.get("Content-Type", "") \
                    else {"body": [body]}
                site.posts.append(fields)
                names = ", ".join(html.escape(name) for name in fields)
                self._send(200, f"<!doctype html><title>Sent</title><h1>Form sent</h1><p>Fields: {names}</p>")

            def _send(self, status: int, text: str) -> None:
                body = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_port}"

    def url(self, name: str) -> str:
        return f"{self.base_url}/{name}"


@contextmanager
def local_pages() -> Iterator[LocalPages]:
    served = LocalPages()
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
