"""Practice-site CAPTCHAs: server-side checks over HTTP and the widgets' JS in Chromium.

The site runs as its own subprocess with ``PRACTICE_TEST_HOOKS=1``, so tests can read a
challenge's expected answer from ``GET /api/captcha/<id>`` (which does not consume it).
Browser tests save a screenshot of each widget to ``/tmp/captcha_<type>.png``.
"""

from __future__ import annotations

import io
import math
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import httpx
import pytest
from PIL import Image

from practice.captcha.generators import CAPTCHA_TYPES, GENERATORS
from practice.captcha.generators.base import Generated
from practice.captcha.store import ChallengeStore
from tests.helpers.servers import ROOT, free_port, wait_http

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
CAPTCHA_FAILED = "The security check failed. Please try again."
INTERACTIVE = ("slider_puzzle", "drag_end", "icon_click", "text_click", "image_rotation", "oneclick_login")


# --- servers and helpers ---------------------------------------------------------------


@contextmanager
def _site(*, hooks: bool) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if k != "PRACTICE_TEST_HOOKS"}
    if hooks:
        env["PRACTICE_TEST_HOOKS"] = "1"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "practice", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/login", proc=proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The practice site with the test hook on."""
    with _site(hooks=True) as url:
        yield url


@pytest.fixture
def client(site: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site, follow_redirects=False, timeout=10) as c:
        yield c


class Widget(NamedTuple):
    html: str
    challenge: str
    csrf: str


def widget_of(html: str) -> Widget:
    """Challenge id and CSRF token from a page holding one CAPTCHA widget."""
    challenge = re.search(r'name="captcha_challenge" value="([^"]+)"', html)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert challenge and csrf, "no CAPTCHA widget on the page"
    return Widget(html, challenge.group(1), csrf.group(1))


def box_html(html: str) -> str:
    """The markup of the widget's box."""
    start = html.index('<div class="captcha-box"')
    return html[start:html.index("<style>", start)]


def hook(site: str, challenge: str) -> dict[str, Any]:
    response = httpx.get(f"{site}/api/captcha/{challenge}")
    response.raise_for_status()
    return response.json()


def wrong_answer(expected: dict[str, Any]) -> str:
    """A well-formed answer that must fail."""
    kind, solution = expected["type"], expected["solution"]
    if kind == "ocr":
        return "ZZZZ"  # Z is not in the character set
    if kind == "slider_puzzle":
        gap = solution["gap_x"]
        return str(gap + 30 if gap <= 220 else gap - 30)
    if kind == "drag_end":
        return "5,5"  # targets sit in the right-hand part of the scene
    if kind in ("icon_click", "text_click"):
        return ";".join(reversed(expected["answer"].split(";")))
    if kind == "image_rotation":
        return str(solution["angle"] + 180)
    if kind == "oneclick_login":
        return "not-the-token"
    return str(solution["count"] + 1)


def submit(client: httpx.Client, path: str, widget: Widget, answer: str, **fields: str) -> httpx.Response:
    data = {"csrfmiddlewaretoken": widget.csrf, "captcha_challenge": widget.challenge,
            "captcha_answer": answer, **fields}
    return client.post(path, data=data)


def alerts(html: str) -> list[str]:
    return re.findall(r'role="alert">([^<]+)<', html)


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
    with _site(hooks=False) as url, httpx.Client(base_url=url) as c:
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


# --- generators and store, in-process --------------------------------------------------


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_generators_vary_and_verify_their_own_answer(kind: str) -> None:
    generator = GENERATORS[kind]
    answers = set()
    for seed in range(12):
        generated = generator.generate(random.Random(seed))
        expected = generator.expected_answer(generated.solution)
        answers.add(expected)
        assert generator.verify(generated.solution, expected)
        assert not generator.verify(generated.solution, "")
        assert not generator.verify(generated.solution, "garbage;1,x")
        if not expected.isdigit():  # numbers may coincide with sizes
            assert expected not in repr(generated.view)
        _check_solution(kind, generated)
    assert len(answers) >= 5


