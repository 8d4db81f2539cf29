"""Letter case learned from a site's verdicts (workers/captcha/letter_case.py): the belief moves
with what the site accepts and refuses, only where the answers' case was in doubt, and the text
gate weighs the answer by it."""

from __future__ import annotations

import asyncio
import random

import numpy as np
import pytest

from workers.automation_settings import CaptchaPolicy
from workers.captcha import letter_case as L
from workers.captcha.site_memory import SiteMemory
from workers.captcha.hints import TextHints
from workers.captcha.local import ocr_gate, ocr_threshold
from workers.captcha.solvers.ocr_vote import OcrReading

T_EXACT, T_ANY = 0.55, 0.20


def _site(ignores_case: bool, answers: int, seed: int = 1, letters_right: float = 0.85) -> SiteMemory:
    """A site whose answers come in two kinds: case sure (p_exact = p_any) or a coin toss (half).
    Its verdicts are drawn as the site would give them: the letters right `letters_right` of the
    time; where case matters, a coin-toss case is right half the time."""
    rng = random.Random(seed)
    memory = SiteMemory()
    for _ in range(answers):
        sure = rng.random() < 0.5
        p_any, p_exact = 0.85, 0.85 if sure else 0.42
        right = rng.random() < letters_right and (ignores_case or sure or rng.random() < 0.5)
        memory.expect("site.test", p_exact, p_any)
        asyncio.run(memory.settle(right))
    return memory




def _ignored(memory: SiteMemory) -> float:
    return L.ignored(asyncio.run(memory.weights("site.test")))


def test_a_site_nobody_has_seen_is_believed_to_mind_case():
    assert L.ignored(L.prior()) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)


def test_a_site_that_accepts_coin_toss_cases_is_learned_and_one_that_refuses_them_is_not():
    assert _ignored(_site(ignores_case=True, answers=30)) > 0.9
    assert _ignored(_site(ignores_case=False, answers=30)) < 0.02


def test_misread_letters_alone_do_not_teach_that_case_matters():
    memory = SiteMemory()
    for _ in range(50):  # answers whose case is sure, refused: the letters were wrong
        memory.expect("site.test", 0.8, 0.8)
        asyncio.run(memory.settle(False))
    assert _ignored(memory) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    # ...but they lower what the site is expected to accept from this reader.
    confidence, _ = L.gated(0.8, 0.8, asyncio.run(memory.weights("site.test")), T_EXACT, T_ANY)
    assert confidence < 0.5


def test_a_learned_site_is_unlearned_in_a_few_verdicts():
    memory = _site(ignores_case=True, answers=200)
    assert _ignored(memory) > 0.99
    for _ in range(7):  # the site changed: coin-toss cases refused
        memory.expect("site.test", 0.42, 0.85)
        asyncio.run(memory.settle(False))
    assert _ignored(memory) < 0.5


def test_the_gate_weighs_the_answer_by_the_belief():
    reading = OcrReading("xKp7", 0.2, confidence_any_case=0.9)  # letters sure, case a guess
    policy = CaptchaPolicy()
    unseen = ocr_gate(reading, TextHints(), policy, L.prior())
    assert unseen[2] == "learned" and unseen[0] < unseen[1]  # handed on, as before the learning
    assert unseen[1] == pytest.approx(0.9 * ocr_threshold(3) + 0.1 * ocr_threshold(3, any_case=True), abs=1e-3)
    learned = ocr_gate(reading, TextHints(), policy, asyncio.run(_site(True, 30).weights("site.test")))
    assert learned[0] > 0.8 and learned[0] >= learned[1]  # typed
    assert learned[1] == pytest.approx(ocr_threshold(3, any_case=True), abs=0.02)
    # The automation's setting or the page's words win over the belief; nothing read is no answer.
    assert ocr_gate(reading, TextHints(), CaptchaPolicy(letter_case="matters"), L.prior())[2] == "matters"
    assert ocr_gate(reading, TextHints(case_ignored=False), policy, L.prior())[2] == "matters"
    assert ocr_gate(OcrReading("", 0.9, confidence_any_case=0.9), TextHints(), policy, L.prior())[0] == 0.0


