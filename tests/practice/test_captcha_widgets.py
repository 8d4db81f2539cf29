"""Practice-site CAPTCHAs over HTTP: every type's page, the widgets' JSON helpers, sign-in and
registration behind a CAPTCHA. In-process generator tests are in test_captcha_generators.py, the
widgets' JavaScript in Chromium in test_captcha_browser.py.
"""

from __future__ import annotations

import io
import re

import httpx
import pytest
from PIL import Image, ImageStat

from practice.captcha.generators import CAPTCHA_TYPES


from tests.practice import captcha_site
from tests.helpers.servers import practice_site
from tests.practice.captcha_site import CAPTCHA_FAILED, alerts, box_html, hook, submit, widget_of, wrong_answer

site, client = captcha_site.site, captcha_site.client  # fixtures: the practice site with the test hook


# --- the standalone page, every type ---------------------------------------------------


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_page_rejects_wrong_answer_then_accepts_right_one(client: httpx.Client, site: str, kind: str) -> None:
    first = widget_of(client.get(f"/captcha/{kind}").text)
    assert "<h1>Security check</h1>" in first.html and '<button type="submit">Verify</button>' in first.html
    failed = submit(client, f"/captcha/{kind}", first, wrong_answer(hook(site, first.challenge)))
    assert failed.status_code == 200
    assert alerts(failed.text) == ["Failed"] and "Verified" not in failed.text

    fresh = widget_of(failed.text)  # a failed attempt shows a fresh challenge of the same type
    assert fresh.challenge != first.challenge
    expected = hook(site, fresh.challenge)
    assert expected["type"] == kind
    passed = submit(client, f"/captcha/{kind}", fresh, expected["answer"])
    assert passed.status_code == 200
    assert '<p class="success banner" role="status">Verified</p>' in passed.text
    assert "captcha_challenge" not in passed.text


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_challenge_is_single_use(client: httpx.Client, site: str, kind: str) -> None:
    widget = widget_of(client.get(f"/captcha/{kind}").text)
    answer = hook(site, widget.challenge)["answer"]
    images = re.findall(r'src="(/captcha/[^"]+\.png)"', widget.html)
    assert all(client.get(url).status_code == 200 for url in images)
    assert "Verified" in submit(client, f"/captcha/{kind}", widget, answer).text
    replay = submit(client, f"/captcha/{kind}", widget, answer)
    assert alerts(replay.text) == ["Failed"]
    assert httpx.get(f"{site}/api/captcha/{widget.challenge}").status_code == 404
    assert all(client.get(url).status_code == 404 for url in images)


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_markup_holds_neither_answer_nor_type(client: httpx.Client, site: str, kind: str) -> None:
    widget = widget_of(client.get(f"/captcha/{kind}").text)
    expected = hook(site, widget.challenge)
    box = box_html(widget.html)
    assert box.startswith('<div class="captcha-box" role="group" aria-label="Security check">')
    assert ">New challenge</button>" in box
    assert "data-" not in box
    # The type shows only through the instruction and structure, not in names or URLs.
    names = [n for t in CAPTCHA_TYPES for n in (t, t.replace("_", "-"), t.replace("_", ""))]
    assert not [n for n in names if re.search(rf"\b{n}\b", box, re.I)], box
    assert not re.search(r'name="captcha_answer"[^>]*value="[^"]+"', box)
    answer = expected["answer"]
    if kind in ("ocr", "oneclick_login", "drag_end", "icon_click", "text_click"):
        assert answer not in widget.html
    if kind == "slider_puzzle":
        assert f"left:{answer}px" not in box.replace(" ", "")
    if kind == "ocr":
        assert answer.lower() not in widget.html.lower()


@pytest.mark.parametrize("kind", [k for k in CAPTCHA_TYPES if k != "oneclick_login"])
def test_images_are_pngs_of_the_advertised_size(client: httpx.Client, kind: str) -> None:
    html = client.get(f"/captcha/{kind}").text
    tags = re.findall(r'<img [^>]*src="(/captcha/[^"]+)" width="(\d+)" height="(\d+)"', html)
    assert tags
    for url, width, height in tags:
        response = client.get(url)
        assert response.headers["content-type"] == "image/png"
        assert "no-cache" in response.headers["cache-control"]
        assert Image.open(io.BytesIO(response.content)).size == (int(width), int(height))


def test_each_page_load_is_a_new_random_challenge(client: httpx.Client, site: str) -> None:
    for kind in CAPTCHA_TYPES:
        ids = {widget_of(client.get(f"/captcha/{kind}").text).challenge for _ in range(3)}
        assert len(ids) == 3 and all(len(i) >= 20 for i in ids)
    gaps = {hook(site, widget_of(client.get("/captcha/slider_puzzle").text).challenge)["answer"] for _ in range(6)}
    assert len(gaps) > 1


