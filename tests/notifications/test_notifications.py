"""Notifications when a review waits: a member's own channels, validated and bounded; notices
sent to a real SMTP server and a real HTTP receiver on 127.0.0.1; failures recorded, never
raised into the run."""

from __future__ import annotations

import json

import pytest

from tests.dashboard.conftest import signed_in
from tests.helpers.smtp import smtp_server
from tests.notifications.conftest import file_review
from tests.triggers.receiver import receiver_running
from venus_rpa.core.errors import InvalidInput, PermissionDenied
from venus_rpa.notifications.models import Channel, Notice, NoticeStatus
from venus_rpa.notifications.services import SEND_TASK, notice_send, notification_settings_update


def turn_on(user, workspace, *, email=False, url=""):
    return notification_settings_update(workspace=workspace, user=user, email_enabled=email, webhook_url=url,
                                        webhook_enabled=bool(url))


@pytest.fixture
def mail(settings):
    with smtp_server() as mailbox:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = mailbox.host, mailbox.port
        yield mailbox


# -- settings: only one's own, only where notices may go ------------------------------------------

@pytest.mark.parametrize("url, message", [
    ("ftp://127.0.0.1/x", "Must be an http:// or https:// URL."),
    ("http://10.0.0.5/hook", "is a private address"),
    ("http://169.254.169.254/latest/meta-data", "address"),
    ("http://localhost:8080/hook", "loopback"),
    ("http://user:secret@127.0.0.1:9/hook", "Must not contain a user name or password"),
    ("http://127.0.0.1:99999/hook", "The port is not a number"),
    ("https://hooks.example.com/" + "a" * 2000, "at most 2000 characters"),
])
def test_it_refuses_a_webhook_url_notices_may_not_go_to(personas, reviewer, url, message):
    with pytest.raises(InvalidInput) as info:
        turn_on(reviewer, personas.workspace, url=url)
    assert message in " ".join(info.value.fields["webhook_url"])
    assert not reviewer.notification_settings.exists()  # nothing saved


def test_a_viewer_has_nothing_to_be_notified_of(personas):
    with pytest.raises(PermissionDenied):
        turn_on(personas.viewer, personas.workspace, email=True)
    assert signed_in(personas.viewer).get("/settings/notifications/").status_code == 403


def test_email_needs_an_address_on_the_account(personas, reviewer):
    reviewer.email = ""
    reviewer.save()
    with pytest.raises(InvalidInput, match="no e-mail address"):
        turn_on(reviewer, personas.workspace, email=True)


def test_the_settings_page_saves_and_shows_only_my_own_channels(personas, reviewer):
    turn_on(personas.owner, personas.workspace, url="http://127.0.0.1:9/owner-secret-hook")
    client = signed_in(reviewer)
    page = client.get("/settings/notifications/").content.decode()
    assert "owner-secret-hook" not in page and "rita@example.com" in page
    bad = client.post("/settings/notifications/", {"webhook_enabled": "on", "webhook_url": "http://10.1.2.3/h"})
    assert bad.status_code == 400 and "http://10.1.2.3/h" in bad.content.decode()  # shown again as typed
    ok = client.post("/settings/notifications/", {"email_enabled": "on", "webhook_enabled": "on",
                                                  "webhook_url": " http://127.0.0.1:9/rita "})
    assert ok.status_code == 302
    mine = reviewer.notification_settings.get()
    assert (mine.email_enabled, mine.webhook_enabled, mine.webhook_url) == (True, True, "http://127.0.0.1:9/rita")
    assert personas.owner.notification_settings.get().webhook_url == "http://127.0.0.1:9/owner-secret-hook"


# -- who is told --------------------------------------------------------------------------------

def test_a_risky_action_is_told_to_those_who_decide_and_want_it(personas, reviewer, waiting_run, enqueued,
                                                                  transactional_db):
    turn_on(reviewer, personas.workspace, email=True, url="http://127.0.0.1:9/rita")
    turn_on(personas.owner, personas.workspace, email=True)
    review = file_review(waiting_run)
    notices = Notice.objects.filter(review=review)
    assert sorted((n.user.username, n.channel) for n in notices) == [
        ("alice", Channel.EMAIL), ("rita", Channel.EMAIL), ("rita", Channel.WEBHOOK)]
    # An editor may not decide risky actions: even with e-mail on, not told. Another workspace: never.
    assert not Notice.objects.filter(user__in=[personas.teammate, personas.outsider]).exists()
    # Each notice went to the send task once its row was committed.
    assert sorted(args[0] for _, args, _ in enqueued) == sorted(n.pk for n in notices)
    assert {name for name, _, _ in enqueued} == {SEND_TASK}


# -- e-mail through a real SMTP server ----------------------------------------------------------

def test_the_email_names_what_waits_and_links_to_the_review(personas, reviewer, waiting_run, mail, settings,
                                                            transactional_db):
    settings.VENUS_PUBLIC_URL = "https://venus.example.com/"
    turn_on(reviewer, personas.workspace, email=True)
    review = file_review(waiting_run)
    notice = notice_send(notice_id=Notice.objects.get(review=review).pk)
    assert notice.status == NoticeStatus.SENT and notice.attempts == 1 and notice.sent_at
    sender, recipients, message = mail.messages[0]
    assert recipients == ["rita@example.com"]
    assert message["Subject"] == "Review waiting: Click “Pay 120.00 EUR”"
    body = message.get_content()
    assert f"https://venus.example.com/reviews/{review.pk}/" in body
    assert "Run #" in body and "Pay invoice" in body and "R3 pay - submits a payment" in body
    assert notice_send(notice_id=notice.pk) is None  # a replayed task finds nothing to do
    assert len(mail.messages) == 1


