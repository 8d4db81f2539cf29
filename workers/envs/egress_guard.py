"""Network-layer egress guard of one run's browser context.

Playwright's `context.route` sees the first request of every navigation, popup, frame and
subresource, but not redirect hops (verified with Playwright 1.65: a 302 to another host is
followed without calling the handler). So the guard has two layers:

1. A small forward proxy per context (Chromium's per-context proxy; Playwright proxies loopback
   too). Chromium resolves nothing itself: every connection, redirect hops and websockets
   included, comes through `_admit`, which refuses hosts outside the run's domains (unless the
   route layer cleared them, below) and any loopback/private/link-local/metadata address the
   operator did not allow, then connects to the pinned address it checked.
2. `context.route("**/*")`: navigation requests (documents of any frame or popup) must be on
   the allowed domains. Subresources (images, scripts, fonts, XHR) may come from other public
   hosts, such as a CDN: the route clears their host for the proxy. A redirect of a page to such
   a host still passes the proxy, so a `framenavigated` check fails the step when a document
   from outside the allowed domains is committed.

Blocked navigations are recorded; `BrowserEnvironment` turns them into the step's error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Frame, Page, Request, Route
from playwright.async_api import Error as PlaywrightError

from workers.egress import (
    EgressRefused,
    PrivateAllowList,
    Resolver,
    destination_check,
    domain_allowed,
    off_domain_message,
    url_destination,
)

log = logging.getLogger(__name__)
HEAD_LIMIT = 64 * 1024
HEAD_TIMEOUT_S = 30
CONNECT_TIMEOUT_S = 15
HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


@dataclass
class EgressGuard:
    """The egress policy of one run: allowed domains, the operator's private exceptions, what
    was blocked. `start()` before creating a context with `context_options()`, `install()` on
    the context, `stop()` when the run's context is closed."""

    allowed_domains: list[str]
    allow_private: PrivateAllowList = field(default_factory=PrivateAllowList)
    resolver: Resolver | None = None
    blocked: list[str] = field(default_factory=list)  # navigations refused: the step fails
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # (host, port, reason) the proxy refused
    _cleared: set[str] = field(default_factory=set)
    _server: asyncio.AbstractServer | None = None

    # -- lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def context_options(self) -> dict:
        assert self._server is not None, "start() the guard first"  # noqa: S101 -- programming error guard
        port = self._server.sockets[0].getsockname()[1]
        # Service workers could fetch outside route(); the proxy would still apply, but block them.
        return {"proxy": {"server": f"http://127.0.0.1:{port}"}, "service_workers": "block"}

    async def install(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)
        context.on("page", self._watch_page)
        for page in context.pages:
            self._watch_page(page)

    # -- decisions --------------------------------------------------------------------------
    def take_blocked(self) -> str | None:
        """The first navigation blocked since the last call (and forget them), or None."""
        first = self.blocked[0] if self.blocked else None
        self.blocked.clear()
        return first

    def take_refusal(self, url: str) -> str | None:
        """The proxy's reason for refusing the page at url (its host and port), or the last
        refusal when the page shows no web document (a browser error page); forgets all refusals."""
        refused, self.refused = self.refused, []
        if not url.startswith(("http:", "https:")):
            return refused[-1][2] if refused else None
        try:
            host, port = url_destination(url)
        except EgressRefused:
            return None
        return next((reason for h, p, reason in reversed(refused) if (h, p) == (host.lower(), port)), None)

    def _on_domain(self, host: str) -> bool:
        return domain_allowed(host, self.allowed_domains)

    async def _admit(self, host: str, port: int) -> str:
        """The address to connect to for host:port; EgressRefused if the policy refuses it."""
        host = host.lower().strip("[]")
        if not self._on_domain(host) and host not in self._cleared:
            raise EgressRefused(off_domain_message(host, self.allowed_domains), host=host)
        return await asyncio.to_thread(destination_check, host, port, allow=self.allow_private,
                                       resolver=self.resolver)

    # -- route layer ------------------------------------------------------------------------
    async def _route(self, route: Route, request: Request) -> None:
        parts = urlsplit(request.url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https", "ws", "wss") or not host:
            await route.fallback()
            return
        if self._on_domain(host):
            await route.fallback()
        elif request.is_navigation_request():
            if _is_main_frame(request):  # a blocked frame only stays empty; a blocked page fails the step
                self.blocked.append(off_domain_message(host, self.allowed_domains))
            await route.abort("blockedbyclient")
        else:
            self._cleared.add(host)  # a subresource from another public host; the proxy checks its address
            await route.fallback()

    def _watch_page(self, page: Page) -> None:
        page.on("framenavigated", self._framenavigated)

    def _framenavigated(self, frame: Frame) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https") and parts.hostname and not self._on_domain(parts.hostname):
            if frame.parent_frame is None:
                self.blocked.append(off_domain_message(parts.hostname, self.allowed_domains))
            with contextlib.suppress(PlaywrightError):
                asyncio.get_running_loop().create_task(_leave(frame))

    # -- proxy layer ------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_writer = None
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            method, target, rest = _split_head(head)
            host, port, head_out = _destination(method, target, rest)
            try:
                address = await self._admit(host, port)
            except EgressRefused as exc:
                self.refused.append((host.lower(), port, str(exc)))
                log.info("egress refused: %s", exc)
                writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                await writer.drain()
                return
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection(address, port), CONNECT_TIMEOUT_S)
            if head_out is None:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                upstream_writer.write(head_out)
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            with contextlib.suppress(OSError):
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        finally:
            for w in (writer, upstream_writer):
                if w is not None:
                    with contextlib.suppress(OSError):
                        w.close()


def _is_main_frame(request: Request) -> bool:
    try:
        return request.frame.parent_frame is None
    except PlaywrightError:
        return True  # a popup's first request: its page has no frame yet


async def _leave(frame: Frame) -> None:
    """Take a frame off a document from outside the allowed domains."""
    with contextlib.suppress(PlaywrightError):
        await frame.goto("about:blank")


def _split_head(head: bytes) -> tuple[str, str, list[bytes]]:
    lines = head[:-4].split(b"\r\n")
    method, target, _version = lines[0].decode("latin-1").split(" ", 2)
    return method.upper(), target, lines[1:]


def _destination(method: str, target: str, headers: list[bytes]) -> tuple[str, int, bytes | None]:
    """(host, port, request head to send upstream); the head is None for CONNECT (a tunnel)."""
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return host.strip("[]"), int(port), None
    try:
        host, port = url_destination(target.replace("ws://", "http://", 1))
    except EgressRefused as exc:
        raise ValueError(str(exc)) from None
    parts = urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [h for h in headers if h.split(b":", 1)[0].strip().lower() not in HOP_HEADERS]
    upgrade = any(h.split(b":", 1)[0].strip().lower() == b"upgrade" for h in headers)
    connection = b"Connection: Upgrade" if upgrade else b"Connection: close"  # one request per tunnel
    return host, port, b"\r\n".join([f"{method} {path} HTTP/1.1".encode(), *kept, connection]) + b"\r\n\r\n"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            if writer.can_write_eof():
                writer.write_eof()
