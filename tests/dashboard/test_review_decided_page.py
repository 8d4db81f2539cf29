"""A decided review says what was decided: the outcome in the Decided filter's words, who, when,
the comment and, for "Approved with changes", each changed value old → new, masked as the
pending review masked it. Only a pending review says when it expires, in words ("expires in …").

Before: a decided review showed the bare word "Edited" (the badge "edited", the filter "Approved
with changes"), nothing of who, when, why or what changed, and still "expires 56 minutes"."""

from __future__ import annotations

import re

import pytest

from tests.dashboard.conftest import make_run, signed_in
from tests.dashboard.test_reviews import risky
from venus_rpa.reviews.services import review_decide, review_expire

CARD, NEW_CARD = "4000 0566 5566 5556", "4242 4242 4242 4242"


def item_of(html: str, review_id: int) -> str:
    return html.split(f'id="review-{review_id}"', 1)[1].split("</article>", 1)[0]


@pytest.fixture
def edited(automation, reviewer):
    review = risky(automation, {"kind": "fill", "target": "Amount", "value": "{{amount}}"}, ["value", "target"],
                   title="Type '{{amount}}' into the field 'Amount'")
    return review_decide(review=review, user=reviewer, decision="edit", comment="the agreed total, not the quote",
                         edited_action={"value": "{{amount}} EUR", "target": "Total"})


def test_an_edited_review_says_approved_with_changes_who_when_why_and_what_changed(owner_client, edited):
    html = item_of(owner_client.get(f"/reviews/{edited.pk}/").content.decode(), edited.pk)
    assert '<span class="badge badge-ok" data-status="edited">Approved with changes</span>' in html
    assert "<strong>Approved with changes</strong> by rita" in html
    assert f'<time datetime="{edited.decided_at.isoformat()}' in html
    assert "the agreed total, not the quote" in html
    assert ('<th scope="row">Value to type</th><td class="mono"><del>&#x27;{{amount}}&#x27;</del> '
            '<span aria-label="changed to">→</span> <ins>&#x27;{{amount}} EUR&#x27;</ins>') in html
    assert '<th scope="row">Target (visible text)</th><td class="mono"><del>&#x27;Amount&#x27;</del>' in html
    assert html.count("<tr>") == 2  # the stored action's defaults ("name", "timeout_s") are not changes
    assert "Action run instead (JSON)" in html
    # decided: no expiry, and nothing to decide any more
    assert "expires" not in html and 'name="decision"' not in html and "Approve all" not in html


def test_the_decision_is_shown_to_a_viewer_and_hidden_from_another_workspace(viewer_client, outsider_client, edited):
    html = viewer_client.get(f"/reviews/{edited.pk}/").content.decode()
    assert "Approved with changes</strong> by rita" in html and "the agreed total" in html
    assert outsider_client.get(f"/reviews/{edited.pk}/").status_code == 404


def test_a_pending_review_says_when_it_expires_in_words(owner_client, automation):
    review = risky(automation, {"kind": "click", "target": "Pay"}, [])
    html = item_of(owner_client.get(f"/reviews/{review.pk}/").content.decode(), review.pk)
    assert "· expires in 9\xa0minutes" in html or "· expires in 10\xa0minutes" in html
    assert "data-decided" not in html and 'name="decision"' in html


def test_a_card_number_changed_by_an_edit_is_shown_masked_never_whole(owner_client, automation, reviewer):
    review = risky(automation, {"kind": "fill", "target": "Card number", "value": CARD}, ["value"],
                   title=f"Type '{CARD}' into the field 'Card number'")
    review = review_decide(review=review, user=reviewer, decision="edit", edited_action={"value": NEW_CARD})
    html = owner_client.get(f"/reviews/{review.pk}/").content.decode()
    assert "<del>&#x27;•••• 5556&#x27;</del>" in html and "<ins>&#x27;•••• 4242&#x27;</ins>" in html
    for whole in (CARD, NEW_CARD, CARD.replace(" ", ""), NEW_CARD.replace(" ", "")):
        assert whole not in html  # not in the change, the title, nor the JSON of the action run instead


def test_a_security_code_changed_by_an_edit_is_masked_whole(owner_client, automation, reviewer):
    review = risky(automation, {"kind": "fill", "target": "CVC", "value": "123"}, ["value"],
                   title="Type '123' into the field 'CVC'")
    review = review_decide(review=review, user=reviewer, decision="edit", edited_action={"value": "987"})
    html = item_of(owner_client.get(f"/reviews/{review.pk}/").content.decode(), review.pk)
    assert "<del>&#x27;•••&#x27;</del>" in html and "<ins>&#x27;•••&#x27;</ins>" in html
    shown = re.sub(r"<time [^>]*>.*?</time>", "", html)  # a timestamp's digits are not a code
    assert "987" not in shown and "123" not in shown


def test_rejected_and_expired_reviews_say_so_in_the_filter_s_words(owner_client, automation, reviewer):
    rejected = review_decide(review=risky(automation, {"kind": "click", "target": "Pay"}, []), user=reviewer,
                             decision="reject", comment="duplicate invoice")
    html = item_of(owner_client.get(f"/reviews/{rejected.pk}/").content.decode(), rejected.pk)
    assert "<strong>Rejected</strong> by rita" in html and "duplicate invoice" in html and "Changed before" not in html
    expired = risky(automation, {"kind": "click", "target": "Pay"}, [])
    review_expire(review_id=expired.pk)
    html = item_of(owner_client.get(f"/reviews/{expired.pk}/").content.decode(), expired.pk)
    assert "<strong>Expired (nobody decided)</strong> ·" in html and " by " not in html.split("data-decided")[1][:200]


def test_the_decided_list_says_the_outcome_in_the_filter_s_words_and_links_each_review(owner_client, edited):
    html = owner_client.get("/reviews/").content.decode().split('id="decided-live"')[1]
    assert '<span class="badge badge-ok" data-status="edited">Approved with changes</span>' in html
    assert f'<a href="/reviews/{edited.pk}/">' in html
    assert '<option value="edited" >Approved with changes</option>' in owner_client.get("/reviews/").content.decode()


def test_a_decision_that_comes_too_late_says_what_was_decided_in_words(personas, edited):
    response = signed_in(personas.owner).post(f"/reviews/{edited.pk}/decide/", {"decision": "approve"})
    assert response.status_code == 400
    assert "The review is not pending any more: approved with changes by rita." in response.content.decode()


def test_a_decided_captcha_shows_its_answer_and_no_form(owner_client, automation, reviewer):
    from venus_rpa.reviews.services import review_create, review_respond

    run = make_run(automation, status="awaiting_user")
    review = review_create(run_id=run.pk, kind="captcha", title="Solve a CAPTCHA", screenshot=None, ttl_s=600,
                           detail={"captcha_kind": "text", "width": 100, "height": 40})
    from unittest import mock

    with mock.patch("venus_rpa.reviews.services._signal"):
        review_respond(review=review, user=reviewer, response={"text": "XK4P"})
    html = item_of(owner_client.get(f"/reviews/{review.pk}/").content.decode(), review.pk)
    assert "<strong>Answered</strong> by rita" in html and "XK4P" in html and "Type the answer" not in html