def test_an_unreachable_mail_server_is_recorded_and_retried_not_raised(personas, reviewer, waiting_run, settings,
                                                                        enqueued, transactional_db):
    from tests.helpers.servers import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2
    settings.VENUS_NOTIFY_MAX_ATTEMPTS = 2
    turn_on(reviewer, personas.workspace, email=True)
    notice = Notice.objects.get(review=file_review(waiting_run))
    first = notice_send(notice_id=notice.pk)
    assert first.status == NoticeStatus.PENDING and first.attempts == 1 and "ConnectionRefusedError" in first.last_error
    assert enqueued[-1] == (SEND_TASK, (notice.pk,), settings.VENUS_NOTIFY_BACKOFF_SECONDS)  # retried later
    last = notice_send(notice_id=notice.pk)
    assert last.status == NoticeStatus.FAILED and last.attempts == 2


# -- chat webhook through a real HTTP receiver --------------------------------------------------

def test_the_webhook_gets_json_text_with_the_deep_link(personas, reviewer, waiting_run, settings, transactional_db):
    settings.VENUS_PUBLIC_URL = "https://venus.example.com"
    with receiver_running() as receiver:
        turn_on(reviewer, personas.workspace, url=receiver.url)
        review = file_review(waiting_run, title="Send <!channel> <https://evil.test|click> & pay")
        notice = notice_send(notice_id=Notice.objects.get(review=review).pk)
        [request] = receiver.wait_for(1)
    assert notice.status == NoticeStatus.SENT
    assert request.headers["Content-Type"] == "application/json"
    text = json.loads(request.body)["text"]
    assert f"https://venus.example.com/reviews/{review.pk}/" in text
    # A page's words cannot ping the channel or become a link in Slack.
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text and "&lt;https://evil.test|click&gt; &amp; pay" in text


def test_a_redirect_is_not_followed_and_counts_as_a_failure(personas, reviewer, waiting_run, settings,
                                                             transactional_db):
    settings.VENUS_NOTIFY_MAX_ATTEMPTS = 1
    with receiver_running() as elsewhere, receiver_running() as receiver:
        receiver.redirect_to = elsewhere.url
        turn_on(reviewer, personas.workspace, url=receiver.url)
        notice = notice_send(notice_id=Notice.objects.get(review=file_review(waiting_run)).pk)
        receiver.wait_for(1)
        assert elsewhere.requests == []
    assert notice.status == NoticeStatus.FAILED and "307" in notice.last_error and "redirects are not followed" in notice.last_error


def test_a_slow_receiver_times_out_and_is_recorded(personas, reviewer, waiting_run, settings, transactional_db):
    settings.VENUS_NOTIFY_TIMEOUT_SECONDS = 0.5
    with receiver_running(delay_s=2.0) as receiver:
        turn_on(reviewer, personas.workspace, url=receiver.url)
        notice = notice_send(notice_id=Notice.objects.get(review=file_review(waiting_run)).pk)
    assert notice.status == NoticeStatus.PENDING and notice.attempts == 1 and "Timeout" in notice.last_error


def test_a_destination_refused_at_send_time_is_not_contacted(personas, reviewer, waiting_run, settings,
                                                             transactional_db):
    with receiver_running() as receiver:
        turn_on(reviewer, personas.workspace, url=receiver.url)
        notice = Notice.objects.get(review=file_review(waiting_run))
        settings.VENUS_EGRESS_ALLOW_PRIVATE = []  # the operator closed loopback since the URL was saved
        notice = notice_send(notice_id=notice.pk)
        assert receiver.requests == []
    assert notice.status == NoticeStatus.PENDING and notice.last_error.startswith("refused:")


# -- nothing is sent that no longer applies; nothing reaches the run ----------------------------

def test_a_review_decided_before_the_notice_went_is_skipped(personas, reviewer, waiting_run, transactional_db):
    from venus_rpa.reviews.services import review_decide

    with receiver_running() as receiver:
        turn_on(reviewer, personas.workspace, url=receiver.url)
        review = file_review(waiting_run)
        review_decide(review=review, user=personas.owner, decision="approve")
        notice = notice_send(notice_id=Notice.objects.get(review=review).pk)
        assert receiver.requests == []
    assert notice.status == NoticeStatus.SKIPPED and "approved" in notice.last_error


def test_a_member_demoted_since_is_not_told(personas, reviewer, waiting_run, transactional_db):
    from venus_rpa.accounts.models import Membership

    turn_on(reviewer, personas.workspace, email=True)
    notice = Notice.objects.get(review=file_review(waiting_run))
    Membership.objects.filter(user=reviewer).update(role="viewer")
    assert notice_send(notice_id=notice.pk).status == NoticeStatus.SKIPPED


def test_a_failure_to_file_notices_never_fails_the_review(personas, reviewer, waiting_run, monkeypatch, caplog,
                                                         transactional_db):
    def broken(**kwargs):
        raise RuntimeError("notification store unavailable")

    monkeypatch.setattr("venus_rpa.notifications.receivers.notices_on_review_opened", broken)
    review = file_review(waiting_run)  # the worker's call returns normally
    assert review.pk and "could not file the notifications" in caplog.text
