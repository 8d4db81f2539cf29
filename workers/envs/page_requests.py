"""What the browser environment reads of Playwright's own state: the page's fetch/XHR requests in
flight and its websocket exchanges (the step evaluator waits for those an action started) and
whether an error means the browser is gone."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from playwright.async_api import BrowserContext, Error as PlaywrightError, Page

from workers.grounding import INERT_EXPR, QUIET_INSTALL, STABLE_S

# Milliseconds since the DOM last changed (the quiet observer of workers.grounding), whether the
# document has loaded, how many elements it has, how many finite CSS transitions and animations
# are running (an accordion folding, a fade; a spinner's endless one is not counted), and whether
# the document cannot change itself (`INERT_EXPR`).
READY_JS = (f"() => {{ {QUIET_INSTALL}\n  return [performance.now() - window[key].last, document.readyState === 'complete',"
            "\n          document.getElementsByTagName('*').length,"
            "\n          document.getAnimations().filter(a => a.playState === 'running' &&"
            "\n            a.effect && a.effect.getComputedTiming().endTime !== Infinity).length,"
            f"\n          {INERT_EXPR}];\n}}")
# Whether the page says it is working on something: `aria-busy` on the document or its body, or a
# class word of theirs ending in "busy" (Shiny's `shiny-busy` while the server computes).
BUSY_JS = """() => [document.documentElement, document.body].some(e => !!e && (e.getAttribute('aria-busy') === 'true' ||
  (typeof e.className === 'string' && e.className.split(/\\s+/).some(w => /(^|[-_])busy$/i.test(w)))))"""
BUSY_WAIT_S = 8.0  # the longest the step evaluator waits for a page that says it is busy


def browser_gone(exc: PlaywrightError) -> bool:
    """Whether a Playwright error says the page, its context or the browser is gone (closed,
    crashed, disconnected), not that a document was replaced under a read."""
    message = (str(exc).splitlines() or [""])[0].lower()
    return "closed" in message or "crash" in message or "disconnected" in message


class PageRequests:
    """The page's own requests (fetch and XHR) in flight, and its websocket exchanges, counted from
    a context's events, so the step evaluator can wait for what an action asked the server for
    (`workers.evaluator`). An app drawn over a websocket (Streamlit, Phoenix LiveView, Blazor
    Server, Shiny) answers a click with frames, not a request: a frame the page sent is an
    exchange under way until frames have come back and then none for `WS_QUIET_S` (the answer
    drawn). Frames the server pushes unasked (a ticker) start nothing."""

    KINDS = ("fetch", "xhr")
    WS_QUIET_S = 0.3
    WS_MAX_S = 3.0  # a frame sent longer ago than this is answered (or never will be: a socket pushing on)

    def __init__(self) -> None:
        self.started = 0
        self.pending: dict[Any, tuple[int, float]] = {}  # request -> its number, when it started
        self.frame_sent = 0  # the number (in `started`'s count) of the last frame the page sent
        self.sent_at = 0.0
        self.received_at = 0.0
        self.answers: deque[tuple[int, int]] = deque(maxlen=200)  # (request number, HTTP status), the latest
        self.navigations: set[Any] = set()  # document requests of any frame not answered yet
        self.navigated_at = 0.0  # when the last one was answered (its document commits just after)

    def attach(self, context: BrowserContext) -> None:
        context.on("request", self._started)
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)
        context.on("response", self._answered)
        context.on("page", self._page)
        for page in context.pages:
            self._page(page)

    def _page(self, page) -> None:
        page.on("websocket", self._socket)

    def _socket(self, socket) -> None:
        self._sent(None)  # opening it is the first exchange (an app's page asks for its content)
        socket.on("framesent", self._sent)
        socket.on("framereceived", self._received)

    def _sent(self, _payload) -> None:
        self.started += 1
        self.frame_sent, self.sent_at = self.started, time.monotonic()

    def _received(self, _payload) -> None:
        self.received_at = time.monotonic()

    def _started(self, request) -> None:
        if request.resource_type in self.KINDS:
            self.started += 1
            self.pending[request] = (self.started, time.monotonic())
        elif request.is_navigation_request():
            self.navigations.add(request)

    def _ended(self, request) -> None:
        self.pending.pop(request, None)
        self._navigated(request)

    def _navigated(self, request) -> None:
        if request in self.navigations:
            self.navigations.discard(request)
            self.navigated_at = time.monotonic()

    def navigating(self, settle_s: float = 0.1) -> bool:
        """Whether a document was asked for and not answered yet, or answered less than
        `settle_s` ago (the new document replaces the old one just after its answer)."""
        return bool(self.navigations) or time.monotonic() - self.navigated_at < settle_s

    def _answered(self, response) -> None:
        self._navigated(response.request)
        number = self.pending.get(response.request, (0, 0.0))[0]
        if number:
            self.answers.append((number, response.status))

    def statuses(self, since: int) -> list[int]:
        """The HTTP statuses of the fetch/XHR requests started after `since` that have answered."""
        return [status for number, status in self.answers if number > since]

    def waiting(self, since: int, *, recent_s: float | None = None) -> bool:
        """Whether a request or an exchange started after `since` is under way; with `recent_s`,
        only one started that recently (a long poll left open is not the page drawing)."""
        now = time.monotonic()
        if any(n > since and (recent_s is None or now - at < recent_s) for n, at in self.pending.values()):
            return True
        if self.frame_sent <= since or now - self.sent_at > self.WS_MAX_S:
            return False
        return self.received_at < self.sent_at or now - self.received_at < self.WS_QUIET_S


async def frames_drawn(page: Page, frames: int = 2, timeout_s: float = 0.5) -> None:
    """Wait until the page has drawn `frames` more frames (at most `timeout_s`): what the browser
    applies off the page's thread (a wheel's scroll) shows by then."""
    wait = "n => new Promise(r => { const f = () => --n <= 0 ? r() : requestAnimationFrame(f); requestAnimationFrame(f); })"
    try:
        async with asyncio.timeout(timeout_s):
            await page.evaluate(wait, frames)
    except (PlaywrightError, TimeoutError):  # a page navigating away, or not drawing (hidden): no wait
        pass


async def page_busy_settled(page: Page, timeout_s: float = BUSY_WAIT_S) -> None:
    """Wait (at most `timeout_s`) while the page says it is busy (`BUSY_JS`): a report the server
    computes for seconds, shown when it is done."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            async with asyncio.timeout(max(0.05, deadline - time.monotonic())):
                if not await page.evaluate(BUSY_JS):
                    return
        except (PlaywrightError, TimeoutError):  # a new document: not busy with the old one's work
            return
        await asyncio.sleep(0.1)


