"""Risky flows: sending a message and sharing a document record exactly once; saving a draft,
"Remove from view", opening the share form and "Download" record nothing.
Flows and helpers: tests/practice/risky_site.py.
"""

from __future__ import annotations

import httpx

from tests.practice import risky_site
from tests.practice.risky_site import alerts, api, form_fields, nothing_recorded, post, sign_in, status

# fixtures: the practice site (one per module, reset before every test) and a client of it
site, client, reset_site = risky_site.site, risky_site.client, risky_site.reset_site


# --- messages --------------------------------------------------------------------------


def test_compose_page_labels(client: httpx.Client) -> None:
    sign_in(client)
    html = client.get("/messages/new").text
    assert "<h1>New message</h1>" in html
    for name, label in [("to", "To"), ("subject", "Subject"), ("body", "Body")]:
        assert f'<label for="{name}">{label}</label>' in html
    assert '<button type="submit" name="action" value="send">Send</button>' in html
    assert ('<button type="submit" name="action" value="draft" class="secondary" formnovalidate>Save draft</button>'
            in html)


def test_save_draft_is_not_sending(client: httpx.Client, site: str) -> None:
    sign_in(client)
    response = post(client, "/messages/new", "/messages/new", to="", subject="Half-written", body="", action="draft")
    assert response.headers["location"] == "/messages?box=drafts#DRF-0001"
    drafts = client.get("/messages?box=drafts").text
    assert status(drafts) == ["Draft saved."] and "Half-written" in drafts
    assert '<a href="/messages/new?draft=DRF-0001">Edit</a>' in drafts
    assert "Drafts (1)" in drafts and "Sent (0)" in drafts
    messages = api(site, "messages")
    assert messages["sent"] == [] and [d["id"] for d in messages["drafts"]] == ["DRF-0001"]
    # Saving the draft again overwrites it.
    post(client, "/messages/new?draft=DRF-0001", "/messages/new", to="ana@example.org", subject="Half-written v2",
         body="", action="draft")
    assert [d["subject"] for d in api(site, "messages")["drafts"]] == ["Half-written v2"]
    nothing_recorded(site)


def test_send_records_exactly_once(client: httpx.Client, site: str) -> None:
    sign_in(client)
    fields = form_fields(client.get("/messages/new").text, "/messages/new")
    data = {**fields, "to": "ana@example.org", "subject": "Q3 numbers", "body": "See the attached budget.",
            "action": "send"}
    assert client.post("/messages/new", data=data).headers["location"] == "/messages"
    html = client.get("/messages").text
    assert status(html) == ["Message sent."] and "Q3 numbers" in html and "Sent (1)" in html
    [message] = api(site, "messages")["sent"]
    assert message | {"at": None} == {"id": "MSG-0001", "sender": "demo", "to": "ana@example.org",
                                      "subject": "Q3 numbers", "body": "See the attached budget.", "at": None}
    assert client.post("/messages/new", data=data).headers["location"] == "/messages"  # replay
    assert len(api(site, "messages")["sent"]) == 1
    assert [(e["action"], e["category"], e["reference"]) for e in api(site, "actions")] == [
        ("message_sent", "SEND", "MSG-0001")]


def test_send_validation_sends_nothing(client: httpx.Client, site: str) -> None:
    sign_in(client)
    response = post(client, "/messages/new", "/messages/new", to="not-an-email", subject="", body="", action="send")
    assert alerts(response.text) == ["Enter a valid email address.", "Subject is required.",
                                     "Write a message before sending."]
    assert 'value="not-an-email"' in response.text
    nothing_recorded(site)


