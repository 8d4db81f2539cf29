"""The OCR gate: the answer's confidence as the probability that it is right, from what both
readers say of it (workers/captcha/solvers/ocr_vote.py, docs/captcha-ocr.md "The gate")."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import random

import numpy as np
import pytest

from practice.captcha.generators import ocr as practice_ocr
from workers.captcha import local
from workers.captcha.solvers import ocr_vote, read_text, recogniser
from workers.captcha.solvers.ocr_vote import CASE_SURE, Candidate, Gate, case_margin, gate_features

CLASSES = ["", *recogniser.CHARSET]


def reader(steps: list[dict[str, float]]) -> np.ndarray:
    """T×C log-probabilities: each step's named classes get their probability, the rest share what is left."""
    out = np.full((len(steps), len(CLASSES)), 1e-6)
    for t, step in enumerate(steps):
        rest = max(1e-6, 1 - sum(step.values())) / (len(CLASSES) - len(step))
        out[t, :] = rest
        for char, p in step.items():
            out[t, CLASSES.index(char)] = p
    return np.log(out / out.sum(axis=1, keepdims=True))


@pytest.fixture
def committed_gate():
    ocr_vote.use_committed_gate()
    yield ocr_vote.gate()
    ocr_vote.use_committed_gate()


def test_the_committed_gate_is_fitted_for_the_committed_weights_and_sets_the_thresholds(committed_gate):
    spec = json.loads(ocr_vote.GATE_PATH.read_text())
    assert spec["model_sha256"] == hashlib.sha256(recogniser.MODEL_PATH.read_bytes()).hexdigest()
    assert spec["features"] == list(ocr_vote.GATE_FEATURES)
    assert committed_gate is not None and committed_gate.coef == tuple(spec["gates"]["exact"]["coef"])
    assert ocr_vote.gate("any_case").coef == tuple(spec["gates"]["any_case"]["coef"])
    # THRESHOLDS["ocr"] (the benchmark's, the docs') is the gate's for the default tries, exact answers.
    assert local.THRESHOLDS["ocr"] == spec["thresholds"]["exact"]["3"] == local.ocr_threshold(3)
    assert set(spec["thresholds"]["exact"]) == {str(n) for n in range(1, 11)}  # CaptchaPolicy.max_attempts' range
    # Our recogniser's belief in the answer raises both confidences, ddddocr's the any-case one
    # (ddddocr is weak on case: since the ninth recipe the exact gate gives its belief about no
    # weight, -0.09 per nat, docs/captcha-ocr.md); doubt about the case lowers the exact
    # confidence more than the any-case one.
    weights = dict(zip(ocr_vote.GATE_FEATURES, committed_gate.coef, strict=True))
    any_case = dict(zip(ocr_vote.GATE_FEATURES, ocr_vote.gate("any_case").coef, strict=True))
    assert weights["log_p_ours"] > 0 and any_case["log_p_ours"] > 0 and any_case["log_p_dddd"] > 0
    assert abs(weights["log_p_dddd"]) < weights["log_p_ours"] / 4
    assert weights["case_margin"] > 0 and any_case["case_margin"] < weights["case_margin"]


def test_fewer_tries_need_surer_answers(committed_gate):
    thresholds = [local.ocr_threshold(n) for n in range(1, 11)]
    assert thresholds == sorted(thresholds, reverse=True)  # never laxer with fewer tries
    assert local.ocr_threshold(1) > local.ocr_threshold(3) > local.ocr_threshold(10)
    table = ocr_vote.CommittedGate({}, {"exact": {1: None, 2: 0.7, 3: 0.4}})
    assert table.threshold(1) is None and table.threshold(3) == 0.4
    assert table.threshold(9) == 0.4 and table.threshold(0) is None  # outside the table: its nearest end
    assert local.NEVER > 1.0  # what None becomes: no confidence reaches it


def test_with_one_try_the_local_route_abstains_and_says_why_in_a_storable_record(committed_gate):
    from workers.automation_settings import CaptchaPolicy
    from workers.captcha.gate import Abstained
    from workers.captcha.hints import TextHints

    confidence, threshold, _ = local.ocr_gate(_reading("xK7p", 0.99, 0.99), TextHints(), CaptchaPolicy(max_attempts=1))
    assert threshold == local.NEVER
    with pytest.raises(Abstained) as caught:
        local.check_confidence("ocr", confidence, {"answer": "xK7p"}, threshold)
    assert "no confidence is enough with this many tries" in str(caught.value)
    # The step record (a JSON column) takes the threshold: no Infinity.
    json.loads(json.dumps({"threshold": caught.value.threshold, "confidence": confidence}, allow_nan=False))


def test_features_say_how_much_each_reader_believes_the_answer_and_how_far_it_is_from_its_own():
    agreed = [Candidate("recogniser", "AB12", 0.9, 0.8), Candidate("ddddocr", "ab12", 0.9, 0.8)]
    assert gate_features("AB12", agreed, 3.0) == pytest.approx([math.log(0.9), math.log(0.8), 0, 0, 3.0, 4])
    # ddddocr's text won: our recogniser found its own reading likelier, ddddocr did not.
    disputed = [Candidate("recogniser", "A812", 0.6, 1e-4), Candidate("ddddocr", "ab12", 0.05, 0.9)]
    features = gate_features("AB12", disputed)
    assert features[:4] == pytest.approx([math.log(0.05), math.log(0.9), math.log(0.05 / 0.6), 0])
    assert features[4] == CASE_SURE
    # Probabilities too small to say more than "not this text" are floored.
    assert gate_features("AB12", [Candidate("recogniser", "AB12", 0.0, 1e-40)])[:2] == [ocr_vote.LOG_FLOOR] * 2