async def page_ready(page: Page, requests: PageRequests, timeout_s: float) -> None:
    """Wait (at most `timeout_s`) until the page holds still: loaded (its scripts and images),
    no fetch/XHR request or websocket exchange of the last few seconds under way, and its DOM
    unchanged for `STABLE_S`, or at least its elements (a clock ticking on the page changes its
    text forever, an app drawing adds elements). An app still drawing what it loads after the
    document (a Streamlit page the moment it opened, a list fetched after the load, the answer to
    the previous action, a dialog sliding in, an accordion folding) is not looked at or acted on
    half drawn. A loaded document that cannot change itself (`READY_JS`: no script, no inline
    handler, no frame) holds still as soon as nothing moves on it."""
    deadline = time.monotonic() + timeout_s
    elements, since = -1, time.monotonic()
    while True:
        try:  # a page whose navigation never finishes does not answer: the wait ends at its deadline
            async with asyncio.timeout(max(0.05, deadline - time.monotonic())):
                quiet, loaded, count, moving, inert = await page.evaluate(READY_JS)
        except (PlaywrightError, TimeoutError):  # a navigation replaced the document: nothing held still yet
            quiet, loaded, count, moving, inert = 0, False, -1, 0, False
        now = time.monotonic()
        if count != elements:
            elements, since = count, now
        still = loaded and not moving and (inert or quiet >= STABLE_S * 1000 or now - since >= STABLE_S)
        if (still and not requests.waiting(0, recent_s=PageRequests.WS_MAX_S)) or now >= deadline:
            return
        await asyncio.sleep(0.03)
