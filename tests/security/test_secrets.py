"""Issue 9, reproductions 2 and 7: secrets stay in the vault.

Unit tests of the one scrubber, templating and the review edit check; then, in a real Chromium
against the practice site, screenshot masking (stored and model-bound images), the `extract`
refusal and a GET form that puts the secret in the URL; then the Django side (recorder, review
titles, callback body) against the real database.
"""

from __future__ import annotations

import asyncio
import base64
import io
import logging
from urllib.parse import quote, quote_plus

import pytest
from PIL import Image

from tests.helpers import runtime
from tests.helpers.runtime import PASSWORD, local_secrets, run_spec, step
from workers import actions as A
from workers import steps as S
from workers.agent import downscale
from workers.captcha.act import widget_shot
from workers.envs.masking import MASK_FILL
from workers.errors import StepError
from workers.runner import StepRecord
from workers.secrets import (
    MASK,
    Credential,
    SecretBox,
    install_log_scrubbing,
    scrubbing_logs,
)

browser = runtime.browser  # one Chromium for the module, with the executor suite's egress settings


def box(*fields: tuple[str, str]) -> SecretBox:
    return SecretBox({"acme": Credential("acme", dict(fields), domains=["127.0.0.1"])})


# --- the scrubber --------------------------------------------------------------------------------


def test_it_scrubs_the_whole_value_everywhere_and_every_fragment_of_four_or_more_in_outputs():
    secrets = box(("password", PASSWORD))
    # Reproduction 2(b): `^(.)` and `^.(.*)$` split the secret in two; in outputs the long part is masked.
    assert secrets.scrub("emo-password", fragments=True) == MASK
    assert secrets.scrub_data({"b": "emo-password"}, fragments=True) == {"b": MASK}
    assert PASSWORD[3:9] not in secrets.scrub(f"x {PASSWORD[3:9]} y", fragments=True)
    assert secrets.scrub(f"Signed in with {PASSWORD}.") == f"Signed in with {MASK}."
    assert secrets.scrub("nothing to see") == "nothing to see"
    # Descriptive text (thoughts, risk reasons) keeps words it shares with a secret, never the secret.
    assert secrets.scrub("Now the password field.", fragments=False) == "Now the password field."
    assert secrets.scrub(f"Typed {PASSWORD}", fragments=False) == f"Typed {MASK}"


def test_it_scrubs_url_encoded_and_base64_forms():
    value = "p@ss w0rd/x!"
    secrets = box(("password", value))
    for text in (quote(value), quote(value, safe=""), quote_plus(value), quote(value, safe="").lower(),
                 base64.b64encode(value.encode()).decode(), base64.urlsafe_b64encode(value.encode()).decode(),
                 base64.b64encode(f"demo:{value}".encode()).decode()):  # a Basic auth header
        scrubbed = secrets.scrub(f"https://h/?q={text}&n=1")
        assert text not in scrubbed and MASK in scrubbed, text


def test_short_secrets_are_scrubbed_whole_only_and_placeholders_stay_readable():
    secrets = box(("pin", "735"), ("code", "x9"))
    assert secrets.scrub("pin 735, 73, x9") == f"pin {MASK}, 73, x9"
    # The placeholder names the field "password" and stays; output text pays the documented price.
    assert box(("password", PASSWORD)).scrub("{{credentials.acme.password}} wordy", fragments=True) == \
        f"{{{{credentials.acme.password}}}} {MASK}y"
    assert box(("password", PASSWORD)).scrub_data({"a": [PASSWORD, 3], "b": {"c": PASSWORD}}) == \
        {"a": [MASK, 3], "b": {"c": MASK}}


def test_it_scrubs_log_lines_written_while_a_run_is_in_progress(caplog):
    install_log_scrubbing()
    secrets = box(("password", PASSWORD))
    with scrubbing_logs(secrets), caplog.at_level(logging.INFO):
        logging.getLogger("venus.test").info("typed %s", PASSWORD)
        try:
            raise ValueError(f"bad {PASSWORD}")
        except ValueError:
            logging.getLogger("venus.test").exception("failed")
    assert PASSWORD not in caplog.text and "emo-pass" not in caplog.text
    assert f"typed {MASK}" in caplog.text


