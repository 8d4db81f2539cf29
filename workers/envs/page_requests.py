"""What the browser environment reads of Playwright's own state: the page's fetch/XHR requests in
flight (the step evaluator waits for those an action started) and whether an error means the
browser is gone."""

from __future__ import annotations

from typing import Any

from playwright.async_api import BrowserContext, Error as PlaywrightError


def browser_gone(exc: PlaywrightError) -> bool:
    """Whether a Playwright error says the page, its context or the browser is gone (closed,
    crashed, disconnected), not that a document was replaced under a read."""
    message = (str(exc).splitlines() or [""])[0].lower()
    return "closed" in message or "crash" in message or "disconnected" in message


class PageRequests:
    """The page's own requests (fetch and XHR) in flight, counted from a context's events, so the
    step evaluator can wait for what an action asked the server for (`workers.evaluator`)."""

    KINDS = ("fetch", "xhr")

    def __init__(self) -> None:
        self.started = 0
        self.pending: dict[Any, int] = {}  # request -> its number

    def attach(self, context: BrowserContext) -> None:
        context.on("request", self._started)
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _started(self, request) -> None:
        if request.resource_type in self.KINDS:
            self.started += 1
            self.pending[request] = self.started

    def _ended(self, request) -> None:
        self.pending.pop(request, None)

    def waiting(self, since: int) -> bool:
        return any(n > since for n in self.pending.values())
