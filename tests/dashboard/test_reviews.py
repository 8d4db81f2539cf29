"""The review queue: pending items, CAPTCHA answers by text or clicks, risky-action guard."""

from __future__ import annotations

import json
from unittest import mock

import pytest

from tests.dashboard.conftest import make_run, signed_in
from venus_rpa.reviews.models import ReviewStatus


@pytest.fixture
def captcha_review(automation):
    from venus_rpa.reviews.services import review_create

    run = make_run(automation, status="awaiting_user")
    return review_create(run_id=run.pk, kind="captcha", title="Solve a CAPTCHA (image grid)",
                         detail={"captcha_kind": "image_grid", "instruction": "Click every bus", "width": 300,
                                 "height": 200},
                         screenshot=b"\xff\xd8captcha", ttl_s=600)


def test_pending_items_are_listed_with_screenshot_and_instruction(owner_client, captcha_review):
    html = owner_client.get("/reviews/").content.decode()
    assert f'id="review-{captcha_review.pk}"' in html
    assert "Click every bus" in html and "data-captcha-img" in html
    assert captcha_review.screenshot.url in html


def test_the_poll_answers_204_until_the_queue_changes(owner_client, captcha_review, automation):
    first = owner_client.get("/reviews/_queue/")
    sig = first.content.decode().split("sig=")[1].split('"')[0]
    assert owner_client.get(f"/reviews/_queue/?sig={sig}").status_code == 204
    from venus_rpa.reviews.services import review_create

    review_create(run_id=captcha_review.run_id, kind="call_user", title="Question", detail={}, screenshot=None,
                  ttl_s=60)
    changed = owner_client.get(f"/reviews/_queue/?sig={sig}")
    assert changed.status_code == 200 and "Question" in changed.content.decode()


def test_a_reviewer_answers_with_text(personas, reviewer, captcha_review, django_capture_on_commit_callbacks):
    with mock.patch("venus_rpa.reviews.services._signal") as signal, \
            django_capture_on_commit_callbacks(execute=True):  # the waiting worker is woken after commit
        response = signed_in(reviewer).post(f"/reviews/{captcha_review.pk}/respond/", {"text": " XK4P "})
    assert response.status_code == 200
    captcha_review.refresh_from_db()
    assert captcha_review.status == ReviewStatus.ANSWERED and captcha_review.response == {"text": "XK4P"}
    assert captcha_review.decided_by == reviewer
    signal.assert_called_once_with(captcha_review.pk)


def test_clicks_are_sent_in_screenshot_pixels(editor_client, captcha_review):
    with mock.patch("venus_rpa.reviews.services._signal"):
        response = editor_client.post(f"/reviews/{captcha_review.pk}/respond/",
                                      {"text": "", "clicks": json.dumps([[10, 20], [299.4, 199]])})
    assert response.status_code == 200
    captcha_review.refresh_from_db()
    assert captcha_review.response == {"clicks": [[10, 20], [299, 199]]}


def test_a_click_outside_the_screenshot_is_refused_inline(editor_client, captcha_review):
    response = editor_client.post(f"/reviews/{captcha_review.pk}/respond/", {"clicks": json.dumps([[400, 10]])})
    assert response.status_code == 400
    assert "outside the screenshot" in response.content.decode()
    captcha_review.refresh_from_db()
    assert captcha_review.status == ReviewStatus.PENDING


def test_viewers_and_outsiders_cannot_answer(viewer_client, outsider_client, captcha_review):
    assert viewer_client.post(f"/reviews/{captcha_review.pk}/respond/", {"text": "x"}).status_code == 403
    assert outsider_client.post(f"/reviews/{captcha_review.pk}/respond/", {"text": "x"}).status_code == 404


def test_risky_actions_render_disabled_until_the_safety_flow_exists(owner_client, automation):
    from venus_rpa.reviews import services
    from venus_rpa.reviews.services import review_create

    run = make_run(automation, status="awaiting_review")
    review = review_create(run_id=run.pk, kind="risky_action", title="Pay invoice INV-7",
                           detail={"action": {"kind": "click", "target": "Pay now"}, "risk": "high"},
                           screenshot=None, ttl_s=60)
    html = owner_client.get("/reviews/").content.decode()
    assert "Pay invoice INV-7" in html and "Pay now" in html
    if not hasattr(services, "review_decide"):
        assert "<fieldset class=\"plain\" disabled>" in html
        response = owner_client.post(f"/reviews/{review.pk}/decide/", {"decision": "approve"})
        assert response.status_code == 409
    with mock.patch.object(services, "review_decide", create=True) as decide:
        decide.return_value = review
        response = owner_client.post(f"/reviews/{review.pk}/decide/",
                                     {"decision": "edit", "edited_action": '{"kind": "click", "target": "Pay later"}',
                                      "comment": "smaller"})
    assert response.status_code == 200
    kwargs = decide.call_args.kwargs
    assert kwargs["decision"] == "edit" and kwargs["edited_action"] == {"kind": "click", "target": "Pay later"}
    assert kwargs["comment"] == "smaller"


def test_a_risky_action_says_why_in_words(owner_client, automation):
    from venus_rpa.reviews.services import review_create

    run = make_run(automation, status="awaiting_review")
    review_create(run_id=run.pk, kind="risky_action", title="Place order", screenshot=None, ttl_s=60,
                  detail={"description": "Click the button 'Place order'",
                          "verdict": {"category": "PAY", "level": "R3", "decision": "review",
                                      "reason": "Click 'Place order' spends or moves money."}})
    html = owner_client.get("/reviews/").content.decode()
    assert ">R3</span> <strong>payment</strong> · Click &#x27;Place order&#x27; spends or moves money." in html


