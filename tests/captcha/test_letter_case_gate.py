"""The CAPTCHA gate carries a typed text answer's verdict to the site's letter-case belief
(workers/captcha/gate.py with workers/captcha/letter_case.py): a verdict the widget gives at
once, or one the page gives after the form's submit (the form back with "the security check failed", or the
page moved on, to a page without a challenge or to another page with one of its own), and no
verdict when another challenge comes on the same page without a word on the last one."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from workers.automation_settings import CaptchaPolicy
from workers.captcha import gate as gate_module, letter_case as L
from workers.captcha.detect import Widget
from workers.captcha.gate import CaptchaGate
from workers.captcha.site_memory import SiteMemory


def text_widget(src: str, alerts: list[str] | None = None) -> Widget:
    return Widget("ocr", {"x": 0, "y": 0, "width": 200, "height": 80}, "Enter the characters",
                  images=[{"src": src}], inputs=[{"rect": {"x": 0, "y": 50, "width": 100, "height": 20}}],
                  page_alerts=alerts or [])


@dataclass
class Page:
    url: str = "https://shop.test/login"
    shows: list = field(default_factory=list)  # what detect() finds, one entry per look (the last one stays)

    def look(self):
        return self.shows.pop(0) if len(self.shows) > 1 else self.shows[0]


@dataclass
class Env:
    page: Page

    async def observe(self):
        return type("Observation", (), {"screenshot": b""})()


class Hooks:
    def __init__(self, memory: SiteMemory) -> None:
        self.site_memory, self.attempts = memory, []

    def emit(self, attempt) -> None:
        self.attempts.append(attempt)


@pytest.fixture
def looks(monkeypatch):
    async def detect(page):
        return page.look()

    monkeypatch.setattr(gate_module, "detect", detect)


def typed(weights_seen: list):
    async def local(env, widget, policy, case_weights=None, site_format=None):
        weights_seen.append(case_weights)
        return {"answer": "xKp7", "confidence": 0.4, "confidence_any_case": 0.9,
                "letter_case": "matters" if case_weights is None else "learned"}
    return local


def run(coro):
    return asyncio.run(coro)


def test_the_form_back_with_an_error_is_a_refusal_and_a_page_without_the_widget_an_acceptance(looks):
    seen: list = []
    memory, page = SiteMemory(), Page()
    hooks, solved = Hooks(memory), set()
    gate = CaptchaGate(local=typed(seen), model=None)
    policy = CaptchaPolicy(solvers=["local"])
    first = text_widget("/c/1.png")
    page.shows = [first]  # the widget, still there after typing: no verdict until the submit
    assert run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved)) is False
    assert hooks.attempts[-1].outcome == "unverified" and memory.pending is not None
    assert L.ignored(seen[0]) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)  # the solver weighs by the belief
    # The same page looked at again before the submit: still waiting.
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))
    assert memory.pending is not None
    # The form comes back refused with a new challenge: a refusal; the new one is answered.
    page.shows = [text_widget("/c/2.png", ["The security check failed, try again"])]
    assert run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved)) is True
    refused = L.ignored(run(memory.weights("shop.test")))
    assert refused < L.PRIOR_IGNORED and memory.pending is not None
    # The page moved on: the second answer was accepted.
    page.shows = [None]
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))
    assert memory.pending is None and L.ignored(run(memory.weights("shop.test"))) > refused


def answered_once():
    """A gate whose local route typed an answer to /c/1.png on shop.test's login page, its verdict
    still to come: (seen case weights, memory, page, hooks, solved, gate, policy)."""
    seen: list = []
    memory, page = SiteMemory(), Page(shows=[text_widget("/c/1.png")])
    hooks, solved = Hooks(memory), set()
    gate = CaptchaGate(local=typed(seen), model=None)
    policy = CaptchaPolicy(solvers=["local"])
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))
    assert memory.pending is not None and memory.pending.page == "https://shop.test/login"
    return seen, memory, page, hooks, solved, gate, policy


def test_a_new_challenge_without_a_word_teaches_nothing_and_a_pinned_case_learns_nothing(looks):
    seen, memory, page, hooks, solved, gate, policy = answered_once()
    page.shows = [text_widget("/c/9.png")]  # another challenge, no error on the page: answered by a person
    run(gate.check(Env(page), CaptchaPolicy(solvers=["local"], letter_case="matters"), allowed_domains=["shop.test"],
                   hooks=hooks, solved=solved))
    assert memory.pending is not None and memory.pending.challenge.endswith("/c/9.png")  # the first dropped, not settled
    assert L.ignored(run(memory.weights("shop.test"))) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    # The automation's author said case matters: the solver is given no belief, and the answer's
    # verdict teaches its format only, never the case.
    assert seen[-1] is None and memory.pending is not None and not memory.pending.case
    assert run(memory.settle(True)) is None
    assert L.ignored(run(memory.weights("shop.test"))) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    assert run(memory.format("shop.test"))["lengths"] == {"4": 1.0}


def test_an_old_alert_on_the_answered_challenge_is_no_refusal(looks):
    memory, page = SiteMemory(), Page()
    hooks, solved = Hooks(memory), set()
    gate = CaptchaGate(local=typed([]), model=None)
    policy = CaptchaPolicy(solvers=["local"])
    refused_page = text_widget("/c/2.png", ["The security check failed, try again"])
    page.shows = [refused_page]  # a fresh challenge after an earlier refusal, the alert still shown
    assert run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved)) is True
    assert memory.pending is not None
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))  # before the submit
    assert memory.pending is not None and L.ignored(run(memory.weights("shop.test"))) == pytest.approx(
        L.PRIOR_IGNORED, abs=1e-3)
    page.shows = [None]
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))
    assert L.ignored(run(memory.weights("shop.test"))) > L.PRIOR_IGNORED  # accepted, once


@pytest.mark.parametrize(("said", "counted"), [
    ("Verified", [True]), ("Incorrect, try again", [False]), ("Expired, try again", []),
])
def test_a_verdict_the_widget_gives_at_once_counts_once_and_an_expiry_not_at_all(looks, said, counted):
    from workers.errors import StepError

    memory, page = SiteMemory(), Page()
    first = text_widget("/c/1.png")
    after = text_widget("/c/1.png")  # the same challenge, the widget now saying something
    after.status = [said]
    page.shows = [first, after]
    hooks = Hooks(memory)
    gate = CaptchaGate(local=typed([]), model=None)
    policy = CaptchaPolicy(solvers=["local"], max_attempts=3)
    if said == "Verified":
        run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=set()))
    else:  # the same challenge answered three times, the widget saying the same each time
        with pytest.raises(StepError):
            run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=set()))
    expected = L.prior()
    for accepted in counted:
        expected = L.bounded(expected + L.evidence(0.4, 0.9, accepted))
    assert L.ignored(run(memory.weights("shop.test"))) == pytest.approx(L.ignored(expected), abs=1e-6)
    assert memory.pending is None


def test_a_persons_accepted_answer_teaches_the_format_and_is_not_recorded(looks, monkeypatch):
    from workers.captcha import act

    async def shot(env, rect, *, margin, quality):
        return b"", {"x": 0, "y": 0, "width": 200, "height": 80}

    async def type_into(page, rect, text):
        page.typed = text

    monkeypatch.setattr(act, "widget_shot", shot)
    monkeypatch.setattr(act, "type_into", type_into)
    memory, page = SiteMemory(), Page()
    hooks = Hooks(memory)

    async def ask_captcha(**kwargs):
        return {"text": " 4 8 2 1 "}

    hooks.ask_captcha = ask_captcha
    gate = CaptchaGate(local=None, model=None)  # the local route is in the policy, not on this worker
    policy = CaptchaPolicy(solvers=["local", "human"])
    for allowed, solvers in ((["other.test"], ["local", "human"]), (["shop.test"], ["human"])):
        page.shows = [text_widget("/c/x.png")]  # a host the local route may not answer on, or a policy without it
        run(gate.check(Env(page), CaptchaPolicy(solvers=solvers), allowed_domains=allowed, hooks=hooks, solved=set()))
        assert page.typed == " 4 8 2 1 " and memory.pending is None  # typed, nothing learned
    for i in range(6):  # a person answers each challenge; the page then moves on (accepted)
        page.shows = [text_widget(f"/c/{i}.png")]
        run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=set()))
        assert page.typed == " 4 8 2 1 " and memory.pending is not None and not memory.pending.case
        page.shows = [None]
        run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks))
    from workers.captcha import answer_format

    assert answer_format.hints(run(memory.format("shop.test"))).length == 4
    assert L.ignored(run(memory.weights("shop.test"))) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    assert all("4 8 2 1" not in repr(a.detail) and "_typed" not in a.detail for a in hooks.attempts)


def test_the_models_accepted_typed_answer_teaches_the_format(looks):
    async def model(env, widget):  # what ModelCaptchaSolver returns after typing its answer
        return {"model_answer": "Click(box=(500, 700)), Type(content='7 3 9')", "actions": [
            {"type": "Click", "box": [500, 700]}, {"type": "Type", "content": "7 3 9"}]}

    memory, page = SiteMemory(), Page()
    hooks = Hooks(memory)
    gate = CaptchaGate(local=None, model=model)
    for solvers in (["model"], ["local", "model"]):
        for i in range(6):
            page.shows = [text_widget(f"/c/{solvers[0]}{i}.png")]
            run(gate.check(Env(page), CaptchaPolicy(solvers=solvers), allowed_domains=["shop.test"], hooks=hooks,
                           solved=set()))
            page.shows = [None]  # the page moved on: accepted
            run(gate.check(Env(page), CaptchaPolicy(solvers=solvers), allowed_domains=["shop.test"], hooks=hooks))
        from workers.captcha import answer_format

        learned = answer_format.hints(run(memory.format("shop.test")))
        # Without the local route in the policy nothing is learned (it would not be used).
        assert learned.length == (None if solvers == ["model"] else 3), (solvers, learned)
    assert hooks.attempts[-1].solver == "model" and not memory.pending


@pytest.mark.parametrize("next_url, settled", [
    ("https://shop.test/checkout/confirm", True),  # the form went through: the next page asks again
    ("https://pay.shop.test/login", True),  # another site
    ("https://shop.test/login?attempt=2", False),  # the same page, sent back without a word
    ("https://shop.test/login/#captcha", False),
])
def test_a_new_challenge_on_another_page_is_an_acceptance(looks, next_url, settled):
    _, memory, page, hooks, solved, gate, policy = answered_once()
    page.url, page.shows = next_url, [text_widget("/c/2.png")]  # no error on the page
    run(gate.check(Env(page), policy, allowed_domains=["shop.test"], hooks=hooks, solved=solved))
    belief = L.ignored(run(memory.weights("shop.test")))
    if settled:
        assert belief > L.PRIOR_IGNORED + 0.01  # accepted: an answer read in the wrong case passed
        assert run(memory.format("shop.test"))["lengths"] == {"4": 1.0}
    else:
        assert belief == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    assert memory.pending is not None and memory.pending.challenge.endswith("/c/2.png")  # the new one answered
