"""The step picker's runtime: targets derived from a clicked element on real Chromium pages, each
verified by the grounder, and the picker job's refusals (a consequential step before the chosen
one, a page outside the allowed domains, a step that fails, a time-out)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from PIL import Image

from tests.runtime.test_grounding import Pages
from workers import steps as S
from workers.envs.browser import BrowserConfig
from workers.envs.pool import BrowserPool
from workers.grounding import locate
from workers.picker import PickFailed, picker_snapshot
from workers.picking import element_map
from workers.secrets import Credential as RuntimeCredential, SecretBox


@pytest.fixture(scope="module")
def pages():
    pages = Pages()
    yield pages
    pages.close()


def mapped(pages: Pages, html: str, purpose: str) -> list[dict]:
    async def body(page, _executor):
        elements = await element_map(page, purpose=purpose, max_height=800)
        # every target the map proposes grounds, with the runtime's own grounder, to an element
        for element in elements:
            if element["target"] and element["count"] == 1:
                await locate(page, S.Target.model_validate(element["target"]), purpose=purpose, timeout_s=1)
        return elements

    return pages.run(html, body)


def element(elements: list[dict], describe: str) -> dict:
    found = [e for e in elements if e["describe"] == describe]
    assert len(found) == 1, [e["describe"] for e in elements]
    return found[0]


TWO_FORMS = """
<section><h2>Log In</h2><form><label>Email address <input name=login_email></label><button>Continue</button></form></section>
<section><h2>Register</h2><form><label>Email address <input name=register_email></label><button>Continue</button></form></section>
"""


def test_a_name_used_in_two_boxes_is_scoped_within_the_box_clicked(pages):
    elements = mapped(pages, TWO_FORMS, "fill")
    register = element(elements, 'input[text] "Email address" (name "register_email") in "Register"')
    assert register["target"] == {"label": "Email address", "within": "Register"}
    assert register["count"] == 1
    assert "matches 2 elements" in register["why"] and "Register" in register["why"]
    login = element(elements, 'input[text] "Email address" (name "login_email") in "Log In"')
    assert login["target"] == {"label": "Email address", "within": "Log In"}
    button = element(mapped(pages, TWO_FORMS, "click"), 'button "Continue" in "Register"')
    assert button["target"] == {"text": "Continue", "within": "Register"} and button["count"] == 1


ICONS = """
<header><h1>Users</h1>
  <button title="More actions"><svg width="16" height="16"><rect width="16" height="16"/></svg></button>
  <button aria-label="Close panel">✕</button>
</header>
"""


def test_an_icon_only_control_is_targeted_by_its_tooltip_or_hidden_name(pages):
    elements = mapped(pages, ICONS, "click")
    more = next(e for e in elements if e["describe"].startswith('button "More actions"'))
    assert more["target"] == {"text": "More actions"} and more["count"] == 1
    close = next(e for e in elements if e["describe"].startswith('button "Close panel"'))
    assert close["target"] == {"text": "Close panel"} and close["count"] == 1


LABELLED = """
<section><h2>Intro</h2><p>Tell us about yourself.</p>
  <a href="#intro"></a>
  <label for="intro">Intro</label><textarea id="intro"></textarea>
  <button>Save</button>