def test_agent_questions_wait_in_the_queue_and_are_answered_there(owner_client, viewer_client, automation):
    from venus_rpa.runs.models import Run

    run = make_run(automation, status="awaiting_user")
    Run.objects.filter(pk=run.pk).update(question="Which cost centre should I use?")
    html = owner_client.get("/reviews/").content.decode()
    assert "Which cost centre should I use?" in html and f'action="/runs/{run.pk}/answer/"' in html
    assert "Answer to run" not in viewer_client.get("/reviews/").content.decode()
    response = owner_client.post(f"/runs/{run.pk}/answer/", {"answer": "CC-42"})
    assert response.status_code in (200, 302)
    assert Run.objects.get(pk=run.pk).answer == "CC-42"


def risky(automation, action: dict, editable: list[str], title: str = "Pay invoice INV-9"):
    from venus_rpa.reviews.services import review_create_risky

    run = make_run(automation, status="awaiting_review")
    verdict = {"category": "PAY", "level": "R3", "reason": "Clicking 'Pay' spends money."}
    return review_create_risky(run_id=run.pk, title=title, screenshot=None, ttl_s=600, action=action, verdict=verdict,
                               fingerprint=title, detail={"action": action, "editable": editable, "verdict": verdict})


def the_form_as_posted(html: str, review_id: int) -> dict[str, list[str]]:
    from tests.helpers.form_fields import form_data

    item = html.split(f'id="review-{review_id}"', 1)[1]
    form = item[item.index("<form hx-post"):item.index("</form>") + 7].replace("<form hx-post", '<form id="f" hx-post', 1)
    return form_data(form, "f")


def test_a_reviewer_edits_the_editable_fields_as_a_form_not_json(owner_client, automation):
    from venus_rpa.reviews.models import ReviewRequest

    review = risky(automation, {"kind": "fill", "target": "Amount", "value": "310.00"}, ["value"])
    html = owner_client.get("/reviews/").content.decode()
    assert f'name="edit-value" id="edit-value-{review.pk}" hx-preserve value="310.00"' in html
    assert "Value to type" in html and "Edit the whole action as JSON instead" in html
    data = the_form_as_posted(html, review.pk)  # what the browser sends: the JSON box as shown, unchanged
    assert json.loads(data["edited_action"][0]) == {"kind": "fill", "target": "Amount", "value": "310.00"}
    data.update({"edit-value": ["300.00"], "decision": ["edit"], "comment": ["agreed amount"]})
    response = owner_client.post(f"/reviews/{review.pk}/decide/", data)
    assert response.status_code == 200, response.content.decode()[:1500]
    review = ReviewRequest.objects.get(pk=review.pk)
    assert review.edited_action["value"] == "300.00" and review.edited_action["kind"] == "fill"
    assert review.comment == "agreed amount"


def test_a_model_click_is_edited_by_its_coordinates_and_bad_numbers_are_said(owner_client, automation):
    from venus_rpa.reviews.models import ReviewRequest

    review = risky(automation, {"type": "Click", "point": [412, 300]}, ["point"], title="Click Pay")
    html = owner_client.get("/reviews/").content.decode()
    assert 'name="edit-point-x"' in html and 'value="412"' in html and "Where to click: y" in html
    data = {**the_form_as_posted(html, review.pk), "decision": ["edit"], "edit-point-x": ["four"]}
    response = owner_client.post(f"/reviews/{review.pk}/decide/", data)
    assert response.status_code == 400 and "Where to click: x (pixels from the left) must be a number." in response.content.decode()
    assert ReviewRequest.objects.get(pk=review.pk).status == "pending"
    data["edit-point-x"] = ["420"]
    assert owner_client.post(f"/reviews/{review.pk}/decide/", data).status_code == 200
    assert ReviewRequest.objects.get(pk=review.pk).edited_action["point"] == [420, 300]


def test_a_form_edit_of_a_field_that_is_not_editable_is_refused(owner_client, automation):
    from venus_rpa.reviews.models import ReviewRequest

    review = risky(automation, {"kind": "click", "target": {"role": "button", "name": "Pay"}}, ["target"])
    html = owner_client.get("/reviews/").content.decode()
    assert 'name="edit-target-role"' in html and 'name="edit-target-name"' in html
    data = the_form_as_posted(html, review.pk)
    data["edited_action"] = ['{"kind": "click", "target": {"role": "button", "name": "Pay"}, "timeout_s": 99}']
    data["decision"] = ["edit"]
    response = owner_client.post(f"/reviews/{review.pk}/decide/", data)  # the JSON box was changed: it counts
    assert response.status_code == 400 and "Only these fields can be edited: target." in response.content.decode()
    data["edited_action"] = [json.dumps({"kind": "click", "target": {"name": "Pay", "role": "button"}}, indent=2,
                                        sort_keys=True).replace("\n", "\r\n")]
    data["edit-target-name"] = ["Pay later"]
    assert owner_client.post(f"/reviews/{review.pk}/decide/", data).status_code == 200
    assert ReviewRequest.objects.get(pk=review.pk).edited_action["target"] == {"role": "button", "name": "Pay later"}