def test_unknown_type_and_challenge_are_404(client: httpx.Client) -> None:
    assert client.get("/captcha/recaptcha").status_code == 404
    assert client.get("/captcha/nope/image.png").status_code == 404
    assert client.get("/api/captcha/nope").status_code == 404


def test_random_page_gets_some_type(client: httpx.Client, site: str) -> None:
    kinds = {hook(site, widget_of(client.get("/captcha/random").text).challenge)["type"] for _ in range(12)}
    assert kinds <= set(CAPTCHA_TYPES) and len(kinds) > 1


def test_hook_is_off_without_the_environment_variable() -> None:
    with practice_site(quiet=True) as url, httpx.Client(base_url=url) as c:
        widget = widget_of(c.get("/captcha/ocr").text)
        assert c.get(f"/api/captcha/{widget.challenge}").status_code == 404
        assert c.get(re.search(r'src="(/captcha/[^"]+)"', widget.html).group(1)).status_code == 200


# --- the JSON helpers the widgets call -------------------------------------------------


def test_checkbox_token_endpoint(client: httpx.Client, site: str) -> None:
    widget = widget_of(client.get("/captcha/oneclick_login").text)
    url = f"/captcha/{widget.challenge}/check"
    assert client.post(url).status_code == 403  # CSRF-protected like any form post
    token = client.post(url, headers={"X-CSRFToken": widget.csrf}).json()["token"]
    assert token == hook(site, widget.challenge)["answer"]
    other = widget_of(client.get("/captcha/ocr").text)
    assert client.post(f"/captcha/{other.challenge}/check", headers={"X-CSRFToken": widget.csrf}).status_code == 404
    assert "Verified" in submit(client, "/captcha/oneclick_login", widget, token).text


def test_refresh_replaces_the_challenge(client: httpx.Client, site: str) -> None:
    widget = widget_of(client.get("/captcha/icon_click").text)
    response = client.post(f"/captcha/{widget.challenge}/refresh", headers={"X-CSRFToken": widget.csrf})
    assert response.status_code == 200
    assert response.text.strip().startswith('<div class="captcha-box"')
    new_id = re.search(r'name="captcha_challenge" value="([^"]+)"', response.text).group(1)
    assert new_id != widget.challenge and hook(site, new_id)["type"] == "icon_click"
    assert httpx.get(f"{site}/api/captcha/{widget.challenge}").status_code == 404
    again = client.post(f"/captcha/{widget.challenge}/refresh", headers={"X-CSRFToken": widget.csrf})
    assert again.status_code == 404


def test_refresh_keeps_the_variant_and_the_language_but_follows_an_unreadable_ocr_with_a_plain_one(
        client: httpx.Client, site: str) -> None:
    def refreshed(widget) -> str:
        response = client.post(f"/captcha/{widget.challenge}/refresh", headers={"X-CSRFToken": widget.csrf})
        assert response.status_code == 200
        return response.text

    def contrast(html: str) -> float:
        url = re.search(r'src="(/captcha/[^"]+/image\.png)"', html).group(1)
        grey = Image.open(io.BytesIO(client.get(url).content)).convert("L")
        return ImageStat.Stat(grey).stddev[0]

    ring = widget_of(client.get("/captcha/image_rotation?variant=ring&lang=de").text)
    assert "ring.png" in ring.html and "Bild drehen" in ring.html
    fresh = refreshed(ring)  # a real site's refresh gives the same widget in the same language
    assert "ring.png" in fresh and "Bild drehen" in fresh and "Rotate the image" not in fresh
    # OCR's unreadable variant is followed by an ordinary challenge (how an abstaining solver
    # gets a second chance), still in the page's language.
    washed = widget_of(client.get("/captcha/ocr?variant=unreadable&lang=fr").text)
    faint = contrast(washed.html)  # before the refresh drops it
    plain = refreshed(washed)
    assert "Autre image" in plain
    assert faint < 12 < contrast(plain), (faint, contrast(plain))