</section>
"""


def test_a_labelled_field_gets_a_fill_target_and_its_label_box(pages):
    elements = mapped(pages, LABELLED, "fill")
    field = next(e for e in elements if e["describe"].startswith('textbox "Intro"') or e["describe"].startswith('textarea "Intro"'))
    assert field["target"] == {"text": "Intro"} and field["count"] == 1
    assert len(field["also"]) == 1  # a click on the label means the field
    save = next(e for e in elements if e["describe"].startswith('button "Save"'))
    assert save["target"] is None and "not something that can be typed into" in save["why"]


ROWS = """
<table><tr><td>Alice</td><td><button>Edit</button></td></tr>
<tr><td>Bob</td><td><button>Edit</button></td></tr></table>
"""


def test_identical_controls_in_rows_are_told_apart_by_the_nearest_text(pages):
    edits = [e for e in mapped(pages, ROWS, "click") if e["describe"].startswith('button "Edit"')]
    assert [e["target"] for e in edits] == [{"text": "Edit", "near": "Alice"}, {"text": "Edit", "near": "Bob"}]
    assert all(e["count"] == 1 for e in edits)


TWINS = '<div><button>Go</button></div><div><button>Go</button></div>'


def test_controls_nothing_tells_apart_fall_back_to_nth_and_say_it_is_fragile(pages):
    gos = [e for e in mapped(pages, TWINS, "click") if e["describe"].startswith('button "Go"')]
    assert [e["target"] for e in gos] == [{"text": "Go", "nth": 0}, {"text": "Go", "nth": 1}]
    assert all(e["count"] == 2 and "breaks if the page's order changes" in e["why"] for e in gos)


# --- the picker job ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def host():
    loop = asyncio.new_event_loop()
    pool = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
    yield loop, pool
    loop.run_until_complete(pool.close())
    loop.close()


def snapshot(host, spec: dict, *, step: int, kind: str = "click", secrets: SecretBox | None = None, timeout_s: float = 60):
    loop, pool = host
    return loop.run_until_complete(picker_snapshot(pool, S.AutomationSpec.model_validate(spec), step=step, kind=kind,
                                                   params={}, secrets=secrets or SecretBox(), timeout_s=timeout_s))


def failure(host, spec: dict, **kwargs) -> str:
    with pytest.raises(PickFailed) as info:
        snapshot(host, spec, **kwargs)
    return str(info.value)


SHOP = SecretBox(credentials={"shop": RuntimeCredential(name="shop", fields={"username": "demo", "password": "demo-password"},
                                                          domains=["127.0.0.1"])})
SIGN_IN = [{"kind": "fill", "target": "Username", "value": "{{credentials.shop.username}}"},
           {"kind": "fill", "target": "Password", "value": "{{credentials.shop.password}}"},
           {"kind": "click", "target": {"role": "button", "name": "Sign in"}}]


def signed_in(practice_url: str, *steps: dict) -> dict:
    return {"start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
            "steps": [*SIGN_IN, *steps]}


def test_the_picker_shows_the_page_after_the_steps_before_the_chosen_one(host, practice_url):
    spec = signed_in(practice_url, {"kind": "goto", "url": "/shop"}, {"kind": "click", "target": "x"})
    shot = snapshot(host, spec, step=4, secrets=SHOP)
    assert shot.url.endswith("/shop") and shot.screenshot[:2] == b"\xff\xd8"
    adds = [e for e in shot.elements if e["describe"].startswith('button "Add to cart"')]
    assert len(adds) > 1 and all(e["count"] == 1 and set(e["target"]) & {"within", "near"} for e in adds), adds


def test_a_typed_secret_is_masked_in_the_picker_screenshot_as_in_runs(host, practice_url):
    shot = snapshot(host, signed_in(practice_url), step=2, secrets=SHOP)  # the password typed, not yet submitted
    field = next(e for e in shot.elements if e["describe"].startswith('input[password] "Password"'))
    x, y, w, h = field["box"]
    with Image.open(io.BytesIO(shot.screenshot)) as image:
        assert image.size == (shot.width, shot.height)
        assert all(c < 40 for c in image.convert("RGB").getpixel((int(x + w / 2), int(y + h / 2))))  # MASK_FILL
    assert "demo-password" not in json.dumps(shot.elements) + shot.url


def test_the_picker_does_not_perform_a_consequential_step(host, practice_url):
    spec = signed_in(practice_url, {"kind": "goto", "url": "/shop"}, {"kind": "click", "target": {"text": "Add to cart", "nth": 0}},
                     {"kind": "goto", "url": "/shop/checkout"},
                     {"kind": "click", "target": {"role": "button", "name": "Place order"}},
                     {"kind": "click", "target": "x"})
    message = failure(host, spec, step=7, secrets=SHOP)
    assert message.startswith("step 7 (click) failed") and "reviewer's approval" in message


def test_the_picker_cannot_reach_a_page_outside_the_allowed_domains(host, practice_url):
    message = failure(host, {"start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
                             "steps": [{"kind": "goto", "url": "http://localhost:9/admin"}]}, step=1)
    assert message.startswith("step 1 (goto) failed") and "localhost" in message and "allowed" in message
    message = failure(host, {"start_url": "http://localhost:9/", "allowed_domains": ["127.0.0.1"]}, step=0)
    assert message.startswith("open the start URL failed")


def test_a_credential_is_not_typed_off_its_domains_and_not_shown(host, practice_url):
    secrets = SecretBox(credentials={"bank": RuntimeCredential(name="bank", fields={"password": "s3cret-Pa55"},
                                                                 domains=["bank.example"])})
    message = failure(host, {"start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
                             "steps": [{"kind": "fill", "target": "Password", "value": "{{credentials.bank.password}}"}]},
                      step=1, secrets=secrets)
    assert message.startswith("step 1 (fill) failed") and "s3cret-Pa55" not in message


def test_a_failing_step_and_a_time_out_say_which_step(host, practice_url):
    spec = {"start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
            "steps": [{"kind": "click", "name": "Open the menu", "target": "No such menu", "timeout_s": 0.5},
                      {"kind": "wait_for", "text": "Never shown", "timeout_s": 60}]}
    message = failure(host, spec, step=1)
    assert message.startswith("step 1 (Open the menu) failed") and "not found" in message
    spec["steps"] = spec["steps"][1:]
    assert failure(host, spec, step=1, timeout_s=2) == "the picker timed out after 2s while doing step 1 (wait_for)"


def test_the_picker_refuses_a_step_in_or_after_a_block(host, practice_url):
    block = {"kind": "if", "condition": {"text_visible": "Sign in"}, "steps": [{"kind": "click", "target": "x"}]}
    spec = {"start_url": practice_url + "/login", "allowed_domains": ["127.0.0.1"],
            "steps": [{"kind": "goto", "url": "/login"}, block, {"kind": "click", "target": "y"}]}
    assert failure(host, spec, step=2) == "step 2 is an 'if' block; the picker works on the steps before the first block"
    assert failure(host, spec, step=1).startswith("step 2 is an 'if' block")
    assert snapshot(host, spec, step=0).url.endswith("/login")  # before the block: as before
