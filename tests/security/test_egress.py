"""Issue 9, reproductions 3 and 6: the egress policy (workers/egress.py), allowed domains at
save, callbacks to internal addresses, remote `$ref`. Names resolve through the stub resolver
(tests/conftest.py `stub_dns`); every connection made here goes to 127.0.0.1. The browser side
is in test_egress_browser.py (real Chromium)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from django.utils import timezone

from tests.api.conftest import assert_error
from tests.triggers.receiver import receiver_running
from workers.egress import (
    EgressPolicy,
    EgressRefused,
    PrivateAllowList,
    destination_check,
    domain_allowed,
    domain_normalize,
    schema_remote_refs,
)

NOBODY = PrivateAllowList()
LOCAL = PrivateAllowList.parse(["127.0.0.1"])


# --- the policy -----------------------------------------------------------------------------------

@pytest.mark.parametrize("host, kind", [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"), ("192.168.0.10", "private"),
    ("169.254.169.254", "metadata"), ("169.254.1.1", "link-local"), ("fd00:ec2::254", "metadata"),
    ("0.0.0.0", "non-public"), ("::ffff:127.0.0.1", "loopback"), ("100.64.0.1", "non-public"),
])
def test_internal_addresses_are_refused_without_the_operator_setting(host, kind):
    with pytest.raises(EgressRefused) as info:
        destination_check(host, 80, allow=NOBODY)
    assert f"is a {kind} address" in str(info.value) and "VENUS_EGRESS_ALLOW_PRIVATE" in str(info.value)


@pytest.mark.parametrize("url", ["http://2130706433/", "http://0x7f000001/", "http://127.1/", "http://[::1]:6379/",
                                 "http://127.0.0.1:5555/workers", "http://169.254.169.254/latest/meta-data"])
def test_the_guard_refuses_loopback_in_every_spelling_before_any_connection(url):
    policy = EgressPolicy(allowed_domains=["127.0.0.1", "169.254.169.254", "::1", "2130706433", "0x7f000001", "127.1"])
    decision = policy.check_url(url, resolve=lambda host: [])
    assert not decision.allowed and "address" in decision.reason


def test_a_name_resolving_to_a_private_address_is_refused(stub_dns):
    stub_dns["intranet.example.com"] = ["93.184.215.14", "10.0.0.5"]  # one bad address is enough
    stub_dns["metadata.google.internal"] = ["169.254.169.254"]
    with pytest.raises(EgressRefused, match=r"intranet.example.com \(10.0.0.5\) is a private address"):
        destination_check("intranet.example.com", 443, allow=NOBODY)
    with pytest.raises(EgressRefused, match="metadata address"):
        destination_check("metadata.google.internal", 80, allow=NOBODY)


def test_a_public_name_is_pinned_to_the_address_that_was_checked(stub_dns):
    stub_dns["shop.example.com"] = ["93.184.215.14"]
    assert destination_check("shop.example.com", 443, allow=NOBODY) == "93.184.215.14"


def test_a_name_that_does_not_resolve_is_refused_as_unresolved():
    with pytest.raises(EgressRefused) as info:
        destination_check("nowhere.invalid", 80, allow=NOBODY)
    assert info.value.unresolved


def test_the_operator_setting_allows_listed_addresses_networks_names_and_ports(stub_dns):
    stub_dns["practice.internal"] = ["10.9.9.9"]
    allow = PrivateAllowList.parse(["127.0.0.1:8001", "10.0.0.0/8", "practice.internal"])
    assert destination_check("127.0.0.1", 8001, allow=allow) == "127.0.0.1"
    assert destination_check("10.2.3.4", 443, allow=allow) == "10.2.3.4"
    assert destination_check("practice.internal", 80, allow=allow) == "10.9.9.9"
    with pytest.raises(EgressRefused):  # Flower's port on the same address
        destination_check("127.0.0.1", 5555, allow=allow)
    with pytest.raises(EgressRefused):  # localhost is also ::1, not listed
        destination_check("localhost", 80, allow=LOCAL)
    with pytest.raises(ValueError, match="VENUS_EGRESS_ALLOW_PRIVATE"):
        PrivateAllowList.parse(["not a host!"])


def test_allowed_domains_cover_subdomains_but_addresses_only_themselves():
    assert domain_allowed("a.shop.example.com", ["example.com"]) and domain_allowed("EXAMPLE.com.", ["example.com"])
    assert not domain_allowed("badexample.com", ["example.com"])
    assert domain_allowed("127.0.0.1", ["127.0.0.1"]) and not domain_allowed("localhost", ["127.0.0.1"])
    assert not domain_allowed("127.0.0.1", ["0.1"]) and not domain_allowed("anything", [])
    assert domain_normalize("*.Example.COM.") == "example.com"
    with pytest.raises(ValueError, match="enter only its host, such as shop.example.com"):
        domain_normalize("https://shop.example.com/login")


def test_remote_refs_are_found_anywhere_in_a_schema():
    schema = {"properties": {"a": {"$ref": "http://10.0.0.1/s.json"}, "b": {"$ref": "#/$defs/b"},
                             "c": {"items": [{"$dynamicRef": "other.json#x"}]}, "d": {"const": {"$ref": "x"}}}}
    assert schema_remote_refs(schema) == [("properties.a.$ref", "http://10.0.0.1/s.json"),
                                          ("properties.c.items.0.$dynamicRef", "other.json#x")]


# --- allowed domains are required at save ---------------------------------------------------------

def _definition(**overrides) -> dict:
    return {"start_url": "https://erp.example.com/", "steps": [{"kind": "press", "key": "Enter"}], **overrides}


@pytest.mark.django_db
@pytest.mark.parametrize("domains, message", [
    ([], "List the domains runs may visit"),
    (["https://erp.example.com/x"], "enter only its host"),
    (["not a host"], "is not a host name"),
])
def test_the_api_refuses_an_automation_without_valid_allowed_domains(personas, domains, message):
    owner = personas.client(personas.owner)
    response = owner.post("/api/automations/", {"slug": "erp", "name": "ERP", **_definition(allowed_domains=domains)},
                          format="json")
    error = assert_error(response, 400, "invalid")
    assert any(message in m for m in error["fields"]["allowed_domains"])


@pytest.mark.django_db
def test_allowed_domains_are_stored_in_canonical_form(personas):
    from venus_rpa.automations.services import automation_create

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="erp", name="ERP",
                                   definition=_definition(allowed_domains=["ERP.example.com.", "*.cdn.example.net"]))
    assert automation.current_version.allowed_domains == ["erp.example.com", "cdn.example.net"]


@pytest.mark.django_db
def test_the_editor_proposes_the_start_url_host_and_shows_the_field_error(client, personas):
    from tests.dashboard.test_editor import editor_post

    client.force_login(personas.owner)
    response = client.post("/automations/new/", editor_post(start_url="https://erp.example.com/login",
                                                            allowed_domains=""))
    page = response.content.decode()
    assert response.status_code == 400 and "List the domains runs may visit" in page
    assert 'data-proposed="erp.example.com">erp.example.com</textarea>' in page


# --- JSON Schema $ref never fetches ---------------------------------------------------------------

class _Counting(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"type": "string"}')

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def schema_server():
    _Counting.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/schema.json"
    server.shutdown()
    server.server_close()


@pytest.mark.django_db
def test_a_remote_ref_is_refused_at_save(personas, schema_server):
    owner = personas.client(personas.owner)
    schema = {"type": "object", "properties": {"q": {"$ref": schema_server}}}
    response = owner.post("/api/automations/", {"slug": "erp", "name": "ERP", **_definition(
        allowed_domains=["erp.example.com"], param_schema=schema)}, format="json")
    error = assert_error(response, 400, "invalid")
    assert any("points outside this schema" in m for m in error["fields"]["param_schema"])
    assert _Counting.hits == []


@pytest.mark.django_db
def test_a_remote_ref_saved_before_the_fix_is_never_fetched_at_run_start(personas, schema_server):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.errors import InvalidInput
    from venus_rpa.runs.services import run_start

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="erp", name="ERP",
                                   definition=_definition(allowed_domains=["erp.example.com"]))
    version = automation.current_version
    type(version).objects.filter(pk=version.pk).update(
        param_schema={"type": "object", "properties": {"q": {"$ref": schema_server}}})

    with pytest.raises(InvalidInput) as info:
        run_start(automation=automation, params={"q": "x"})
    assert "never fetched" in info.value.fields["param_schema"][0]
    assert _Counting.hits == []


# --- outbound callbacks ---------------------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("url, kind", [
    ("http://localhost:6379/", "loopback"), ("http://[::1]/", "loopback"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"), ("http://10.0.0.7/hook", "private"),
    ("http://internal.example.com/hook", "private"),
])
def test_callback_urls_to_internal_addresses_are_refused_at_save(personas, stub_dns, url, kind):
    stub_dns["internal.example.com"] = ["10.20.30.40"]
    owner = personas.client(personas.owner)
    error = assert_error(owner.post("/api/callbacks/", {"url": url}, format="json"), 400, "invalid")
    assert any(f"is a {kind} address" in m for m in error["fields"]["url"])


@pytest.mark.django_db
def test_a_loopback_callback_url_is_refused_when_the_operator_does_not_list_it(personas, settings):
    settings.VENUS_EGRESS_ALLOW_PRIVATE = []
    owner = personas.client(personas.owner)
    error = assert_error(owner.post("/api/callbacks/", {"url": "http://127.0.0.1:5555/"}, format="json"), 400)
    assert "loopback" in error["fields"]["url"][0]


def _delivery(personas, url: str):
    from tests.triggers.conftest import automation_make
    from venus_rpa.runs.models import Run, RunStatus
    from venus_rpa.triggers.models import CallbackDelivery
    from venus_rpa.triggers.services.callbacks import (
        callback_endpoint_create,
        run_payload,
    )

    automation = automation_make(personas.workspace, personas.owner)
    endpoint, _ = callback_endpoint_create(workspace=personas.workspace, user=None, url=url)
    run = Run.objects.create(workspace=automation.workspace, automation=automation, version=automation.current_version,
                             params={"order_id": "1"}, status=RunStatus.FAILED, finished_at=timezone.now())
    return CallbackDelivery.objects.create(endpoint=endpoint, run=run, payload=run_payload(run),
                                           next_attempt_at=timezone.now())


@pytest.mark.django_db
def test_a_name_that_rebinds_to_an_internal_address_is_refused_before_connecting(personas, stub_dns):
    from venus_rpa.triggers.models import CallbackAttempt
    from venus_rpa.triggers.services.callbacks import callback_delivery_attempt

    delivery = _delivery(personas, "https://hooks.rebind.example/venus")  # does not resolve at save: accepted
    stub_dns["hooks.rebind.example"] = ["169.254.169.254"]  # ...then answers with the metadata address

    callback_delivery_attempt(delivery_id=delivery.pk)

    attempt = CallbackAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None
    assert attempt.error.startswith("refused: hooks.rebind.example (169.254.169.254) is a metadata address")


@pytest.mark.django_db
def test_a_callback_connects_to_the_checked_address_and_keeps_no_answer_body(personas, stub_dns):
    from venus_rpa.triggers.models import CallbackAttempt
    from venus_rpa.triggers.services.callbacks import callback_delivery_attempt

    with receiver_running(fail_first=1) as receiver:
        port = receiver.url.split(":")[2].split("/")[0]
        stub_dns["hooks.venus.test"] = ["127.0.0.1"]  # the system resolver would not know this name
        delivery = _delivery(personas, f"http://hooks.venus.test:{port}/venus-callback")
        callback_delivery_attempt(delivery_id=delivery.pk)
        (received,) = receiver.wait_for(1)

    assert received.headers["Host"] == f"hooks.venus.test:{port}"
    attempt = CallbackAttempt.objects.get(delivery=delivery)
    assert attempt.status_code == 500 and attempt.error == "HTTP 500 Internal Server Error"
    assert "maintenance" not in attempt.error  # the answer body never reaches attempt_log