def test_case_margin_is_low_when_the_recogniser_cannot_tell_a_letters_case():
    sure = reader([{"A": 0.95}, {"": 0.9}, {"7": 0.95}, {"": 0.9}, {"G": 0.95}])
    torn = reader([{"A": 0.95}, {"": 0.9}, {"7": 0.95}, {"": 0.9}, {"G": 0.5, "g": 0.45}])
    assert case_margin("A7G", sure, CLASSES) > 5
    assert 0 <= case_margin("A7G", torn, CLASSES) < 0.5
    assert case_margin("77", sure, CLASSES) == CASE_SURE  # no letters: no case to get wrong
    # A letter whose cases look alike (o/O) counts only when there is no other letter.
    same_shape = reader([{"A": 0.95}, {"": 0.9}, {"O": 0.5, "o": 0.45}])
    assert case_margin("AO", same_shape, CLASSES) > case_margin("O", reader([{"O": 0.5, "o": 0.45}]), CLASSES)


def test_the_gate_is_a_logistic_function_of_the_features():
    gate = Gate(-1.0, (0.5, 0.25, 0.0, 0.0, 0.1, 0.0))
    features = [-2.0, -4.0, 0.0, 0.0, 10.0, 5.0]
    assert gate.probability(features) == pytest.approx(1 / (1 + math.exp(-(-1 - 1 - 1 + 1))))
    assert gate.probability([0.0] * 4 + [1e6, 0.0]) == pytest.approx(1.0)  # no overflow


def test_a_gate_fitted_for_other_weights_is_not_used(tmp_path, monkeypatch, caplog):
    spec = json.loads(ocr_vote.GATE_PATH.read_text())
    spec["model_sha256"] = "0" * 64
    other = tmp_path / "ocr_gate.json"
    other.write_text(json.dumps(spec))
    monkeypatch.setattr(ocr_vote, "GATE_PATH", other)
    ocr_vote.committed.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            assert ocr_vote.gate() is None and ocr_vote.gate("any_case") is None
        assert "fitted for other weights" in caplog.text
        # Without a gate, the confidence is the vote's geometric mean, and the threshold the default.
        assert ocr_vote.confidence([0.0] * 6, vote=0.37) == ocr_vote.confidence([0.0] * 6, 0.37, "any_case") == 0.37
        assert local.ocr_threshold(1) == local.ocr_threshold(5, any_case=True) == local.THRESHOLDS["ocr"]
    finally:
        monkeypatch.undo()
        ocr_vote.committed.cache_clear()


def test_a_reading_carries_the_features_the_gate_read_and_its_probability(committed_gate):
    made = practice_ocr.generate(random.Random(91))
    reading = read_text(made.images["image"])
    assert len(reading.features) == len(ocr_vote.GATE_FEATURES)
    assert reading.confidence == pytest.approx(committed_gate.probability(reading.features))
    assert reading.any_case == pytest.approx(ocr_vote.gate("any_case").probability(reading.features))
    assert reading.record()["confidence_any_case"] == round(reading.any_case, 3)
    ocr_vote.use_gate(None)
    try:
        plain = read_text(made.images["image"])
        p_ours, p_dddd = next((c.p_ours, c.p_dddd) for c in plain.candidates if c.text.lower() == plain.text.lower())
        weight = ocr_vote.DDDD_WEIGHT
        assert plain.confidence == pytest.approx(min(1.0, (p_ours * p_dddd ** weight) ** (1 / (1 + weight))))
        assert plain.any_case == plain.confidence
    finally:
        ocr_vote.use_committed_gate()


def _reading(text: str, exact: float, any_case: float) -> ocr_vote.OcrReading:
    return ocr_vote.OcrReading(text, exact, confidence_any_case=any_case)


@pytest.mark.parametrize(("setting", "page_says", "any_case"), [
    ("unknown", None, False), ("unknown", True, True), ("unknown", False, False),
    ("ignored", None, True), ("ignored", False, True),  # the automation's author knows the site
    ("matters", True, False),
])
def test_the_letter_case_setting_or_the_page_picks_the_confidence_and_threshold(committed_gate, setting, page_says,
                                                                                 any_case):
    from workers.automation_settings import CaptchaPolicy
    from workers.captcha.hints import TextHints

    policy = CaptchaPolicy(letter_case=setting, max_attempts=2)
    confidence, threshold, case = local.ocr_gate(_reading("xK7p", 0.2, 0.9), TextHints(case_ignored=page_says), policy)
    assert case == ("ignored" if any_case else "matters")
    assert confidence == (0.9 if any_case else 0.2)
    assert threshold == local.ocr_threshold(2, any_case=any_case)
    # Nothing read is never an answer, whatever the case rule.
    assert local.ocr_gate(_reading("", 0.9, 0.9), TextHints(case_ignored=True), policy)[0] == 0.0


def test_a_bad_letter_case_setting_is_refused_with_the_choices():
    from pydantic import ValidationError

    from workers.automation_settings import CaptchaPolicy

    with pytest.raises(ValidationError, match="'unknown', 'ignored' or 'matters'"):
        CaptchaPolicy(letter_case="sometimes")