# --- sign-in and registration ----------------------------------------------------------


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_login_checks_captcha_before_credentials(client: httpx.Client, site: str, kind: str) -> None:
    path = f"/login?captcha={kind}"
    widget = widget_of(client.get(path).text)
    assert '<button type="submit">Sign in</button>' in widget.html
    response = submit(client, path, widget, wrong_answer(hook(site, widget.challenge)),
                      username="demo", password="demo-password")
    assert response.status_code == 200
    assert alerts(response.text) == [CAPTCHA_FAILED]
    assert client.get("/expenses").status_code == 302  # not signed in

    widget = widget_of(response.text)
    assert hook(site, widget.challenge)["type"] == kind
    response = submit(client, path, widget, hook(site, widget.challenge)["answer"],
                      username="demo", password="wrong")
    assert alerts(response.text) == ["Invalid username or password."]

    widget = widget_of(response.text)
    response = submit(client, path, widget, hook(site, widget.challenge)["answer"],
                      username="demo", password="demo-password")
    assert response.status_code == 302 and response.headers["location"] == "/expenses/new"
    assert client.get("/expenses").status_code == 200


def test_login_captcha_failure_skips_credentials(client: httpx.Client) -> None:
    widget = widget_of(client.get("/login?captcha=ocr").text)
    response = submit(client, "/login?captcha=ocr", widget, "ZZZZ", username="demo", password="wrong")
    assert alerts(response.text) == [CAPTCHA_FAILED]  # not "Invalid username or password."
    assert 'value="demo"' in response.text


def test_login_without_captcha_parameter_is_unchanged(client: httpx.Client) -> None:
    html = client.get("/login").text
    assert "captcha" not in html and '<form method="post" action="/login">' in html
    assert "captcha" not in client.get("/login?captcha=bogus").text


def test_random_login_keeps_the_type_after_a_failure(client: httpx.Client, site: str) -> None:
    widget = widget_of(client.get("/login?captcha=random").text)
    expected = hook(site, widget.challenge)
    response = submit(client, "/login?captcha=random", widget, wrong_answer(expected), username="demo",
                      password="demo-password")
    assert alerts(response.text) == [CAPTCHA_FAILED]
    assert hook(site, widget_of(response.text).challenge)["type"] == expected["type"]


def test_register_with_captcha_then_sign_in(client: httpx.Client, site: str) -> None:
    httpx.post(f"{site}/api/reset").raise_for_status()
    path = "/register?captcha=slider_puzzle"
    page = client.get(path).text
    assert "<h1>Create an account</h1>" in page and '<button type="submit">Create account</button>' in page
    for field, label in [("username", "Username"), ("email", "Email"), ("password", "Password"),
                         ("confirm_password", "Confirm password")]:
        assert f'<label for="{field}">{label}</label>' in page
    fields = {"username": "carol", "email": "carol@example.com", "password": "s3cret-pass",
              "confirm_password": "s3cret-pass"}

    widget = widget_of(page)
    failed = submit(client, path, widget, wrong_answer(hook(site, widget.challenge)), **fields)
    assert alerts(failed.text) == [CAPTCHA_FAILED] and 'value="carol"' in failed.text

    widget = widget_of(failed.text)
    done = submit(client, path, widget, hook(site, widget.challenge)["answer"], **fields)
    assert done.status_code == 302 and done.headers["location"] == "/register/done"
    assert "<h1>Account created</h1>" in client.get("/register/done").text

    widget = widget_of(client.get(path).text)  # the same username cannot be taken twice
    again = submit(client, path, widget, hook(site, widget.challenge)["answer"], **{**fields, "username": "Carol"})
    assert alerts(again.text) == ["That username is already taken."]

    with httpx.Client(base_url=site) as other:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', other.get("/login").text).group(1)
        signed_in = other.post("/login", data={"csrfmiddlewaretoken": token, "username": "carol",
                                                "password": "s3cret-pass"})
        assert signed_in.status_code == 302
        assert "Signed in as <strong>carol</strong>" in other.get("/expenses").text


def test_register_validates_fields(client: httpx.Client) -> None:
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get("/register").text).group(1)
    response = client.post("/register", data={"csrfmiddlewaretoken": token, "username": "x", "email": "nope",
                                              "password": "short", "confirm_password": "other"})
    assert alerts(response.text) == [
        "Username must be 3-30 letters, digits, dots, dashes or underscores.",
        "Enter a valid email address.",
        "Password must be at least 8 characters.",
    ]
    response = client.post("/register", data={"csrfmiddlewaretoken": token, "username": "demo",
                                              "email": "d@example.com", "password": "long-enough",
                                              "confirm_password": "long-enough2"})
    assert alerts(response.text) == ["Passwords do not match."]
    response = client.post("/register", data={"csrfmiddlewaretoken": token, "username": "demo",
                                              "email": "d@example.com", "password": "long-enough",
                                              "confirm_password": "long-enough"})
    assert alerts(response.text) == ["That username is already taken."]
