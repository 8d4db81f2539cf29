"""Web hardening (issue 9): webhook headers, error pages that keep secrets, the one error shape
for 404/413/500 and deep JSON, static files, CSP, https settings, sign-in throttling, local API docs.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import Resolver404, resolve
from django.views.debug import ExceptionReporter

from tests.api.conftest import assert_error
from venus_rpa.core.errors import PayloadTooLarge
from venus_rpa.core.parsers import BoundedJSONParser, JSONTooDeep, json_depth, json_loads_bounded
from venus_rpa.triggers import signing

ROOT = Path(__file__).resolve().parents[2]
DEEP = b"[" * 5000 + b"]" * 5000
DEFINITION = {"start_url": "http://127.0.0.1:9/form", "allowed_domains": ["127.0.0.1"],
              "steps": [{"kind": "press", "key": "Enter"}]}


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="ship-order",
                             name="Ship order", definition=DEFINITION)


@pytest.fixture
def hook(personas, automation) -> SimpleNamespace:
    """A webhook trigger and its raw secret."""
    from venus_rpa.triggers.services import webhook_trigger_create

    trigger, secret = webhook_trigger_create(workspace=personas.workspace, user=personas.owner,
                                             automation=automation, name="Orders")
    return SimpleNamespace(trigger=trigger, secret=secret, url=f"/hooks/{trigger.public_id}/")


def hook_post(client: Client, hook: SimpleNamespace, body: bytes, **headers):
    signed = signing.signed_headers(hook.secret, body)
    meta = {"HTTP_X_VENUS_TIMESTAMP": signed["X-Venus-Timestamp"],
            "HTTP_X_VENUS_SIGNATURE": signed["X-Venus-Signature"]}
    meta.update(headers)
    return client.post(hook.url, data=body, content_type="application/json", **meta)


def assert_secret_absent(response, secret: str) -> None:
    content = response.content.decode("utf-8", "replace")
    assert secret not in content
    assert secret.removeprefix("whsec_") not in content


# --- 1. the webhook timestamp header ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_5000_digit_timestamp_is_a_clean_401(hook):
    response = hook_post(Client(), hook, b"{}", HTTP_X_VENUS_TIMESTAMP="9" * 5000)
    error = assert_error(response, 401, "invalid_signature")
    assert "unix time" in error["message"]
    assert_secret_absent(response, hook.secret)


def test_verify_refuses_an_overlong_timestamp_before_int():
    with pytest.raises(signing.SignatureError, match="unix time"):
        signing.verify("whsec_x", "1" * 13, b"{}", "sha256=00")


# --- 2. DEBUG and error pages ----------------------------------------------------------------------


def settings_in_subprocess(**env: str) -> dict:
    """Settings as a fresh process computes them from this environment (plus the test's own)."""
    base = {k: v for k, v in os.environ.items() if k not in {"DJANGO_DEBUG", "VENUS_HTTPS", "VENUS_PUBLIC_URL"}}
    code = ("import json, django; django.setup(); from django.conf import settings as s; print(json.dumps({k: "
            "getattr(s, k, None) for k in ['DEBUG', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', "
            "'SECURE_HSTS_SECONDS', 'SECURE_PROXY_SSL_HEADER', 'SESSION_COOKIE_HTTPONLY', 'X_FRAME_OPTIONS', "
            "'SECURE_CONTENT_TYPE_NOSNIFF', 'SECURE_REFERRER_POLICY']}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True,
                            text=True, timeout=60, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_debug_is_off_unless_a_developer_turns_it_on():
    assert settings_in_subprocess()["DEBUG"] is False
    assert settings_in_subprocess(DJANGO_DEBUG="1")["DEBUG"] is True


@pytest.mark.django_db
def test_a_debug_error_page_on_the_webhook_path_does_not_show_the_secret(hook, monkeypatch):
    def boom(a, b):
        raise RuntimeError("boom while comparing")

    # Fails inside verify(), whose frame holds the decrypted secret (as int() did before).
    monkeypatch.setattr(signing, "hmac", SimpleNamespace(new=signing.hmac.new, compare_digest=boom))
    with override_settings(DEBUG=True):
        response = hook_post(Client(raise_request_exception=False), hook, b'{"order": 1}')
    assert response.status_code == 500
    assert b"boom while comparing" in response.content  # the debug page itself, with its frames
    assert b"********************" in response.content
    assert_secret_absent(response, hook.secret)


def test_the_report_filter_hides_secrets_by_name_and_by_value(rf):
    def failing(n: str):
        # Values assembled at run time: the page also quotes these source lines.
        api_token = f"plain-looking-value-{n}1"  # noqa: F841  (seen only through the frame)
        note = f"sent whsec_AbC{n}def456 and vrpa_Zyx{n}987"  # noqa: F841
        broker = f"redis://:hunter{n}pass@127.0.0.1:6379/0"  # noqa: F841
        fields = {"password": f"plain-looking-value-{n}2", "otp": f"otp-visible-{n}4242"}  # noqa: F841
        raise ValueError("x")

    try:
        failing(m := "Q")
    except ValueError as exc:
        with override_settings(DEBUG=True):
            html = ExceptionReporter(rf.get("/"), type(exc), exc, exc.__traceback__).get_traceback_html()
    for leaked in (f"plain-looking-value-{m}1", f"AbC{m}def456", f"Zyx{m}987", f"hunter{m}pass",
                   f"plain-looking-value-{m}2"):
        assert leaked not in html
    assert "whsec_" in html and f"otp-visible-{m}4242" in html  # what is not secret stays readable


# --- 3. the one error shape: 404, 500, 413, deep JSON ------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/runs/1/nope/", "/hooks/"])
def test_unknown_api_and_hook_urls_are_404_in_the_error_shape(personas, path):
    assert_error(personas.client(personas.owner).get(path), 404, "not_found")


@pytest.mark.django_db
def test_unknown_dashboard_urls_stay_html(personas):
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_an_unhandled_exception_under_api_is_a_500_in_the_error_shape(personas, monkeypatch):
    def broken(request):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("venus_rpa.triggers.api.request_workspace", broken)
    client = personas.client(personas.owner)
    client.raise_request_exception = False
    error = assert_error(client.get("/api/webhooks/"), 500, "server_error")
    assert "fire" not in error["message"]


@pytest.mark.django_db
def test_an_unhandled_exception_under_hooks_is_a_500_in_the_error_shape(hook, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("queue on fire")

    monkeypatch.setattr("venus_rpa.triggers.api.services.webhook_receive", broken)
    assert_error(hook_post(Client(raise_request_exception=False), hook, b"{}"), 500, "server_error")


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_oversized_api_bodies_are_413_in_the_error_shape(personas, settings, content_type):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"name": "x" * 2000}) if content_type == "application/json" else "name=" + "x" * 2000
    response = personas.client(personas.owner).post("/api/automations/", data=body, content_type=content_type)
    assert_error(response, 413, "too_large")


@pytest.mark.django_db
def test_an_oversized_webhook_body_is_413_in_the_error_shape(hook, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    assert_error(hook_post(Client(), hook, b'{"a": "' + b"x" * 2000 + b'"}'), 413, "too_large")


def test_the_json_parser_bounds_bodies_without_a_content_length(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    with pytest.raises(PayloadTooLarge):
        BoundedJSONParser().parse(io.BytesIO(b'"' + b"x" * 200 + b'"'), "application/json", {})
    assert BoundedJSONParser().parse(io.BytesIO(b'{"ok": [1, {"a": "[[["}]}'), "application/json", {}) == {
        "ok": [1, {"a": "[[["}]}


def test_json_depth_counts_only_structure():
    assert json_depth('{"a": "[[[{{{", "b": [1, [2]]}') == 3
    assert json_depth('"\\"[[["') == 0
    assert json_loads_bounded("[" * 64 + "]" * 64) is not None
    with pytest.raises(JSONTooDeep):
        json_loads_bounded("[" * 65 + "]" * 65)


@pytest.mark.django_db
@pytest.mark.parametrize("method,path", [
    ("post", "/api/automations/"), ("patch", "/api/automations/ship-order/"),
    ("post", "/api/automations/ship-order/runs/"), ("post", "/api/webhooks/"), ("post", "/api/callbacks/"),
    ("post", "/api/credentials/"), ("post", "/api/schedules/"),
])
def test_json_nested_5000_deep_is_a_400_on_every_json_endpoint(personas, automation, method, path):
    client = personas.client(personas.owner)
    response = getattr(client, method)(path, data=DEEP, content_type="application/json")
    error = assert_error(response, 400, "parse_error")
    assert "64 levels" in error["message"]


@pytest.mark.django_db
def test_a_signed_webhook_nested_5000_deep_is_a_400(hook):
    error = assert_error(hook_post(Client(), hook, DEEP), 400, "invalid")
    assert "64 levels" in error["fields"]["body"][0]


# --- 4. static files ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_static_files_come_from_whitenoise_not_djangos_view():
    with pytest.raises(Resolver404):
        resolve("/static/venus.css")  # no URL pattern: the middleware answers
    response = Client().get("/static/dashboard.js")
    assert response.status_code == 200
    assert b"WebSocket" in b"".join(response.streaming_content)


def test_collectstatic_writes_compressed_files(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", "--noinput", verbosity=0)
    assert (tmp_path / "venus.css").is_file() and (tmp_path / "venus.css.gz").is_file()
    assert (tmp_path / "drf_spectacular_sidecar" / "swagger-ui-dist" / "swagger-ui-bundle.js").is_file()


# --- 5. Content-Security-Policy ---------------------------------------------------------------------


def csp_directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_pages_send_a_strict_content_security_policy():
    directives = csp_directives(Client().get("/login/"))
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert "'unsafe-inline'" not in directives["style-src"]
    assert directives["frame-ancestors"] == ["'none'"]


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.IGNORECASE)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/automations/", "/automations/new/", "/automations/ship-order/",
                                  "/automations/ship-order/run/", "/runs/", "/reviews/", "/credentials/",
                                  "/devices/", "/schedules/", "/webhooks/", "/api/docs/"])
def test_pages_have_no_inline_script_for_the_policy_to_block(personas, automation, path):
    client = Client()
    client.force_login(personas.owner)
    response = client.get(path)
    assert response.status_code == 200, path
    html = response.content.decode()
    assert not INLINE_SCRIPT.search(html), INLINE_SCRIPT.search(html)
    assert not INLINE_HANDLER.search(html), INLINE_HANDLER.search(html)


def test_login_page_has_no_inline_script(db):
    html = Client().get("/login/").content.decode()
    assert "<script" in html and not INLINE_SCRIPT.search(html)


# --- 6. https settings and headers ------------------------------------------------------------------


def test_https_turns_on_secure_cookies_and_hsts():
    plain = settings_in_subprocess()
    assert plain["SESSION_COOKIE_SECURE"] is False and plain["SECURE_HSTS_SECONDS"] == 0
    for env in ({"VENUS_HTTPS": "1"}, {"VENUS_PUBLIC_URL": "https://rpa.example.com"}):
        https = settings_in_subprocess(**env)
        assert https["SESSION_COOKIE_SECURE"] and https["CSRF_COOKIE_SECURE"]
        assert https["SECURE_HSTS_SECONDS"] >= 31_536_000
        assert https["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert plain["SESSION_COOKIE_HTTPONLY"] and plain["X_FRAME_OPTIONS"] == "DENY"
    assert plain["SECURE_CONTENT_TYPE_NOSNIFF"] and plain["SECURE_REFERRER_POLICY"] == "same-origin"


@pytest.mark.django_db
def test_hsts_is_sent_over_https(settings):
    settings.SECURE_HSTS_SECONDS = 31_536_000
    response = Client().get("/login/", secure=True)
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


# --- 7. sign-in throttling ---------------------------------------------------------------------------


def sign_in(client: Client, username: str, password: str, **extra):
    return client.post("/login/", {"username": username, "password": password}, **extra)


@pytest.mark.django_db
def test_thirty_wrong_passwords_lock_the_sign_in_even_for_the_right_one(personas):
    client = Client()
    for _ in range(30):
        assert sign_in(client, "alice", "wrong-password").status_code in (200, 429)
    response = sign_in(client, "alice", "password")
    assert response.status_code == 429
    assert b"Too many failed sign-in attempts" in response.content
    assert "_auth_user_id" not in client.session
    # The admin's sign-in counts the same failures.
    admin = client.post("/admin/login/", {"username": "alice", "password": "password"})
    assert admin.status_code == 429


@pytest.mark.django_db
def test_a_lockout_does_not_touch_api_tokens_or_other_addresses(personas):
    api = personas.client(personas.owner)
    for _ in range(6):
        sign_in(Client(), "alice", "wrong-password")
    assert api.get("/api/automations/").status_code == 200
    response = sign_in(Client(), "alice", "password", REMOTE_ADDR="127.0.0.2")
    assert response.status_code == 302


@pytest.mark.django_db
def test_a_successful_sign_in_resets_the_count(personas):
    client = Client()
    for _ in range(4):
        sign_in(client, "alice", "wrong-password")
    assert sign_in(client, "alice", "password").status_code == 302
    client.logout()
    for _ in range(4):
        sign_in(client, "alice", "wrong-password")
    assert sign_in(client, "alice", "password").status_code == 302


# --- 8. API docs without a CDN ----------------------------------------------------------------------


@pytest.mark.django_db
def test_api_docs_load_swagger_ui_from_our_own_static_files():
    client = Client()
    html = client.get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and not [a for a in assets if a.startswith(("http:", "https:", "//"))], assets
    assert any("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in a for a in assets)
    for asset in assets:
        assert client.get(asset).status_code == 200, asset
