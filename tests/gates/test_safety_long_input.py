"""The safety gate judges long values and long page text in time proportional to their length.

A hostile page (its labels, text, hidden text) and a careless or hostile editor (a parameter value
typed into a field) decide how long the strings are. The gate runs on the worker's thread: a
judgement that costs the square of the length held that thread for minutes on a 1 MB parameter
(20,000 characters: 11 s in the amount detector alone), starving every run on the worker, its
heartbeat and its shutdown. The bounds below are generous for a linear judgement (well under a
second here) and far below a quadratic one (minutes at these lengths)."""

from __future__ import annotations

import random
import time

import pytest

from workers.gates.safety import values
from workers.gates.safety.context import ActionContext, TargetInfo
from workers.gates.safety.gate import classify
from workers.gates.safety.labels import LabelHit, _not_inside_the_other_kind

LONG = 100_000
BOUND_S = 10.0
# Runs that each cost the square of their length in some detector before (letters, digits and
# dashes: the e-mail pattern; digits and commas: amounts; "eyJ-": the JWT pattern; 支付: a trigger
# at every position, compared pair by pair) and a few other shapes.
PIECES = ["S", "1", "1,", "1-", "a.", "eyJ-", "eyJaaaaaaaaaaaa.", ".eyJ", "xoxb-", "支付", "pay now ", "a@", "%2", "Aa1.-_ "]


def long_text(piece: str) -> str:
    return piece * (LONG // len(piece))


@pytest.mark.parametrize("piece", PIECES)
def test_value_detectors_read_a_long_value_in_linear_time(piece):
    text = long_text(piece)
    started = time.perf_counter()
    values.personal_data(text), values.amounts(text), values.secrets_in(text), values.card_numbers(text)
    assert time.perf_counter() - started < BOUND_S


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("where", ["typed", "label", "page"])
def test_the_gate_judges_a_long_value_label_or_page_in_linear_time(piece, where):
    text = long_text(piece)
    fields = {"typed": dict(action_type="type", typed_text=text, target=TargetInfo(role="textbox", name="Subject")),
              "label": dict(action_type="click", target=TargetInfo(role="button", name=text, text=text)),
              "page": dict(action_type="click", target=TargetInfo(role="button", name="Save"), page_text=text,
                           nearby_text=[text], dialog_text=text)}[where]
    context = ActionContext(url="http://127.0.0.1/x", allowed_domains=["127.0.0.1"], **fields)
    started = time.perf_counter()
    verdict = classify(context)
    assert time.perf_counter() - started < BOUND_S
    assert not any(e.signal == "fail_closed.error" for e in verdict.evidence)  # judged, not failed closed


def test_the_detectors_still_find_what_they_find_in_short_text():
    assert values.personal_data("write to jane.doe+rpa@example.co.uk today") == ["email"]
    assert values.amounts("Pay $1,250.50 now") == [1250.5] and values.amounts("共 300 元") == [300.0]
    assert [kind for kind, _ in values.secrets_in("key sk_live_" + "a" * 30)] == ["api_key"]
    token = "eyJ" + "a" * 20 + ".eyJ" + "b" * 40 + "." + "c" * 30
    assert [kind for kind, _ in values.secrets_in(f"Bearer {token}")] == ["jwt"]
    # A header that carries a public key (a DPoP proof) or a certificate chain (Apple's JWS) is
    # kilobytes long, and still a token: the reviewers' mask and the SHARE finding rely on it.
    dpop = "eyJ" + "h" * 560 + ".eyJ" + "p" * 200 + "." + "s" * 342
    chain = "eyJ" + "x" * 6000 + ".eyJ" + "p" * 9000 + "." + "s" * 2000
    for token in (dpop, chain):
        assert [kind for kind, _ in values.secrets_in(f"token={token}&next=1")] == ["jwt"]
    assert values.secrets_in("eyJ" + "a" * 9 + ".eyJ" + "b" * 40 + "." + "c" * 30) == []  # too short a header


def test_hits_held_by_a_longer_hit_of_the_other_kind_are_the_pairwise_answer():
    """The n log n filter keeps exactly the hits that no longer hit of the other kind holds."""
    def inside(inner: LabelHit, outer: LabelHit) -> bool:
        return outer.start <= inner.start and inner.end <= outer.end and outer.length > inner.length

    rng = random.Random(5)
    for _ in range(400):
        hits = []
        for _ in range(rng.randint(0, 12)):
            start = rng.randint(0, 20)
            hits.append(LabelHit("PAY", 3, "x", start, start + rng.randint(0, 8), rng.random() < 0.5))
        expected = tuple(h for h in hits if not any(o.trigger != h.trigger and inside(h, o) for o in hits))
        assert _not_inside_the_other_kind(hits) == expected
