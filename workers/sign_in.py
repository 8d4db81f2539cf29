"""Persistent logins on the runtime side: which steps sign in, whether a page is signed in, and
what part of a browser session may be kept.

A saved session is a Playwright `storage_state` (cookies and local storage). It is a secret:
nothing here logs it, and records only ever name its credential and domain. Storage is the
caller's (`LoginSessions`, a port the web app implements with encryption at rest).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from workers import steps as S
from workers.egress import domain_allowed
from workers.errors import ConfigurationError, EnvironmentLost, StepError

if TYPE_CHECKING:
    from playwright.async_api import Page

# A session whose cookies carry no expiry of their own is kept this long at most (the store
# may shorten it; a site that ends it sooner is noticed by the automation's check).
DEFAULT_MAX_AGE_S = 7 * 24 * 3600


@dataclass(frozen=True)
class SavedSession:
    """A stored session as the runtime receives it (decrypted, filtered to permitted hosts)."""

    state: dict[str, Any]
    saved_at: float
    expires_at: float


class LoginSessions(Protocol):
    """Where a run's sign-in sessions live. Implementations are bound to one run (its workspace,
    its automation's credentials and allowed domains) and refuse anything outside them."""

    async def load(self, *, credential: str, domain: str) -> SavedSession | None:
        """The saved, unexpired session for (credential, domain), or None; marks it used."""
        ...

    async def save(self, *, credential: str, domain: str, state: dict[str, Any], expires_at: float) -> None:
        """Store (replace) the session for (credential, domain), encrypted."""
        ...

    async def discard(self, *, credential: str, domain: str) -> None:
        """Forget the session for (credential, domain): the site no longer accepts it."""
        ...


@dataclass(frozen=True)
class SignInPlan:
    """The sign-in block of one run: positions in the run's step list (start URL step included)."""

    first: int
    last: int
    credential: str
    domain: str
    check: S.SignInCheck

    def covers(self, position: int) -> bool:
        return self.first <= position <= self.last


def sign_in_credential(spec: S.AutomationSpec) -> str:
    """The credential of the sign-in block: the one named, else the one its steps type ("" if
    none or several)."""
    if spec.sign_in is None:
        return ""
    if spec.sign_in.credential:
        return spec.sign_in.credential
    names = {m.group(1) for i in spec.sign_in_positions() for text in S.step_strings(spec.steps[i])
             for m in S.SECRET_RE.finditer(text)}
    return names.pop() if len(names) == 1 else ""


def sign_in_domain(spec: S.AutomationSpec, params: dict[str, Any] | None = None) -> str:
    """The session's domain: the one named, else the start URL's host (parameters filled)."""
    if spec.sign_in is None:
        return ""
    if spec.sign_in.domain:
        return spec.sign_in.domain.lower()
    try:
        url = S.render(spec.start_url, params or {}) if params is not None else spec.start_url
    except (KeyError, ValueError):
        return ""
    return (urlsplit(url).hostname or "").lower()


def sign_in_plan(spec: S.AutomationSpec, params: dict[str, Any], *, offset: int) -> SignInPlan | None:
    """The block's plan for a run whose step list starts `offset` steps before `spec.steps`;
    ConfigurationError when the definition's block cannot work (the web app refuses such
    definitions; this guards stored or hand-made ones)."""
    positions = spec.sign_in_positions()
    if spec.sign_in is None:
        if positions:
            raise ConfigurationError("steps are marked as sign-in steps but the automation has no sign_in check")
        return None
    if not positions:
        raise ConfigurationError("the automation has a sign_in section but no step is marked as a sign-in step")
    if positions != list(range(positions[0], positions[-1] + 1)):
        raise ConfigurationError("the sign-in steps must follow each other")
    credential, domain = sign_in_credential(spec), sign_in_domain(spec, params)
    if not credential:
        raise ConfigurationError("name the sign-in credential (sign_in.credential)")
    if not domain or not domain_allowed(domain, spec.allowed_domains):
        raise ConfigurationError(f"the sign-in domain {domain!r} is not among the allowed domains")
    return SignInPlan(positions[0] + offset, positions[-1] + offset, credential, domain, spec.sign_in.check)


async def signed_in(page: Page, check: S.SignInCheck) -> tuple[bool, str]:
    """Whether every condition of the check holds on the page (waiting up to `check.timeout_s`
    for the text), and what did not hold, for people."""
    from playwright.async_api import Error as PlaywrightError  # the web app imports this module too

    url = page.url
    if check.url_contains and check.url_contains not in url:
        return False, f"the URL does not contain {check.url_contains!r}"
    if check.url_excludes and check.url_excludes in url:
        return False, f"the URL contains {check.url_excludes!r}"
    if check.text_visible:
        try:
            await page.get_by_text(check.text_visible).filter(visible=True).first.wait_for(
                state="visible", timeout=check.timeout_s * 1000)
        except PlaywrightError:
            return False, f"the text {check.text_visible!r} is not visible"
    return True, ""