# --- templates (reproduction 7) ------------------------------------------------------------------


def test_parameters_cannot_assemble_a_credential_placeholder():
    with pytest.raises(ValueError, match="credential placeholder"):
        S.render("{{first}}{{last}}}}", {"first": "{", "last": "{credentials.acme.password"})
    with pytest.raises(ValueError, match="may not contain"):
        S.render("{{first}}{{last}}", {"first": "{", "last": "{credentials.acme.password}}"})
    assert S.render("{{user}} {{credentials.acme.password}}", {"user": "{x}"}) == "{x} {{credentials.acme.password}}"


def test_a_fill_with_assembled_placeholders_fails_without_typing(browser):
    spec = S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/login", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "fill", "target": "Username", "value": "{{first}}{{last}}"}]})
    result, recorder, _ = run_spec(browser, spec, params={"first": "{", "last": "{credentials.acme.password}}"})
    assert result.status == "failed" and "may not contain" in result.reason
    assert all(PASSWORD not in (r.error + str(r.action)) for r in recorder.records)


def test_a_reviewer_edit_with_a_tab_inside_the_braces_is_a_new_placeholder():
    from venus_rpa.core.errors import InvalidInput
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.reviews.services import edit_validate

    proposed = {"kind": "fill", "target": {"text": "Username"}, "value": "{{credentials.acme.username}}"}
    review = ReviewRequest(proposed_action=proposed, detail={"editable": ["value"], "action": proposed})
    with pytest.raises(InvalidInput, match="placeholders"):
        edit_validate(review=review, edited={"value": "{{\tcredentials.acme.password}}"})
    with pytest.raises(InvalidInput, match="placeholders"):
        edit_validate(review=review, edited={"value": "{{\ncredentials.other.username }}"})
    assert edit_validate(review=review, edited={"value": "plain"})["value"] == "plain"


# --- card numbers in review titles (reproduction 2(d)) -------------------------------------------


def test_review_titles_show_the_last_four_digits_of_a_card_and_no_cvc():
    from venus_rpa.reviews.services import payment_masked

    title, detail = payment_masked("Type '4000 0566 5566 5556' into the textbox 'Card number'",
                                   {"action": {"value": "4000056655665556"}})
    assert title == "Type '•••• 5556' into the textbox 'Card number'"
    assert detail == {"action": {"value": "•••• 5556"}}
    title, detail = payment_masked("Type '123' into the textbox 'CVC'", {"action": {"value": "123"}})
    assert "123" not in title and detail["action"]["value"] == "•••"
    assert payment_masked("Type '123' into the textbox 'Quantity'", {})[0] == "Type '123' into the textbox 'Quantity'"


@pytest.mark.django_db
def test_filed_reviews_and_the_recently_decided_list_hide_card_numbers(personas, client, settings):
    from tests.reviews.conftest import file_review, make_automation, question
    from venus_rpa.reviews.services import review_expire
    from venus_rpa.runs.models import Run

    automation = make_automation(personas.workspace)
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=automation.current_version,
                             status="awaiting_review")
    action = {"kind": "fill", "target": {"text": "Card number"}, "value": "4000 0566 5566 5556"}
    review = file_review(run, question(action=action, description="Type '4000 0566 5566 5556' into the textbox 'Card number'"))
    assert review.title.endswith("'•••• 5556' into the textbox 'Card number'")
    assert "4000 0566" not in str(review.detail) and review.proposed_action == action
    review_expire(review_id=review.pk)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client.force_login(personas.owner)
    page = client.get("/reviews/")
    assert page.status_code == 200 and b"5566 5556" not in page.content and "•••• 5556" in page.content.decode()


# --- in the browser: masking, extract, GET forms -------------------------------------------------


