"""A site's answer format learned from the answers it accepts (workers/captcha/answer_format.py),
carried by the run's site memory (workers/captcha/site_memory.py) and used by the local route's
reading (workers/captcha/local.py:read_for_site)."""

from __future__ import annotations

import asyncio
import random
import string

import pytest

from workers.automation_settings import CaptchaPolicy
from workers.captcha import answer_format as F
from workers.captcha.hints import TextHints
from workers.captcha.local import read_for_site
from workers.captcha.site_memory import SiteMemory
from workers.captcha.solvers.ocr_vote import OcrReading


def _site(alphabet: str, lengths: tuple[int, ...], answers: int, seed: int = 3) -> dict:
    rng = random.Random(seed)
    state = F.empty()
    for _ in range(answers):
        state = F.learn(state, "".join(rng.choice(alphabet) for _ in range(rng.choice(lengths))), True, False)
    return state


def test_nothing_is_taken_from_fewer_than_min_answers():
    assert not F.hints(_site(string.digits, (4,), 4))
    assert F.hints(_site(string.digits, (4,), 5)).length == 4


def test_one_length_and_one_class_are_learned_and_a_varied_site_teaches_nothing():
    digits = F.hints(_site(string.digits, (4,), 12))
    assert digits == F.Learned(string.digits, 4) and F.describe(digits) == "4 characters, digits only"
    varied = F.hints(_site(string.ascii_letters + string.digits, (4, 5, 6), 200))
    assert not varied  # every length and both classes: nothing to go by
    capitals = F.hints(_site("ABCDEFGHJKLMNPQRSTUVWXYZ", (5,), 12))
    assert capitals.length == 5 and set(capitals.charset) == set(string.ascii_letters)  # both cases: case is learned apart


def test_characters_are_ruled_out_only_once_each_drawn_one_would_have_been_seen_often():
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
    few = F.hints(_site(alphabet, (5,), 40))  # 200 characters over 32 kinds: about 6 each
    assert few.charset is None
    many = F.hints(_site(alphabet, (5,), 120))
    assert many.charset is not None and not set("0o1i") & set(many.charset.lower())
    assert set(many.charset.lower()) == set(alphabet.lower())


def test_a_changed_format_is_followed_and_refusals_of_answers_read_under_it_forget_it():
    state = _site(string.digits, (4,), 30)
    assert F.hints(state).length == 4
    state = F.learn(state, "12345", True, False)  # one answer of another length, read without the format
    assert F.hints(state).length is None
    for _ in range(400):
        state = F.learn(state, "12345", True, False)
    assert F.hints(state).length == 5  # the old length decayed away
    for i in range(F.FORGET_AFTER - 1):
        state = F.learn(state, "12345", False, True)
        assert state["misses"] == i + 1 and F.hints(state).length == 5
    assert F.learn(state, "12345", False, False) == state  # a refusal of an answer read without it: no miss
    halved = F.learn(state, "12345", False, True)
    assert halved["misses"] == 0 and halved["answers"] == pytest.approx(state["answers"] / 2)
    assert F.hints(halved).length == 5  # one length needs few answers: it stays until more refusals
    for _ in range(4 * F.FORGET_AFTER):
        halved = F.learn(halved, "12345", False, True)
    assert not F.hints(halved)
    assert F.learn(F.learn(state, "1234", True, True), "1", False, True)["misses"] == 1  # an acceptance resets


def test_a_site_whose_local_answers_were_codes_is_not_read_for_sums_and_one_sum_undoes_it():
    state = F.empty()
    for i in range(5):  # six-digit codes the local route read as text, accepted
        state = F.learn(state, f"18{i}513", True, False, "text")
    assert F.hints(state).codes and F.merged(TextHints(), F.hints(state)).arithmetic is False
    assert F.merged(TextHints(arithmetic=True), F.hints(state)).arithmetic is True  # the page wins
    summed = F.learn(state, "21", True, False, "sum")  # a sum read and accepted: the site draws sums
    assert not F.hints(summed).codes and summed["lengths"] == state["lengths"]  # its value teaches no length
    people = F.empty()
    for i in range(9):  # a person's answers say nothing of sums (their digits may be a sum's value)
        people = F.learn(people, f"{i}{i}", True, False, None)
    assert not F.hints(people).codes and F.hints(people).length == 2
    assert F.describe(F.Learned(codes=True)) == "codes, not sums"