def _cookie_host(cookie: dict[str, Any]) -> str:
    return str(cookie.get("domain", "")).lower().lstrip(".")


def state_permitted(state: dict[str, Any], *, domain: str, permit: list[list[str]]) -> dict[str, Any]:
    """The part of a storage state a session for `domain` may carry: cookies and origins of hosts
    that every domain list in `permit` allows (the automation's allowed domains, the credential's
    domains), plus cookies set for a parent domain of `domain` (the browser sends them to it)."""

    def allowed(host: str) -> bool:
        return bool(host) and all(domain_allowed(host, domains) for domains in permit)

    def cookie_ok(cookie: dict[str, Any]) -> bool:
        host = _cookie_host(cookie)
        parent = str(cookie.get("domain", "")).startswith(".") and domain_allowed(domain, [host])
        return allowed(host) or (parent and allowed(domain))

    cookies = [c for c in state.get("cookies", []) if cookie_ok(c)]
    origins = [o for o in state.get("origins", []) if allowed((urlsplit(o.get("origin", "")).hostname or "").lower())]
    return {"cookies": cookies, "origins": origins}


def state_expiry(state: dict[str, Any], *, now: float | None = None, max_age_s: float = DEFAULT_MAX_AGE_S) -> float:
    """When a saved session stops being offered: the earliest expiry among its persistent
    cookies, at most `max_age_s` from now (browser-session cookies carry no expiry)."""
    now = time.time() if now is None else now
    expiries = [float(c["expires"]) for c in state.get("cookies", []) if float(c.get("expires", -1)) > 0]
    return min([now + max_age_s, *expiries])


class SignInFailed(Exception):
    """The sign-in block ran but the page is not signed in; `index` is the failed record's."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class SignInBlock:
    """A run's sign-in block. Before the run: `load` fetches the saved session to start the
    browser context with. At the block's first step: `still_signed_in` runs the check (holds:
    the caller skips the block; not: the stale session is discarded and the block runs). After
    its last step: `save` requires the check and stores the session. `emit(name=, action=,
    status=, error=, url=, screenshot=, started_at=)` records each decision; records name the
    credential and domain, never a cookie. Without a plan every method is a no-op."""

    def __init__(self, plan: SignInPlan | None, *, sessions: LoginSessions | None, allowed_domains: list[str],
                 emit: Callable[..., Any]) -> None:
        self.plan, self.sessions, self.allowed_domains, self._emit = plan, sessions, allowed_domains, emit
        self.applied = False

    def starts(self, position: int) -> bool:
        return self.plan is not None and position == self.plan.first

    def ends(self, position: int) -> bool:
        return self.plan is not None and position == self.plan.last

    async def load(self) -> SavedSession | None:
        if self.plan is None or self.sessions is None:
            return None
        saved = await self.sessions.load(credential=self.plan.credential, domain=self.plan.domain)
        if saved is not None:  # the store filters as well; this is the runtime's own guard
            saved = SavedSession(state_permitted(saved.state, domain=self.plan.domain, permit=[self.allowed_domains]),
                                 saved.saved_at, saved.expires_at)
        self.applied = saved is not None
        return saved

    def _record(self, env, name: str, session: str, **fields: Any):
        action = {"credential": self.plan.credential, "domain": self.plan.domain, "session": session}
        return self._emit(name=name, action=action, url=env.page.url, **fields)

    async def still_signed_in(self, env) -> bool:
        """With a saved session applied: whether the check holds on the current page."""
        if not self.applied:
            return False
        started = time.time()
        ok, why = await signed_in(env.page, self.plan.check)
        if not ok:
            await self.sessions.discard(credential=self.plan.credential, domain=self.plan.domain)
        try:
            screenshot = (await env.observe()).screenshot
        except (StepError, EnvironmentLost):
            screenshot = None
        name = "Signed in with the saved session" if ok else f"Saved session not signed in ({why}): signing in again"
        self._record(env, name, "reused" if ok else "expired", screenshot=screenshot, started_at=started)
        return ok

    async def save(self, env) -> None:
        """The check must hold after the block (else SignInFailed); then the session is stored."""
        started = time.time()
        ok, why = await signed_in(env.page, self.plan.check)
        if not ok:
            error = f"not signed in after the sign-in steps: {why}"
            record = self._record(env, "Check that the sign-in worked", "none", status="failed", error=error,
                                  started_at=started)
            raise SignInFailed(record.index, error)
        if self.sessions is None:
            return
        state = state_permitted(await env.context.storage_state(), domain=self.plan.domain,
                                permit=[self.allowed_domains])
        await self.sessions.save(credential=self.plan.credential, domain=self.plan.domain, state=state,
                                 expires_at=state_expiry(state))
        self._record(env, f"Saved the signed-in session for {self.plan.domain}", "saved", started_at=started)