def masked(jpeg: bytes, rect: dict, *, scale: float = 1.0) -> bool:
    """True if the middle of rect (viewport pixels) is the mask colour in the image."""
    with Image.open(io.BytesIO(jpeg)) as image:
        image = image.convert("RGB")
        xs = [rect["x"] + rect["width"] * f for f in (0.2, 0.5, 0.8)]
        ys = [rect["y"] + rect["height"] * f for f in (0.3, 0.5, 0.7)]
        pixels = [image.getpixel((int(x * scale), int(y * scale))) for x in xs for y in ys]
    return all(max(abs(c - m) for c, m in zip(p, MASK_FILL)) <= 12 for p in pixels)


def test_a_vault_value_typed_into_a_text_field_is_masked_in_stored_and_model_images(browser):
    """Reproduction 2(a): the seeded password typed into the (non-password) Username field."""

    async def body(env, executor):
        await executor.run(step(kind="goto", url="/login"))
        await executor.run(step(kind="fill", target="Username", value="{{credentials.acme.password}}"))
        username = await env.page.get_by_label("Username").bounding_box()
        password = await env.page.get_by_label("Password").bounding_box()
        shot = (await env.observe()).screenshot
        model_image, w, _ = downscale(shot, 640 * 400)  # what the agent loop sends to the model
        heading = await env.page.get_by_role("heading").first.bounding_box()
        return shot, model_image, w, username, password, heading

    shot, model_image, width, username, password, heading = browser.session(body)
    assert masked(shot, username) and masked(shot, password)
    assert not masked(shot, heading)  # the rest of the page is untouched
    assert masked(model_image, username, scale=width / 1280)


def test_a_vault_value_typed_by_the_agent_masks_the_focused_field(browser):
    async def body(env, executor):
        await executor.run(step(kind="goto", url="/login"))
        await env.page.get_by_label("Username").click()
        await env.execute(A.Type(content="{{credentials.acme.password}}"))
        await env.page.get_by_label("Username").evaluate("el => el.blur()")
        return (await env.observe()).screenshot, await env.page.get_by_label("Username").bounding_box()

    shot, rect = browser.session(body)
    assert masked(shot, rect)


def test_a_page_that_echoes_a_typed_vault_value_has_the_echo_masked(browser):
    """Reproduction 2(a), echo: the lookup page shows the account number typed from the vault
    ("Looked up account …") as page text, not in a field."""

    async def body(env, executor):
        await executor.run(step(kind="goto", url="/lab/lookup"))
        await executor.run(step(kind="fill", target="Account number", value="{{credentials.acme.password}}"))
        await executor.run(step(kind="click", target="Look up"))
        await executor.run(step(kind="wait_for", text="Looked up"))
        echo = await env.page.locator("#looked-up").bounding_box()
        heading = await env.page.get_by_role("heading").first.bounding_box()
        return (await env.observe()).screenshot, echo, heading

    shot, echo, heading = browser.session(body)
    assert masked(shot, echo)
    assert not masked(shot, heading)


def test_a_captcha_crop_for_the_model_or_a_person_has_typed_secrets_masked(browser):
    """A CAPTCHA widget cropped next to a field that received a vault value: the crop sent to
    the CAPTCHA model or shown to a person is masked like every other image."""

    async def body(env, executor):
        await executor.run(step(kind="goto", url="/login"))
        await executor.run(step(kind="fill", target="Username", value="{{credentials.acme.password}}"))
        username = await env.page.get_by_label("Username").bounding_box()
        heading = await env.page.get_by_role("heading").first.bounding_box()
        top = min(username["y"], heading["y"])
        widget = {"x": username["x"], "y": top, "width": username["width"],
                  "height": username["y"] + username["height"] - top}
        crop, clip = await widget_shot(env, widget, margin=8, quality=85)
        return crop, clip, username, heading

    crop, clip, username, heading = browser.session(body)

    def inside(rect: dict) -> dict:
        return {**rect, "x": rect["x"] - clip["x"], "y": rect["y"] - clip["y"]}

    assert masked(crop, inside(username))
    assert not masked(crop, inside(heading))  # the crop is the page, not a blank