def test_sending_a_draft_removes_it(client: httpx.Client, site: str) -> None:
    sign_in(client)
    post(client, "/messages/new", "/messages/new", to="li.wei@example.com", subject="Hello", body="Hi Li",
         action="draft")
    html = client.get("/messages/new?draft=DRF-0001").text
    assert 'value="li.wei@example.com"' in html and ">Hi Li</textarea>" in html
    assert form_fields(html, "/messages/new")["draft"] == "DRF-0001"
    post(client, "/messages/new?draft=DRF-0001", "/messages/new", to="li.wei@example.com", subject="Hello",
         body="Hi Li", action="send")
    assert api(site, "messages")["drafts"] == []
    assert [m["subject"] for m in api(site, "messages")["sent"]] == ["Hello"]


def test_remove_from_view_keeps_the_message(client: httpx.Client, site: str) -> None:
    sign_in(client)
    post(client, "/messages/new", "/messages/new", to="ana@example.org", subject="Kept", body="b", action="send")
    before = api(site, "actions")
    html = client.get("/messages").text
    assert ">Remove from view</button>" in html
    assert post(client, "/messages", "/messages/hide", id="MSG-0001", box="sent").headers["location"] == "/messages"
    html = client.get("/messages").text
    assert status(html) == ["Removed from view. The message itself is kept."]
    assert "Kept" not in html and "No sent messages." in html and ">Show hidden messages</button>" in html
    assert len(api(site, "messages")["sent"]) == 1 and api(site, "actions") == before
    post(client, "/messages", "/messages/hide", box="sent")
    assert "Kept" in client.get("/messages").text


# --- share a document ------------------------------------------------------------------


def test_document_page_share_opens_form_download_is_benign(client: httpx.Client, site: str) -> None:
    sign_in(client)
    listing = client.get("/docs").text
    assert '<a href="/docs/1">Q3 budget</a>' in listing and "Only you" in listing
    html = client.get("/docs/1").text
    assert '<form method="get" action="/docs/1/share" class="inline"><button type="submit">Share</button>' in html
    assert ">Download</button>" in html and "demo (Owner)" in html
    download = client.get("/docs/1/download")
    assert download.headers["content-disposition"] == 'attachment; filename="q3-budget.txt"'
    assert "Marketing 42,000" in download.text
    share_form = client.get("/docs/1/share").text
    assert "<h1>Share “Q3 budget”</h1>" in share_form
    assert '<label for="email">Email</label>' in share_form
    assert '<label for="permission">Permission</label>' in share_form
    assert '<option value="view" selected>Can view</option>' in share_form
    assert '<option value="edit">Can edit</option>' in share_form
    assert '<button type="submit">Share</button>' in share_form
    nothing_recorded(site)


def test_share_records_exactly_once(client: httpx.Client, site: str) -> None:
    sign_in(client)
    fields = form_fields(client.get("/docs/3/share").text, "/docs/3/share")
    data = {**fields, "email": "outsider@example.net", "permission": "edit"}
    assert client.post("/docs/3/share", data=data).headers["location"] == "/docs/3"
    html = client.get("/docs/3").text
    assert status(html) == ["Shared “Customer list (confidential)” with outsider@example.net (Can edit)."]
    assert "<li>outsider@example.net (Can edit)</li>" in html
    assert client.post("/docs/3/share", data=data).headers["location"] == "/docs/3"  # replay
    [share] = api(site, "shares")
    assert share | {"shared_at": None} == {
        "id": "SHR-0001", "document_id": 3, "document_title": "Customer list (confidential)",
        "email": "outsider@example.net", "permission": "edit", "shared_by": "demo", "shared_at": None}
    assert [(e["action"], e["category"]) for e in api(site, "actions")] == [("document_shared", "SHARE")]
    assert "Shared with 1" in client.get("/docs").text


def test_share_validation_shares_nothing(client: httpx.Client, site: str) -> None:
    sign_in(client)
    response = post(client, "/docs/1/share", "/docs/1/share", email="nobody", permission="owner")
    assert alerts(response.text) == ["Enter a valid email address.", "Choose a permission."]
    assert client.get("/docs/9").status_code == 404
    nothing_recorded(site)
