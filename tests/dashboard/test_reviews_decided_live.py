"""The review queue's Decided list is a live region: the live feed re-reads it from the page's own
URL with `HX-Target: decided-live` on every `reviews.changed` (sent on each decision), and the view
answers with the list alone, searched, filtered and paged as the page is.

Before: the Decided list was rendered once with the page and never re-read, so a decision showed
there only after a reload (tests/e2e/test_review_decided_live_e2e.py drives it in Chromium)."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import make_run
from tests.notifications.conftest import file_review

LIVE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "decided-live"}


@pytest.fixture
def decided(personas, automation):
    """Two risky actions decided by the owner (one approved, one rejected) and one still pending."""
    from venus_rpa.reviews.services import review_decide

    run = make_run(automation, status="awaiting_review")
    approved, rejected, pending = (file_review(run, title=t) for t in ("Pay rent", "Pay the taxi", "Pay the gym"))
    review_decide(review=approved, user=personas.owner, decision="approve")
    review_decide(review=rejected, user=personas.owner, decision="reject", comment="duplicate")
    return approved, rejected, pending


def test_the_page_marks_the_decided_list_as_a_live_region_and_says_so(owner_client, decided):
    response = owner_client.get("/reviews/")
    html = response.content.decode()
    assert '<div id="decided-live" data-live-region data-live-on="reviews">' in html
    assert "updates live" in html and "refreshes every 2 s" not in html
    # The search form stays outside the region: a query being typed is not replaced by a re-read.
    region = html.split('id="decided-live"')[1]
    assert 'name="q"' not in region and "Pay rent" in region and "Pay the taxi" in region
    assert "HX-Target" in response["Vary"] and "HX-Request" in response["Vary"]


def test_the_live_re_read_answers_with_the_decided_list_alone(owner_client, decided):
    response = owner_client.get("/reviews/", **LIVE)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "review-queue" not in html and 'id="decided-live"' not in html
    assert "Pay rent" in html and "Pay the taxi" in html and "Pay the gym" not in html  # pending stays in the queue
    assert 'data-status="approved"' in html and 'data-status="rejected"' in html
    assert "HX-Target" in response["Vary"]  # a cached fragment is never shown as the page


def test_the_live_re_read_keeps_the_page_s_search_outcome_and_page(owner_client, decided, automation):
    html = owner_client.get("/reviews/?status=rejected", **LIVE).content.decode()
    assert "Pay the taxi" in html and "Pay rent" not in html
    html = owner_client.get("/reviews/?q=rent", **LIVE).content.decode()
    assert "Pay rent" in html and "Pay the taxi" not in html
    html = owner_client.get("/reviews/?q=nothing-like-this", **LIVE).content.decode()
    assert "Nothing decided matches these filters." in html

    from venus_rpa.reviews.services import review_expire

    run = make_run(automation, status="awaiting_review")
    for number in range(10):  # 12 decided in all: 10 a page
        review_expire(review_id=file_review(run, title=f"Old payment {number}").pk)
    html = owner_client.get("/reviews/?page=2", **LIVE).content.decode()
    assert "Page 2 of 2" in html and html.count("<tr>") == 2 + 1  # two rows and the header


def test_a_decision_makes_the_next_re_read_list_it(owner_client, personas, decided):
    from venus_rpa.reviews.services import review_decide

    *_, pending = decided
    assert "Pay the gym" not in owner_client.get("/reviews/", **LIVE).content.decode()
    review_decide(review=pending, user=personas.owner, decision="approve")
    assert "Pay the gym" in owner_client.get("/reviews/", **LIVE).content.decode()


def test_viewers_read_the_decided_list_and_outsiders_do_not(viewer_client, outsider_client, decided):
    assert "Pay rent" in viewer_client.get("/reviews/", **LIVE).content.decode()
    assert "Pay rent" not in outsider_client.get("/reviews/", **LIVE).content.decode()
