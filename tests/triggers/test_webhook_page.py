"""A webhook's dashboard page: signing explained with a curl example, rotate (shown once, the old
secret stops working), disable/enable, delete (runs kept), a test event through the receiving
path (no run unless asked) — and what a viewer, an editor of another workspace and an anonymous
caller can do (nothing)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tests.dashboard.conftest import signed_in
from tests.triggers.test_webhooks import body_of, post_hook
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.triggers.models import WebhookIdempotencyKey, WebhookTrigger

MAPPING = {"order_id": "data.order.id", "priority": "data.order.flags.0"}


@pytest.fixture
def trigger_and_secret(personas, automation):
    from venus_rpa.triggers.services import webhook_trigger_create

    return webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                  name="Shop orders", param_mapping=MAPPING)


@pytest.fixture
def trigger(trigger_and_secret) -> WebhookTrigger:
    return trigger_and_secret[0]


def page(client: Client, trigger: WebhookTrigger, action: str = "", **data):
    url = f"/webhooks/{trigger.pk}/{action + '/' if action else ''}"
    return client.post(url, data) if action else client.get(url)


def hook_of(trigger: WebhookTrigger, secret: str) -> dict:
    return {"public_id": trigger.public_id, "secret": secret}


def test_the_page_explains_signing_with_a_curl_example_for_its_real_url(personas, trigger):
    html = page(signed_in(personas.teammate), trigger).content.decode()
    url = f"http://testserver/hooks/{trigger.public_id}/"
    assert "X-Venus-Timestamp" in html and "X-Venus-Signature" in html and "sha256=" in html
    assert 'HMAC_SHA256(secret, timestamp + "." + body)' in html
    curl = html.split('id="curl-example"')[1].split("</pre>")[0]
    assert f"URL=&#x27;{url}&#x27;" in curl and "openssl dgst -sha256 -hmac" in curl
    # the sample body follows the mapping: order_id at data.order.id
    assert "{&quot;data&quot;: {&quot;order&quot;: {&quot;id&quot;: &quot;example&quot;" in curl
    assert 'data-copy="curl-example"' in html and 'data-copy="hook-url"' in html and 'id="copy-status"' in html
    assert "Rotate secret" in html and "Send test event" in html and "Delete webhook" in html


def test_rotation_shows_the_new_secret_once_and_the_old_one_stops_working(personas, trigger_and_secret):
    trigger, old = trigger_and_secret
    client = signed_in(personas.teammate)
    response = client.post(f"/webhooks/{trigger.pk}/rotate/", follow=True)  # Post/Redirect/Get
    assert response.status_code == 200 and response.redirect_chain == [(f"/webhooks/{trigger.pk}/", 302)]
    html = response.content.decode()
    new = re.search(r'id="new-secret">([^<]+)</pre>', html).group(1)
    assert new.startswith("whsec_") and new != old
    assert f"SECRET=&#x27;{new}&#x27;" in html  # the curl example is ready to paste
    assert new not in page(client, trigger).content.decode()  # once
    body = body_of({"data": {"order": {"id": "1042"}}})
    assert post_hook(hook_of(trigger, old), body).status_code == 401
    trigger.refresh_from_db()
    assert trigger.enabled
    assert not Run.objects.exists()


def test_the_test_event_checks_everything_and_starts_no_run_unless_asked(personas, trigger, automation):
    client = signed_in(personas.teammate)
    body = json.dumps({"data": {"order": {"id": "1042", "flags": ["high"]}}})
    html = page(client, trigger, "test", body=body).content.decode()
    answer = html.split('id="test-answer"')[1].split("</div>")[0]
    assert "Answer: 200" in answer and "no run was started" in answer
    assert "&quot;order_id&quot;: &quot;1042&quot;" in answer and "&quot;priority&quot;: &quot;high&quot;" in answer
    assert not Run.objects.exists()

    bad = page(client, trigger, "test", body='{"data": {"order": {"id": "A-7"}}}').content.decode()
    answer = bad.split('id="test-answer"')[1].split("</div>")[0]
    assert "Answer: 400" in answer and "nothing was started" in answer
    assert "mapped from body path" in answer and "^[0-9]+$" not in answer  # the pattern is never shown
    broken = page(client, trigger, "test", body='{"data": ').content.decode()
    answer = broken.split('id="test-answer"')[1].split("</div>")[0]
    assert "line 1, column 10: a value is expected here" in answer and "char" not in answer

    started = page(client, trigger, "test", body=body, start_run="on").content.decode()
    run = Run.objects.get()
    assert "Answer: 202" in started and f'href="/runs/{run.pk}/"' in started
    assert run.trigger == Trigger.WEBHOOK and run.params["order_id"] == "1042"


def test_a_disabled_webhook_answers_409_to_requests_and_test_events(personas, trigger_and_secret):
    trigger, secret = trigger_and_secret
    client = signed_in(personas.teammate)
    assert page(client, trigger, "toggle", enabled="0").status_code == 302
    trigger.refresh_from_db()
    assert not trigger.enabled
    assert "disabled" in page(client, trigger).content.decode()
    assert post_hook(hook_of(trigger, secret), body_of({"data": {"order": {"id": "1"}}})).status_code == 409
    html = page(client, trigger, "test", body='{"data": {"order": {"id": "2"}}}').content.decode()
    assert "Answer: 409" in html and "trigger_disabled" in html
    page(client, trigger, "toggle", enabled="1")
    trigger.refresh_from_db()
    assert trigger.enabled and not Run.objects.exists()


def test_delete_needs_the_confirmation_and_keeps_the_runs_it_started(personas, trigger_and_secret, automation):
    trigger, secret = trigger_and_secret
    client = signed_in(personas.teammate)
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=automation.current_version,
                             trigger=Trigger.WEBHOOK, params={"order_id": "1"})
    WebhookIdempotencyKey.objects.create(trigger=trigger, key="order-1", run=run)
    assert page(client, trigger, "delete").status_code == 302  # no confirmation: nothing deleted
    assert WebhookTrigger.objects.filter(pk=trigger.pk).exists()
    response = page(client, trigger, "delete", confirm="delete")
    assert response.status_code == 302 and response["Location"] == "/webhooks/"
    assert not WebhookTrigger.objects.filter(pk=trigger.pk).exists()
    assert Run.objects.filter(pk=run.pk).exists()
    assert post_hook(hook_of(trigger, secret), body_of({})).status_code == 404


def test_a_viewer_sees_the_page_but_no_secret_and_can_change_nothing(personas, trigger_and_secret):
    trigger, secret = trigger_and_secret
    viewer = signed_in(personas.viewer)
    html = page(viewer, trigger).content.decode()
    assert "X-Venus-Signature" in html and secret not in html
    for words in ("Rotate secret", "Send test event", "Delete webhook", ">Disable<"):
        assert words not in html, words
    ciphertext = trigger.secret_ciphertext
    for action, data in (("rotate", {}), ("toggle", {"enabled": "0"}), ("delete", {"confirm": "delete"}),
                         ("test", {"body": "{}", "start_run": "on"})):
        response = page(viewer, trigger, action, **data)
        assert response.status_code == 403, action
        assert "whsec_" not in response.content.decode()
    trigger.refresh_from_db()
    assert trigger.enabled and trigger.secret_ciphertext == ciphertext and not Run.objects.exists()


def test_an_editor_of_another_workspace_gets_404_and_anonymous_callers_the_sign_in_page(personas, trigger):
    from tests.factories import MembershipFactory, UserFactory

    foreign_editor = UserFactory(username="eve")
    MembershipFactory(workspace=personas.other_workspace, user=foreign_editor, role="editor")
    ciphertext = trigger.secret_ciphertext
    for client, expected in ((signed_in(foreign_editor), 404), (signed_in(personas.outsider), 404), (Client(), 302)):
        assert page(client, trigger).status_code == expected
        for action, data in (("rotate", {}), ("toggle", {"enabled": "0"}), ("delete", {"confirm": "delete"}),
                             ("test", {"body": "{}", "start_run": "on"})):
            response = page(client, trigger, action, **data)
            assert response.status_code == expected, (action, expected)
            if expected == 302:
                assert response["Location"].startswith("/login/")
    trigger.refresh_from_db()
    assert trigger.enabled and trigger.secret_ciphertext == ciphertext and not Run.objects.exists()


def test_creating_a_webhook_opens_its_page_with_the_secret_and_field_errors_in_words(personas, automation):
    client = signed_in(personas.teammate)
    response = client.post("/webhooks/new/", {"name": "ERP", "automation": automation.slug,
                                              "param_mapping": '{"order_id": "data.order.id"}'}, follow=True)
    html = response.content.decode()
    assert response.status_code == 200 and 'id="new-secret">whsec_' in html and "curl example" in html
    bad = client.post("/webhooks/new/", {"name": "ERP", "automation": automation.slug,
                                         "param_mapping": '{"nope": "a.b", "order_id": "a..b"}'})
    html = bad.content.decode()
    mapping_errors = html.split('name="param_mapping"')[1].split("</label>")[0]
    assert bad.status_code == 400
    assert "Nope: Not a parameter of the automation" in mapping_errors
    assert "Order id: Must be a dot path" in mapping_errors
    assert "param_mapping." not in html
    broken = client.post("/webhooks/new/", {"automation": automation.slug, "param_mapping": "{'a': 1}"})
    assert "Line 1, column 2: a key in double quotes is expected here" in broken.content.decode()