def _check_solution(kind: str, generated: Generated) -> None:
    """Ranges promised by the widget descriptions."""
    s = generated.solution
    if kind == "ocr":
        assert 4 <= len(s["text"]) <= 5 and not set(s["text"]) & set("0O1IL2Z5S8B")
    elif kind == "slider_puzzle":
        assert 70 <= s["gap_x"] <= 250
    elif kind == "image_rotation":
        assert 40 <= s["angle"] <= 320
    elif kind == "visual_reasoning":
        assert s["count"] >= 1 and generated.view["question"].startswith("How many ")
    elif kind in ("icon_click", "text_click"):
        boxes = s["boxes"]
        assert len(boxes) == 3
        assert all(0 <= b[0] < b[2] <= 320 and 0 <= b[1] < b[3] <= 200 for b in boxes)
        assert all(not _overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        if kind == "text_click":
            assert generated.view["instruction"] == "请依次点击：" + "".join(f"「{c}」" for c in s["chars"])
    elif kind == "drag_end":
        assert 130 <= s["target"][0] <= 290 and s["item_start"][0] + 40 < s["target"][0] - s["radius"]


def _overlap(a: list[int], b: list[int]) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def test_tolerances() -> None:
    slider = GENERATORS["slider_puzzle"]
    assert slider.verify({"gap_x": 100, "tolerance": 5}, "105") and slider.verify({"gap_x": 100, "tolerance": 5}, "95")
    assert not slider.verify({"gap_x": 100, "tolerance": 5}, "106")
    assert not slider.verify({"gap_x": 100, "tolerance": 5}, "nan")
    rotation = GENERATORS["image_rotation"]
    assert rotation.verify({"angle": 350, "tolerance": 12}, "2") and rotation.verify({"angle": 45, "tolerance": 12}, "33.5")
    assert not rotation.verify({"angle": 45, "tolerance": 12}, "32.9")
    clicks = {"boxes": [[10, 10, 20, 20], [50, 50, 60, 60]], "tolerance": 4}
    assert GENERATORS["icon_click"].verify(clicks, "6,24;64,46")
    assert not GENERATORS["icon_click"].verify(clicks, "5,24;64,46")
    assert not GENERATORS["icon_click"].verify(clicks, "55,55;15,15")
    assert not GENERATORS["icon_click"].verify(clicks, "15,15;55,55;55,55")
    assert GENERATORS["ocr"].verify({"text": "AB3K"}, " ab3k ")
    assert GENERATORS["visual_reasoning"].verify({"count": 3}, "three")
    assert not GENERATORS["visual_reasoning"].verify({"count": 2}, "²")
    drag = {"target": [200, 100], "radius": 24}
    assert GENERATORS["drag_end"].verify(drag, "224,100") and not GENERATORS["drag_end"].verify(drag, "225,100")


def test_store_expires_and_consumes() -> None:
    now = [0.0]
    store = ChallengeStore(ttl=600, max_items=3, clock=lambda: now[0])
    generated = Generated(solution={"text": "AB"}, images={}, view={})
    first = store.add("ocr", generated)
    assert store.get(first.id) is first and store.get(first.id) is first
    assert store.take(first.id) is first and store.take(first.id) is None
    second = store.add("ocr", generated)
    now[0] = 599.0
    assert store.get(second.id) is second
    now[0] = 600.0
    assert store.get(second.id) is None
    ids = [store.add("ocr", generated).id for _ in range(5)]
    assert len(store) == 3 and store.get(ids[0]) is None and store.get(ids[-1]) is not None


def test_store_take_is_atomic_under_threads() -> None:
    store = ChallengeStore()
    challenge = store.add("ocr", Generated(solution={"text": "AB"}, images={}, view={}))
    winners: list[object] = []
    barrier = threading.Barrier(16)

    def race() -> None:
        barrier.wait()
        if store.take(challenge.id) is not None:
            winners.append(1)

    threads = [threading.Thread(target=race) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1


# --- real browser: the widgets' JavaScript ---------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, site: str) -> Iterator[Page]:
    context = browser.new_context(base_url=site, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def open_widget(page: Page, site: str, path: str) -> dict[str, Any]:
    """Load a page with a widget, wait for its images, return the hook's answer."""
    page.goto(path)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    return hook(site, page.locator('input[name="captcha_challenge"]').input_value())


def centre(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=12)
    page.mouse.up()


def solve_in_browser(page: Page, kind: str, expected: dict[str, Any]) -> None:
    """Do what a person would: drag, click or type using the known answer."""
    solution = expected["solution"]
    answer_field = page.locator('input[name="captcha_answer"]')
    if kind == "slider_puzzle":
        x, y = centre(page, ".slider-handle")
        drag(page, (x, y), (x + solution["gap_x"], y))
        assert abs(int(answer_field.input_value()) - solution["gap_x"]) <= 1
        piece = page.locator(".captcha-piece").bounding_box()
        bg = page.locator(".captcha-bg").bounding_box()
        assert piece and bg and abs(piece["x"] - bg["x"] - solution["gap_x"]) <= 1  # the piece followed
    elif kind == "drag_end":
        bg = page.locator(".captcha-bg").bounding_box()
        assert bg
        tx, ty = solution["target"]
        drag(page, centre(page, ".drag-item"), (bg["x"] + tx, bg["y"] + ty))
        ax, ay = (int(v) for v in answer_field.input_value().split(","))
        assert math.dist((ax, ay), (tx, ty)) <= 2
    elif kind in ("icon_click", "text_click"):
        bg = page.locator(".captcha-bg").bounding_box()
        assert bg
        for x0, y0, x1, y1 in solution["boxes"]:
            page.mouse.click(bg["x"] + (x0 + x1) / 2, bg["y"] + (y0 + y1) / 2)
        assert page.locator(".captcha-marker").count() == 3
    elif kind == "image_rotation":
        travel = page.evaluate("() => { const t = document.querySelector('.slider-track');"
                               " return t.clientWidth - t.querySelector('.slider-handle').offsetWidth; }")
        x, y = centre(page, ".slider-handle")
        drag(page, (x, y), (x + solution["angle"] / 360 * travel, y))
        assert abs(float(answer_field.input_value()) - solution["angle"]) <= 3
        transform = page.locator(".captcha-rotate").evaluate("img => img.style.transform")
        assert transform.startswith("rotate(")
    elif kind == "oneclick_login":
        from playwright.sync_api import expect

        checkbox = page.get_by_role("checkbox", name="I am human")
        checkbox.click()
        expect(page.get_by_text("Verifying…")).to_be_visible()
        expect(checkbox).to_have_attribute("aria-checked", "true")
        assert answer_field.input_value() == expected["answer"]
    elif kind == "ocr":
        page.get_by_label("Enter the characters shown").fill(expected["answer"].lower())
    else:
        page.get_by_role("textbox").fill(expected["answer"])


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_browser_solves_widget(page: Page, site: str, kind: str) -> None:
    from playwright.sync_api import expect

    expected = open_widget(page, site, f"/captcha/{kind}")
    group = page.get_by_role("group", name="Security check")
    expect(group.get_by_role("button", name="New challenge")).to_be_visible()
    group.screenshot(path=f"/tmp/captcha_{kind}.png")
    solve_in_browser(page, kind, expected)
    group.screenshot(path=f"/tmp/captcha_{kind}_solved.png")
    confirm = {"icon_click": "Confirm", "text_click": "确认"}.get(kind, "Verify")
    page.get_by_role("button", name=confirm, exact=True).click()
    expect(page.get_by_role("status")).to_have_text("Verified")


@pytest.mark.parametrize("kind", INTERACTIVE)
def test_browser_refresh_then_solve(page: Page, site: str, kind: str) -> None:
    from playwright.sync_api import expect

    first = open_widget(page, site, f"/captcha/{kind}")
    old_id = page.locator('input[name="captcha_challenge"]').input_value()
    page.get_by_role("button", name="New challenge").click()
    expect(page.locator('input[name="captcha_challenge"]')).not_to_have_value(old_id)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    expected = hook(site, page.locator('input[name="captcha_challenge"]').input_value())
    assert expected["type"] == first["type"] == kind
    solve_in_browser(page, kind, expected)  # the fresh box is wired too
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("status")).to_have_text("Verified")


def test_browser_wrong_slider_fails_then_login_with_checkbox(page: Page, site: str) -> None:
    from playwright.sync_api import expect

    expected = open_widget(page, site, "/captcha/slider_puzzle")
    x, y = centre(page, ".slider-handle")
    gap = expected["solution"]["gap_x"]
    drag(page, (x, y), (x + (gap - 40 if gap > 110 else gap + 40), y))
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("alert")).to_have_text("Failed")
    expect(page.get_by_role("slider", name="Slide to complete the puzzle")).to_be_visible()

    open_widget(page, site, "/login?captcha=oneclick_login")
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo-password")
    page.get_by_role("checkbox", name="I am human").click()
    expect(page.get_by_role("checkbox", name="I am human")).to_have_attribute("aria-checked", "true")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/expenses/new$"))