def test_what_a_store_sends_is_bounded_and_a_bad_value_is_the_prior():
    assert np.array_equal(L.bounded([[1.0]]), L.bounded(L.prior()))
    assert np.array_equal(L.bounded([[float("nan")] * len(L.SKILL)] * 2), L.bounded(L.prior()))
    huge = np.full((2, len(L.SKILL)), -1e9)
    huge[1, 0] = 0.0
    kept = L.bounded(huge)
    case = np.logaddexp.reduce(kept, axis=1)
    assert case[1] - case[0] == pytest.approx(L.BOUND_NATS)  # the case at most BOUND_NATS apart
    assert kept.min() == -L.SKILL_FLOOR  # the skill cells only kept finite
    assert not L.bounded_loglik([[5.0] * len(L.SKILL)] * 2).any()  # a log-probability is never positive
    assert not L.bounded_loglik("nonsense").any()
    assert np.array_equal(L.bounded({"a": 1}), L.bounded(L.prior()))


def test_lanes_share_the_store_but_not_the_pending_answer():
    seen: list = []

    async def add(host, loglik, accepted, answer, applied, kind):
        seen.append((host, accepted))

    memory = SiteMemory(add=add)
    lane = memory.fork()
    memory.expect("a.test", 0.4, 0.9)
    assert lane.pending is None
    lane.expect("b.test", 0.4, 0.9)
    asyncio.run(memory.settle(True))
    asyncio.run(lane.settle(False))
    assert seen == [("a.test", True), ("b.test", False)]
    assert asyncio.run(memory.settle(True)) is None  # nothing pending: nothing learned


def test_where_a_gate_has_no_threshold_for_the_tries_none_is_made_up():
    sure = OcrReading("xKp7", 0.99, confidence_any_case=0.99)
    two, one = CaptchaPolicy(max_attempts=2), CaptchaPolicy(max_attempts=1)
    assert ocr_threshold(2) > 1 >= ocr_threshold(2, any_case=True)  # the committed gate: exact none for 2 tries
    confidence, threshold, _ = ocr_gate(sure, TextHints(), two, L.prior())
    assert confidence < threshold  # a site never seen: handed on, as before the learning
    learned = asyncio.run(_site(True, 30).weights("site.test"))
    assert L.ignored(learned) >= L.LEARNED
    assert ocr_gate(sure, TextHints(), two, learned)[1] == ocr_threshold(2, any_case=True)
    if ocr_threshold(1, any_case=True) > 1:  # no any-case threshold for one try: never, whatever is learned
        assert ocr_gate(sure, TextHints(), one, learned)[1] > 1


def test_a_store_that_fails_costs_the_learning_not_the_run():
    async def load(host):
        raise ConnectionError("the database is gone")

    async def add(host, loglik, accepted, answer, applied, kind):
        raise ConnectionError("the database is gone")

    memory = SiteMemory(load, add)
    assert L.ignored(asyncio.run(memory.weights("site.test"))) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
    memory.expect("site.test", 0.4, 0.9)
    assert asyncio.run(memory.settle(True)) > L.PRIOR_IGNORED  # kept in the run


def test_a_challenge_counts_once():
    memory = SiteMemory()
    memory.expect("site.test", 0.4, 0.9, "challenge-1")
    once = asyncio.run(memory.settle(True))
    memory.expect("site.test", 0.4, 0.9, "challenge-1")  # the same answer typed again
    assert memory.pending is None and asyncio.run(memory.settle(True)) is None
    assert _ignored_of(memory) == pytest.approx(once)


def _ignored_of(memory: SiteMemory) -> float:
    return L.ignored(asyncio.run(memory.weights("site.test")))
