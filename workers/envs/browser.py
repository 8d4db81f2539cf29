"""The browser surface: one isolated context per run, on a Chromium of the worker's pool
(`workers.envs.pool`).

Playwright always launches the system Chromium through `executable_path`; its own browser
download cannot work on our hosts.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from playwright.async_api import BrowserContext, Error as PlaywrightError, Page

from workers import actions as A
from workers.egress import domain_allowed, off_domain_message
from workers.envs import anchors, review_page
from workers.envs.base import ActionOutcome, Observation
from workers.envs.egress_guard import EgressGuard
from workers.envs.masking import SecretMask
from workers.envs.page_input import key_name, navigation_watch, select_focused, select_options, type_text
from workers.envs.page_requests import PageRequests, browser_gone, frames_drawn, page_busy_settled, page_ready
from workers.envs.page_state import read_page_state
from workers.envs.run_files import RunFiles
from workers.errors import EnvironmentLost, StepError
from workers.evaluator import PageState
from workers.files import DEFAULT_MAX_BYTES
from workers.gates.context import Probe, probe_element, probe_focus, probe_page, probe_point
from workers.grounding import INERT_EXPR
from workers.loop import bounded
from workers.secrets import SecretBox

log = logging.getLogger(__name__)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Chromium's own calls home (form autofill hints, translation, hints) go through the egress
    # guard like any request and would be refused; do not make them at all.
    "--disable-features=AutofillServerCommunication,OptimizationHints,Translate,MediaRouter",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
]
VIEWPORT = {"width": 1280, "height": 800}
READY_WAIT_S = 1.5  # the longest a look waits for the page to hold still (`BrowserEnvironment.ready`)
JPEG_QUALITY = 80
# Playwright's reads of a page (evaluate, its screenshot, a locator count) have no time limit and
# wait as long as a navigation the page started is in flight: an app that reloads itself after an
# XHR (django CMS's "Publish") starts one after the click has returned, in the middle of the reads
# that follow. Each read the runtime makes is bounded by this; past it the step fails, saying so.
PAGE_READ_TIMEOUT_S = 20.0
# Opening a page in an existing context (a Launch action, a restored session) has no Playwright
# timeout of its own: a browser that stopped answering would hold the run and its worker thread.
NEW_PAGE_TIMEOUT_S = 30.0
# Closing a context has none either: a browser that stopped answering would hold the run's end
# (and a taken-over run's lanes). Past it the run ends anyway and the environment's
# `on_stuck_close` (the pool's) frees the slot and retires that browser.
CONTEXT_CLOSE_TIMEOUT_S = 15.0


def _in_viewport(box: dict[str, float] | None) -> bool:
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= VIEWPORT["height"] \
        and 0 <= box["x"] and box["x"] + box["width"] <= VIEWPORT["width"]


async def open_page(context: BrowserContext) -> Page:
    """A new page in `context`, within NEW_PAGE_TIMEOUT_S (EnvironmentLost past it, or when the browser is gone)."""
    try:
        return await bounded(context.new_page(), NEW_PAGE_TIMEOUT_S)
    except TimeoutError as exc:
        raise EnvironmentLost(f"browser lost: could not open a page: no answer within {NEW_PAGE_TIMEOUT_S:g}s") from exc
    except PlaywrightError as exc:
        raise EnvironmentLost(f"browser lost: could not open a page: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc



@dataclass
class BrowserConfig:
    executable_path: str = "/usr/bin/chromium"
    headless: bool = True
    # The operator's exceptions to "public addresses only" (VENUS_EGRESS_ALLOW_PRIVATE): hosts,
    # addresses or CIDR networks, optionally with ":port". Empty: runs reach public hosts only.
    egress_allow_private: tuple[str, ...] = ()
    download_max_bytes: int = DEFAULT_MAX_BYTES  # VENUS_DOWNLOAD_MAX_BYTES: a larger download is refused


class BrowserEnvironment:
    """A run's browser context. Implements the Environment protocol (`workers.envs.base`) for
    UI-Venus browser actions; the web's explicit-step executor works on `page` directly."""

    surface = "web"
    action_space = "browser"
    captcha_detection = True

    def __init__(self, context: BrowserContext, page: Page, *, allowed_domains: list[str], secrets: SecretBox,
                 egress: EgressGuard | None = None, files: RunFiles | None = None):
        self.requests = PageRequests()
        self.context = context
        self.files = files or RunFiles()  # downloads kept (the pool attaches it to the context) and input files
        self.egress = egress
        self.page = page
        self.allowed_domains = allowed_domains
        self.secrets = secrets
        self.notes: list[str] = []
        self._cdp = None
        self.mask = SecretMask(secrets)  # vault values (fields and echoed text) painted over in every screenshot
        self.last_typed: str | None = None  # what the last Type typed (memory only): the step evaluator's check
        self.on_stuck_close: Callable[[BrowserContext], None] | None = None  # a close past CONTEXT_CLOSE_TIMEOUT_S

    @property
    def context(self) -> BrowserContext:
        return self._context

    @context.setter
    def context(self, context: BrowserContext) -> None:  # a restored session brings a new context
        self._context = context
        self.requests.attach(context)

    def requests_mark(self) -> int:
        """Where the count of the page's requests stands (`requests_settled` waits for later ones)."""
        return self.requests.started

    async def ready(self, timeout_s: float = READY_WAIT_S) -> None:
        """Wait (at most `timeout_s`) until the page holds still (`page_requests.page_ready`): an app
        still drawing what it loads is not looked at or acted on half drawn."""
        await page_ready(self.page, self.requests, timeout_s)

    async def holds_still(self) -> bool:
        """Whether the page cannot change by itself now: no document loading, and a loaded one
        without script, inline handler or frame (`INERT_EXPR`). What is not on such a page will
        not come (a condition checked on it need not wait)."""
        if self.requests.navigating():
            return False
        try:
            return bool(await self.read(self.page.evaluate(f"() => {INERT_EXPR}"), "could not read the page"))
        except (PlaywrightError, StepError):
            return False

    def requests_answers(self, since: int) -> list[int]:
        """The HTTP statuses of the page's fetch/XHR requests started after `since` and answered."""
        return self.requests.statuses(since)

    async def requests_settled(self, since: int, timeout_s: float) -> None:
        """Wait (at most `timeout_s`) until the fetch and XHR requests the page started after `since`
        have answered, then a moment for the page to draw what they brought."""
        if self.requests.waiting(since):
            deadline = time.monotonic() + timeout_s
            while self.requests.waiting(since) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.05)
        await page_busy_settled(self.page)  # a page saying it is still working (a slow report) is waited for

    # -- navigation -----------------------------------------------------------------------
    def check_url(self, url: str) -> None:
        """Refuse non-web URLs (file:, data:, chrome: ... could read the worker's own files) and
        navigation outside the automation's allowed domains before navigating. (The egress
        guard enforces the same at the network layer for everything the page does itself.)"""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise StepError(f"only http and https URLs can be opened, not {parts.scheme or 'a relative'} URL {url!r}")
        host = parts.hostname or ""
        if not domain_allowed(host, self.allowed_domains):
            raise StepError(off_domain_message(host or url, self.allowed_domains))

    def egress_check(self) -> None:
        """Raise a StepError naming the host if the egress guard blocked a navigation of this
        run's pages since the last check (a redirect, a link, a script, a popup, a frame)."""
        if self.egress is None:
            return
        blocked = self.egress.take_blocked()
        refused = self.egress.take_refusal(self.page.url)
        if blocked or refused:
            raise StepError(blocked or refused)

    async def goto(self, url: str, *, base: str = "", timeout_s: float = 30) -> None:
        url = urljoin(base or self.page.url, url)
        self.check_url(url)
        try:
            response = await self.page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
        except PlaywrightError as exc:
            self.egress_check()
            raise self._error(exc, f"could not open {url}") from exc
        self.egress_check()
        if response is not None and response.status >= 400:
            raise StepError(f"{url} answered HTTP {response.status}")

    # -- what the runner reads (surface-neutral) --------------------------------------------
    def location(self) -> str:
        return self.page.url

    async def read(self, awaitable, what: str, *, reads: int = 1):
        """Await a read of the page (`page_read`); a StepError past `reads` x PAGE_READ_TIMEOUT_S."""
        return await page_read(self.page, awaitable, what, reads=reads)

    async def text_visible(self, text: str) -> bool:
        try:
            return await self.read(self.page.get_by_text(text).filter(visible=True).count(), "could not read the page") > 0
        except PlaywrightError as exc:
            raise self._error(exc, "could not read the page") from exc

    async def session_state(self) -> dict | None:
        return await self.read(self.context.storage_state(), "could not save the session")

    # -- what the safety gate reads (workers.gates.guard) ------------------------------------
    async def probe_step(self, step, target) -> Probe:
        """The element an explicit step acts on: its grounded locator, a model point, the
        focused element (no target), or only the page (goto)."""
        if step.kind == "goto":
            probe = probe_page(self.page)
        elif target is None:
            probe = probe_focus(self.page)
        elif getattr(target, "locator", None) is not None:
            probe = probe_element(target.locator)
        else:
            probe = probe_point(self.page, *target.point)
        return await self.read(probe, "could not read the page for the safety gate")

    async def probe_action(self, action) -> tuple[Probe, tuple[int, int] | None]:
        """The element under a UI-Venus action's point, or the focused one (typing, keys)."""
        point = getattr(action, "point", None) or getattr(action, "start", None)
        what = "could not read the page for the safety gate"
        if point is not None:
            x, y = A.map_point(point, width=VIEWPORT["width"], height=VIEWPORT["height"])
            return await self.read(probe_point(self.page, x, y), what), (x, y)
        if isinstance(action, (A.Type, A.PressEnter, A.Hotkey, A.SelectOption)):
            return await self.read(probe_focus(self.page), what), None
        if isinstance(action, A.Launch):
            return await self.read(probe_page(self.page), what), None
        return Probe(url=self.page.url), None

    async def shown_box(self, target, probe: Probe) -> dict[str, float] | None:
        """The target's box on screen for the reviewer: scrolled into view first if it is not."""
        box, locator = probe.box, getattr(target, "locator", None)
        if box is None or locator is None or (0 <= box["y"] and box["y"] + box["height"] <= VIEWPORT["height"]):
            return box
        await locator.scroll_into_view_if_needed(timeout=PAGE_READ_TIMEOUT_S * 1000)
        return await self.read(locator.bounding_box(), "could not measure the target")

    async def before_action(self, locator=None, box: dict[str, float] | None = None) -> tuple[bytes, dict[str, float] | None]:
        """The screen an action is about to act on (masked like every observation) and, with a
        `locator`, its target's box in it: `box` when it was just measured and lies in the viewport,
        else scrolled into view first (as the action would) and measured."""
        what = "could not take a screenshot"
        try:
            if locator is not None and not _in_viewport(box):
                await locator.scroll_into_view_if_needed(timeout=PAGE_READ_TIMEOUT_S * 1000)
                box = await self.read(locator.bounding_box(), "could not measure the target")
            return await self.read(self.mask.capture(self.page, self._screenshot), what), box
        except PlaywrightError as exc:
            raise self._error(exc, what) from exc

    async def review_view(self, target, box: dict[str, float] | None, point: tuple[float, float] | None):
        """What a reviewer sees of a commit (`workers.envs.review_page`): the full page (masked as
        every observation is) with the target's box or point in page pixels, and the form being
        submitted (values masked) with the page's amounts."""
        what = "could not show the page to the reviewer"
        form = await self.read(review_page.form_and_amounts(self.page, getattr(target, "locator", None), self.secrets), what)
        try:
            scroll_y = await self.read(self.page.evaluate("() => scrollY"), what)
            shot, page_box = await self.read(review_page.full_page(self.page, self.mask, self._screenshot, box), what,
                                             reads=3)  # up to MAX_HEIGHT of page, viewport by viewport
        except PlaywrightError as exc:
            raise self._error(exc, "could not take a screenshot") from exc
        page_point = (point[0], point[1] + scroll_y) if point is not None else None
        return shot, page_box, page_point, form

    # -- observation ----------------------------------------------------------------------
    async def observe(self) -> Observation:
        try:
            shot = await self.read(self.mask.capture(self.page, self._screenshot), "could not take a screenshot")
            return Observation(
                screenshot=shot, width=VIEWPORT["width"], height=VIEWPORT["height"], url=self.page.url
            )
        except PlaywrightError as exc:
            raise self._error(exc, "could not take a screenshot") from exc

    async def page_state(self, action) -> PageState:
        """The step evaluator's reading of the page around `action`'s point (`workers.evaluator`)."""
        point = getattr(action, "point", None) or getattr(action, "start", None)
        mapped = A.map_point(point, width=VIEWPORT["width"], height=VIEWPORT["height"]) if point else None
        return await self.read(read_page_state(self.page, mapped), "could not read the page")

    # -- what the replay cache reads (workers.replay) --------------------------------------------
    async def screen_fingerprint(self) -> dict[str, str]:
        """The screen's identity for replay (`workers.envs.anchors`): path, controls, text."""
        try:
            return await self.read(anchors.screen_fingerprint(self.page), "could not read the page")
        except PlaywrightError as exc:
            raise self._error(exc, "could not read the page") from exc

    async def action_anchor(self, action) -> dict | None:
        """What identifies the element under `action`'s point (None: no point, or the bare page)."""
        point = getattr(action, "point", None)
        if point is None:
            return None
        x, y = A.map_point(point, width=VIEWPORT["width"], height=VIEWPORT["height"])
        try:
            return await self.read(anchors.anchor_at(self.page, x, y), "could not read the page")
        except PlaywrightError as exc:
            raise self._error(exc, "could not read the page") from exc

    async def resolve_anchor(self, anchor: dict) -> tuple[tuple[int, int] | None, str]:
        """Where `anchor`'s element is now, in the model's space, or (None, the drift)."""
        try:
            return await self.read(anchors.resolve(self.page, anchor, width=VIEWPORT["width"],
                                                   height=VIEWPORT["height"]), "could not read the page")
        except PlaywrightError as exc:
            raise self._error(exc, "could not read the page") from exc

    async def _screenshot(self) -> bytes:
        # CDP's capture skips Playwright's font and caret bookkeeping: about half the time of
        # page.screenshot on busy pages, same pixels for a viewport shot. `optimizeForSpeed`
        # picks the faster JPEG encoder settings (about a quarter less per shot).
        try:
            if self._cdp is None:
                self._cdp = await self.context.new_cdp_session(self.page)
            result = await self._cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": JPEG_QUALITY,
                                                                   "optimizeForSpeed": True})
            return base64.b64decode(result["data"])
        except PlaywrightError:
            # Mid-navigation there is no frame to capture yet; Playwright's own screenshot waits
            # for one (and gets one more chance after a short pause).
            self._cdp = None
            await self.settle()
            try:
                return await self.page.screenshot(type="jpeg", quality=JPEG_QUALITY)
            except PlaywrightError:
                await asyncio.sleep(0.3)
                await self.settle()
                return await self.page.screenshot(type="jpeg", quality=JPEG_QUALITY)

    async def settle(self) -> None:
        """Wait until a navigation an action started has produced a document."""
        try:
            await self.page.wait_for_load_state("domcontentloaded", timeout=15000)
        except PlaywrightError as exc:
            self.egress_check()
            raise self._error(exc, "page did not load") from exc
        self.egress_check()

    # -- UI-Venus actions -----------------------------------------------------------------
    async def execute(self, action) -> ActionOutcome:
        """Perform one UI-Venus browser action given in normalised coordinates."""
        page, mouse = self.page, self.page.mouse
        w, h = VIEWPORT["width"], VIEWPORT["height"]

        def px(point):
            return A.map_point(point, width=w, height=h)

        try:
            match action:
                case A.Click(point=p) | A.DoubleClick(point=p) | A.Hover(point=p):
                    x, y = px(p)
                    if isinstance(action, A.Hover):
                        await mouse.move(x, y)
                        return ActionOutcome(grounding={"x": x, "y": y})
                    async with navigation_watch(page, self.settle):
                        await mouse.click(x, y, click_count=2 if isinstance(action, A.DoubleClick) else 1)
                    return ActionOutcome(grounding={"x": x, "y": y}, feedback=await select_options(self.page))
                case A.LongPress(point=p, duration=d):
                    x, y = px(p)
                    await mouse.move(x, y)
                    await mouse.down()
                    await asyncio.sleep(d)
                    await mouse.up()
                    return ActionOutcome(grounding={"x": x, "y": y})
                case A.Drag(start=s, end=e):
                    (x1, y1), (x2, y2) = px(s), px(e)
                    await mouse.move(x1, y1)
                    await mouse.down()
                    await mouse.move(x2, y2, steps=12)
                    await mouse.up()
                    return ActionOutcome(grounding={"start": [x1, y1], "end": [x2, y2]})
                case A.Scroll(point=p, direction=d):
                    x, y = px(p)
                    await mouse.move(x, y)
                    amount = {"down": (0, h * 2 // 3), "up": (0, -h * 2 // 3), "right": (w * 2 // 3, 0), "left": (-w * 2 // 3, 0)}[d]
                    await mouse.wheel(*amount)
                    await frames_drawn(page)  # the wheel scrolls a frame or two later: read after it
                    return ActionOutcome(grounding={"x": x, "y": y})
                case A.Type(content=text):
                    value = self.secrets.reveal(text, url=page.url)
                    self.last_typed = value
                    if value != text:  # a vault value: its field is masked from now on
                        await self.mask.tag_focused(page)
                    await type_text(self.page, value)
                case A.SelectOption(index=i):
                    return ActionOutcome(feedback=await select_focused(self.page, i))
                case A.Launch(url=url):
                    self.check_url(url)
                    self.page = await open_page(self.context)
                    self._cdp = None
                    await self.goto(url)
                case A.GetUrl():
                    return ActionOutcome(feedback=f"Current URL: {page.url}")
                case A.TakeNote(content=text):
                    self.notes.append(text)
                case A.PressBack():
                    await page.go_back(wait_until="domcontentloaded")
                    self._cdp = None
                case A.PressHome():
                    await page.keyboard.press("Home")
                case A.PressEnter():
                    async with navigation_watch(page, self.settle):
                        await page.keyboard.press("Enter")
                case A.Hotkey(keys=keys):
                    await page.keyboard.press("+".join(key_name(k) for k in keys))
                case A.Wait():
                    await asyncio.sleep(3)
                case A.CallUser() | A.Finished():
                    pass
                case _:
                    raise StepError(f"action {type(action).__name__} is not supported in the browser")
        except PlaywrightError as exc:
            self.egress_check()
            raise self._error(exc, f"{type(action).__name__} failed") from exc
        self.egress_check()
        return ActionOutcome()

    def _error(self, exc: PlaywrightError, what: str) -> Exception:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if browser_gone(exc):
            return EnvironmentLost(f"browser lost: {message}")
        return StepError(f"{what}: {message}")

    async def close(self) -> None:
        try:
            await self.files.settle(timeout_s=10)  # downloads under way are kept (or refused) before the context goes
        except Exception:  # closing must go on whatever a capture did
            log.warning("downloads could not be settled before closing", exc_info=True)
        try:
            await bounded(self.context.close(), CONTEXT_CLOSE_TIMEOUT_S)
        except PlaywrightError:
            pass  # the browser may already be gone; the pool launches another for the next run
        except TimeoutError:
            log.warning("a browser context did not close within %gs; going on without it", CONTEXT_CLOSE_TIMEOUT_S)
            if self.on_stuck_close is not None:
                self.on_stuck_close(self.context)
        if self.egress is not None:
            await self.egress.stop()  # a restored session (safety review) starts it again


async def page_read(page: Page, awaitable, what: str, *, reads: int = 1):
    """Await a read of `page` (`reads` of them in a row) for at most `reads` x PAGE_READ_TIMEOUT_S;
    past it a StepError says what could not be read and that the page has not finished a
    navigation it started (the usual cause: an app that reloads or redirects itself after an XHR,
    whose new document is not coming)."""
    limit = PAGE_READ_TIMEOUT_S * reads
    try:
        async with asyncio.timeout(limit) as timer:
            return await awaitable
    except TimeoutError:
        if not timer.expired():
            raise
        raise StepError(f"{what}: the page at {page.url} did not answer within {limit:g}s "
                        "(a navigation it started has not finished loading)") from None