def test_extract_refuses_a_field_that_holds_a_vault_value(browser):
    """Reproduction 2(b): `^(.)` would return the first character, which no scrubber can catch."""

    async def body(env, executor):
        await executor.run(step(kind="goto", url="/login"))
        await executor.run(step(kind="fill", target="Username", value="{{credentials.acme.password}}"))
        await executor.run(step(kind="fill", target="Password", value="typed-by-hand"))
        errors = []
        for target, pattern in (("Username", "^(.)"), ("Username", "^.(.*)$"), ("Password", None)):
            try:
                await executor.run(step(kind="extract", target=target, attribute="value", into="x", pattern=pattern))
            except StepError as exc:
                errors.append(str(exc))
        return errors

    errors = browser.session(body)
    assert len(errors) == 3 and all("secrets never leave the vault" in e for e in errors)


def test_a_get_form_with_the_secret_keeps_it_out_of_urls_output_and_verdict(browser):
    """Reproduction 2(b)+(c): the lab lookup form sends the typed value in the query string and
    echoes it on the page; split extracts of the echo and every recorded URL stay clean."""
    spec = S.AutomationSpec.model_validate({
        "start_url": browser.base_url + "/lab/lookup", "allowed_domains": ["127.0.0.1"],
        "steps": [
            {"kind": "fill", "target": "Account number", "value": "{{credentials.acme.password}}"},
            {"kind": "click", "target": "Look up"},
            {"kind": "wait_for", "url_contains": "account="},
        ],
        "success_criteria": {"url_contains": "account="},
    })
    result, recorder, _ = run_spec(browser, spec, params={})
    assert result.status == "succeeded", result.reason
    leaks = [r for r in recorder.records if "emo-pa" in f"{r.url}{r.error}{r.output}{r.grounding}"]
    assert not leaks and recorder.records[-1].url.endswith("account=" + MASK)
    assert "emo-pa" not in str(result.verdict) and MASK in result.verdict["evidence"]["url"]

    extract = {**spec.model_dump(), "steps": [*spec.model_dump()["steps"], {
        "kind": "extract", "target": {"css": "#looked-up"}, "into": "rest", "pattern": "^.(.*)$"}]}
    result, recorder, _ = run_spec(browser, S.AutomationSpec.model_validate(extract), params={})
    assert result.status == "failed" and "secrets never leave the vault" in result.reason
    assert "emo-pa" not in str(result.output) + result.reason


# --- the Django side: recorder and callback body -------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_recorder_and_the_callback_body_scrub_what_reaches_them(personas):
    from venus_rpa.automations.services import automation_create, credential_set
    from venus_rpa.runs.execution import DjangoRecorder
    from venus_rpa.runs.models import Run, Step
    from venus_rpa.triggers.services.callbacks import run_payload

    credential_set(workspace=personas.workspace, name="acme", fields={"username": "demo", "password": PASSWORD},
                   domains=["127.0.0.1"])
    automation = automation_create(workspace=personas.workspace, user=None, slug="lookup", name="lookup", definition={
        "start_url": "http://127.0.0.1:8765/lab/lookup", "allowed_domains": ["127.0.0.1"], "credentials": ["acme"],
        "steps": [{"kind": "fill", "target": "Account number", "value": "{{credentials.acme.password}}"}]})
    version = automation.current_version
    url = f"http://127.0.0.1/lab/lookup?account={quote_plus(PASSWORD)}"
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=version, status="failed",
                             status_reason=f"URL {url!r} does not contain 'done'", verdict={"evidence": {"url": url}},
                             output={"rest": PASSWORD[1:]})
    body = str(run_payload(run))
    assert "emo-pass" not in body and MASK in body

    recorder = DjangoRecorder(run.pk, secrets=local_secrets())

    async def record():
        try:
            await recorder.record_step(StepRecord(0, "click", "Look up", {"kind": "click"}, "succeeded", url=url,
                                                  error=f"saw {PASSWORD}", output={"x": PASSWORD[2:]}))
        finally:
            await recorder.close()

    asyncio.run(record())
    saved = Step.objects.get(run=run)
    assert "emo-pass" not in f"{saved.url}{saved.error}{saved.output}" and saved.url.endswith(MASK)