def test_what_is_stored_is_bounded_and_answers_outside_latin_letters_and_digits_teach_nothing():
    assert F.bounded("nonsense") == F.empty()
    assert F.bounded({"answers": 5, "lengths": {"4": 5}, "chars": {"é": 3}, "misses": 0}) == F.empty()
    assert F.bounded({"answers": float("nan"), "lengths": {}, "chars": {}, "misses": 0}) == F.empty()
    assert F.bounded({"answers": 5, "lengths": {"99": 5}, "chars": {}, "misses": 0}) == F.empty()
    assert F.bounded({"answers": 5, "lengths": {"4": 5}, "chars": {}, "misses": 99}) == F.empty()
    assert F.bounded({"answers": 5, "lengths": {"²": 5}, "chars": {}, "misses": 0}) == F.empty()
    assert F.bounded({"answers": 10 ** 400, "lengths": {}, "chars": {}, "misses": 0}) == F.empty()
    assert F.bounded({"answers": 1.0, "lengths": {}, "chars": {}, "misses": 0, "sums": "x"}) == F.empty()
    assert F.bounded({"answers": 1.0, "lengths": {}, "chars": {}, "misses": 0})["texts"] == 0.0  # an older row
    good = _site(string.digits, (4,), 6)
    assert F.bounded({**good, "extra": "x" * 10_000}) == good
    assert F.learn(good, "七八九十", True, False) == good
    assert F.learn(good, "1" * 40, True, False) == good
    assert F.learn(good, "", True, False) == good


def test_the_page_wins_over_what_was_learned():
    learned = F.Learned(string.digits, 6)
    assert F.merged(TextHints(), learned) == TextHints(charset=string.digits, length=6)
    page = TextHints(charset=string.ascii_uppercase, length=5, case_ignored=True)
    assert F.merged(page, learned) == page
    assert F.merged(TextHints(max_length=4), learned) == TextHints(charset=string.digits, max_length=4)
    assert F.merged(TextHints(max_length=8), learned).length == 6


def _reader(readings: dict):
    seen: list = []

    async def read(hints: TextHints) -> OcrReading:
        seen.append(hints)
        return readings[hints.length]
    return read, seen


def test_a_reading_unsure_under_the_learned_format_is_read_again_without_it():
    state = _site(string.digits, (4,), 15)
    sure, unsure = OcrReading("12345", 0.95, confidence_any_case=0.95), OcrReading("1234", 0.1, confidence_any_case=0.1)
    read, seen = _reader({4: unsure, None: sure})
    answer = asyncio.run(read_for_site(read, TextHints(), CaptchaPolicy(), None, state))
    assert seen == [TextHints(charset=string.digits, length=4), TextHints()]
    assert answer.reading is sure and not answer.applied and answer.learned.length == 4
    read, seen = _reader({4: OcrReading("1234", 0.95, confidence_any_case=0.95), None: sure})
    answer = asyncio.run(read_for_site(read, TextHints(), CaptchaPolicy(), None, state))
    assert len(seen) == 1 and answer.applied and answer.reading.text == "1234"
    read, seen = _reader({None: sure})  # nothing learned: one reading, under the page's hints
    assert not asyncio.run(read_for_site(read, TextHints(), CaptchaPolicy(), None, F.empty())).applied


def test_the_memory_learns_from_answers_whose_case_is_pinned_and_a_failing_store_costs_only_the_learning():
    stored: list = []

    async def load(host):
        raise ConnectionError("the database is gone")

    async def add(host, loglik, accepted, answer, applied, kind):
        stored.append((host, loglik, accepted, answer, applied))
        raise ConnectionError("the database is gone")

    memory = SiteMemory(load, add)
    for i in range(12):
        memory.expect("shop.test", 0.9, 0.9, f"challenge-{i}", answer=f"{i % 10}" * 4, case=False)
        assert asyncio.run(memory.settle(True)) is None  # no letter-case evidence from a pinned case
    assert F.hints(asyncio.run(memory.format("shop.test"))) == F.Learned(string.digits, 4, codes=True)
    assert stored[0] == ("shop.test", None, True, "0000", False)


@pytest.mark.parametrize("answers", [0, 7])
def test_a_forked_lane_reads_the_same_store(answers):
    rows: dict = {}

    async def load(host):
        return rows.get(host)

    async def add(host, loglik, accepted, answer, applied, kind):
        rows[host] = {"weights": None, "format": F.learn((rows.get(host) or {}).get("format"), answer, accepted, applied)}

    memory = SiteMemory(load, add)
    for i in range(answers):
        memory.expect("shop.test", 0.9, 0.9, answer=f"{i}{i}{i}", case=False)
        asyncio.run(memory.settle(True))
    lane = memory.fork()
    assert F.hints(asyncio.run(lane.format("shop.test"))).length == (3 if answers else None)
