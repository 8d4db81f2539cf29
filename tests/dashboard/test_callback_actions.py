"""The callback list's Disable / Enable and Delete… actions (POST forms with CSRF; delete behind a
confirmation page), for editors and owners only: a viewer sees no button and gets 403, a user of
another workspace gets 404, an anonymous caller is sent to sign in. And the one-time callback
secret has a Copy button, the text staying selectable without JavaScript."""

from __future__ import annotations

import pytest
from django.test import Client

from venus_rpa.dashboard.views.triggers import triggers_available

pytestmark = pytest.mark.skipif(not triggers_available(), reason="venus_rpa.triggers is not installed")

URL = "https://hooks.example.com/venus"


@pytest.fixture
def endpoint(personas):
    from venus_rpa.triggers.services import callback_endpoint_create

    return callback_endpoint_create(workspace=personas.workspace, user=personas.owner, url=URL)[0]


def _row(page: str, url: str) -> str:
    return page.split(f'<td class="mono small break">{url}</td>')[1].split("</tr>")[0]


def test_an_editor_disables_and_enables_an_endpoint_from_the_list(editor_client, endpoint):
    row = _row(editor_client.get("/webhooks/").content.decode(), URL)
    assert f'action="/webhooks/callbacks/{endpoint.pk}/toggle/"' in row and 'name="enabled" value="0"' in row
    assert "csrfmiddlewaretoken" in row and ">Disable</button>" in row

    response = editor_client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"}, follow=True)
    endpoint.refresh_from_db()
    assert not endpoint.enabled and f"Callback endpoint {URL} disabled." in response.content.decode()
    row = _row(response.content.decode(), URL)
    assert "disabled</span>" in row and 'name="enabled" value="1"' in row and ">Enable</button>" in row

    editor_client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "1"})
    endpoint.refresh_from_db()
    assert endpoint.enabled


def test_a_disabled_endpoint_gets_no_delivery_for_a_finished_run(editor_client, endpoint, automation):
    from tests.dashboard.conftest import make_run
    from venus_rpa.triggers.services.callbacks import callbacks_on_run_finished

    editor_client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"})
    assert callbacks_on_run_finished(run_id=make_run(automation).pk) == []


def test_delete_asks_first_and_deletes_only_when_confirmed(owner_client, endpoint):
    from venus_rpa.triggers.models import CallbackEndpoint

    row = _row(owner_client.get("/webhooks/").content.decode(), URL)
    assert f'href="/webhooks/callbacks/{endpoint.pk}/delete/"' in row and "Delete…" in row
    confirm = owner_client.get(f"/webhooks/callbacks/{endpoint.pk}/delete/")
    page = confirm.content.decode()
    assert confirm.status_code == 200 and f"Delete callback endpoint {URL}?" in page
    assert 'name="confirm" value="delete"' in page and "csrfmiddlewaretoken" in page
    assert CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()

    unconfirmed = owner_client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/")
    assert unconfirmed.status_code == 200 and CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()

    done = owner_client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/", {"confirm": "delete"}, follow=True)
    assert done.redirect_chain == [("/webhooks/", 302)] and f"Callback endpoint {URL} deleted." in done.content.decode()
    assert not CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_the_actions_need_a_csrf_token(personas, endpoint):
    from venus_rpa.triggers.models import CallbackEndpoint

    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.teammate)
    assert client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"}).status_code == 403
    assert client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/", {"confirm": "delete"}).status_code == 403
    endpoint.refresh_from_db()
    assert endpoint.enabled and CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_a_viewer_sees_no_action_and_cannot_use_one(viewer_client, endpoint):
    from venus_rpa.triggers.models import CallbackEndpoint

    page = viewer_client.get("/webhooks/").content.decode()
    assert URL in page and "/toggle/" not in page and "/delete/" not in page
    assert viewer_client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"}).status_code == 403
    assert viewer_client.get(f"/webhooks/callbacks/{endpoint.pk}/delete/").status_code == 403
    assert viewer_client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/", {"confirm": "delete"}).status_code == 403
    endpoint.refresh_from_db()
    assert endpoint.enabled and CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_another_workspaces_user_gets_404_and_never_sees_the_endpoint(outsider_client, endpoint):
    from venus_rpa.triggers.models import CallbackEndpoint

    assert URL not in outsider_client.get("/webhooks/").content.decode()
    assert outsider_client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"}).status_code == 404
    assert outsider_client.get(f"/webhooks/callbacks/{endpoint.pk}/delete/").status_code == 404
    assert outsider_client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/", {"confirm": "delete"}).status_code == 404
    endpoint.refresh_from_db()
    assert endpoint.enabled and CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_an_anonymous_caller_is_sent_to_sign_in_and_changes_nothing(client, endpoint):
    from venus_rpa.triggers.models import CallbackEndpoint

    for response in (client.post(f"/webhooks/callbacks/{endpoint.pk}/toggle/", {"enabled": "0"}),
                     client.post(f"/webhooks/callbacks/{endpoint.pk}/delete/", {"confirm": "delete"})):
        assert response.status_code == 302 and "login" in response["Location"]
    endpoint.refresh_from_db()
    assert endpoint.enabled and CallbackEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_the_toggle_and_delete_answer_only_post_and_get_as_meant(editor_client, endpoint):
    assert editor_client.get(f"/webhooks/callbacks/{endpoint.pk}/toggle/").status_code == 405
    assert editor_client.put(f"/webhooks/callbacks/{endpoint.pk}/delete/").status_code == 405


def test_the_one_time_callback_secret_has_a_copy_button_and_stays_selectable_text(editor_client):
    response = editor_client.post("/webhooks/callbacks/new/", {"url": URL, "automation": ""}, follow=True)
    page = response.content.decode()
    box = page.split('class="card secret-once"')[1].split("</div>\n</div>")[0]
    secret = box.split('<pre class="mono" id="new-secret">')[1].split("</pre>")[0]
    assert secret.startswith("cbsec_")  # plain text in a <pre>: selectable and copyable by hand without JS
    assert '<button type="button" class="btn btn-small" data-copy="new-secret">Copy secret</button>' in box
    assert 'id="copy-status"' in page  # where the script says "Copied" to screen readers
    assert 'data-copy="new-secret"' not in editor_client.get("/webhooks/").content.decode()  # once only
