"""The explicit step schema, parameter templating and secret handling (no browser)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from workers import steps as S
from workers.errors import StepError
from workers.egress import domain_allowed
from workers.secrets import Credential, SecretBox

STEP = TypeAdapter(S.Step)


def parse(data: dict):
    return STEP.validate_python(data)


# --- schema ----------------------------------------------------------------------------


def test_a_string_target_means_the_element_with_that_text():
    step = parse({"kind": "click", "target": "Sign in"})
    assert isinstance(step, S.ClickStep)
    assert step.target == S.Target(text="Sign in")


def test_an_object_target_is_kept_as_given():
    step = parse({"kind": "click", "target": {"role": "button", "name": "Save", "nth": 1}})
    assert step.target == S.Target(role="button", name="Save", nth=1)


def test_a_list_of_steps_validates_each_by_kind():
    steps = S.STEPS.validate_python(
        [
            {"kind": "goto", "url": "/login"},
            {"kind": "fill", "target": "Username", "value": "demo"},
            {"kind": "click", "target": "Sign in"},
        ]
    )
    assert [type(s) for s in steps] == [S.GotoStep, S.FillStep, S.ClickStep]


VALID_STEPS = [
    {"kind": "goto", "url": "/login"},
    {"kind": "click", "target": "Next"},
    {"kind": "fill", "target": "Title", "value": ""},
    {"kind": "select", "target": "Category", "option": "Meals"},
    {"kind": "check", "target": "I confirm"},
    {"kind": "upload", "target": "Receipt", "filename": "r.txt"},
    {"kind": "press", "key": "Enter"},
    {"kind": "wait_for", "text": "Data loaded"},
    {"kind": "assert", "url_contains": "/expenses"},
    {"kind": "extract", "target": "Price", "into": "price"},
    {"kind": "agent", "goal": "Find the cheapest mug"},
]


@pytest.mark.parametrize("data", VALID_STEPS, ids=[d["kind"] for d in VALID_STEPS])
def test_each_kind_validates_with_its_required_fields(data):
    step = parse(data)
    assert step.kind == data["kind"]
    assert step.name == ""


MISSING_REQUIRED = [
    ({"kind": "goto"}, "url"),
    ({"kind": "goto", "url": ""}, "url"),
    ({"kind": "click"}, "target"),
    ({"kind": "fill", "target": "Title"}, "value"),
    ({"kind": "fill", "value": "x"}, "target"),
    ({"kind": "select", "target": "Category"}, "option"),
    ({"kind": "select", "target": "Category", "option": ""}, "option"),
    ({"kind": "check"}, "target"),
    ({"kind": "upload", "target": "Receipt"}, "filename"),
    ({"kind": "press"}, "key"),
    ({"kind": "extract", "target": "Price"}, "into"),
    ({"kind": "extract", "into": "price"}, "target"),
    ({"kind": "agent"}, "goal"),
]


@pytest.mark.parametrize(("data", "field"), MISSING_REQUIRED, ids=[f"{d['kind']}-{f}" for d, f in MISSING_REQUIRED])
def test_each_kind_rejects_a_missing_required_field(data, field):
    with pytest.raises(ValidationError) as info:
        parse(data)
    assert field in str(info.value)


def test_defaults_of_optional_fields():
    assert parse({"kind": "check", "target": "x"}).checked is True
    upload = parse({"kind": "upload", "target": "Receipt", "filename": "r.txt"})
    assert (upload.content, upload.mime_type) == ("", "text/plain")
    assert parse({"kind": "press", "key": "Enter"}).target is None
    extract = parse({"kind": "extract", "target": "Price", "into": "price"})
    assert (extract.attribute, extract.all, extract.pattern) == ("text", False, None)
    assert parse({"kind": "click", "target": "x"}).timeout_s == 10.0
    assert parse({"kind": "agent", "goal": "x"}).timeout_s == 300.0


@pytest.mark.parametrize("kind", ["wait_for", "assert"])
def test_wait_for_and_assert_need_a_condition(kind):
    with pytest.raises(ValidationError, match=f"{kind} needs a target, text or url_contains"):
        parse({"kind": kind})
    with pytest.raises(ValidationError):
        parse({"kind": kind, "text": "", "absent": True} if kind == "assert" else {"kind": kind, "text": ""})
    for condition in ({"text": "Done"}, {"url_contains": "/done"}, {"target": "Done"}):
        step = parse({"kind": kind, **condition})
        assert step.kind == kind
    assert parse({"kind": "wait_for", "target": "Done"}).target == S.Target(text="Done")


@pytest.mark.parametrize("into", ["price", "_x", "Total_2"])
def test_extract_into_accepts_identifiers(into):
    assert parse({"kind": "extract", "target": "Price", "into": into}).into == into


@pytest.mark.parametrize("into", ["2price", "unit-price", "unit price", "", "préix", "a.b"])
def test_extract_into_must_be_an_identifier(into):
    with pytest.raises(ValidationError):
        parse({"kind": "extract", "target": "Price", "into": into})


def test_extract_attribute_is_text_or_value():
    assert parse({"kind": "extract", "target": "x", "into": "v", "attribute": "value"}).attribute == "value"
    with pytest.raises(ValidationError):
        parse({"kind": "extract", "target": "x", "into": "v", "attribute": "href"})


@pytest.mark.parametrize("data", [{"kind": "scroll"}, {"kind": "Click", "target": "x"}, {"target": "x"}])
def test_unknown_or_missing_kind_is_rejected(data):
    with pytest.raises(ValidationError):
        parse(data)


def test_extra_fields_on_a_step_are_rejected():
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        parse({"kind": "click", "target": "x", "selector": "#x"})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        parse({"kind": "click", "target": {"text": "x", "xpath": "//a"}})


def test_timeouts_are_bounded():
    with pytest.raises(ValidationError):
        parse({"kind": "click", "target": "x", "timeout_s": 0})
    with pytest.raises(ValidationError):
        parse({"kind": "click", "target": "x", "timeout_s": 301})
    assert parse({"kind": "agent", "goal": "g", "timeout_s": 3600}).timeout_s == 3600


@pytest.mark.parametrize("data", [{}, {"nth": 1}, {"name": "Save"}, {"text": ""}])
def test_a_target_that_names_nothing_is_rejected(data):
    with pytest.raises(ValidationError, match="a target needs"):
        S.Target(**data)


def test_target_rejects_negative_nth_and_unknown_roles():
    with pytest.raises(ValidationError):
        S.Target(text="Save", nth=-1)
    with pytest.raises(ValidationError):
        S.Target(role="blink")


def test_target_describe_names_the_most_specific_way():
    assert S.Target(role="button", name="Save").describe() == "button 'Save'"
    assert S.Target(role="heading").describe() == "heading"
    assert S.Target(label="Username").describe() == "label 'Username'"
    assert S.Target(text="Sign in").describe() == "'Sign in'"
    assert S.Target(css="#price").describe() == "css '#price'"


def test_automation_spec_defaults_and_limits():
    spec = S.AutomationSpec.model_validate({"steps": [{"kind": "goto", "url": "/"}]})
    assert spec.surface == "web"
    assert spec.limits.max_steps == 100 and spec.limits.max_seconds == 600
    assert spec.success_criteria.output_valid is True
    with pytest.raises(ValidationError):
        S.AutomationSpec.model_validate({"limits": {"max_steps": 0}})
    with pytest.raises(ValidationError):
        S.AutomationSpec.model_validate({"surface": "mainframe"})


# --- templating ------------------------------------------------------------------------


def test_render_fills_params_with_or_without_spaces():
    assert S.render("Hello {{name}} and {{ name }}, #{{n}}", {"name": "Ada", "n": 3}) == "Hello Ada and Ada, #3"


def test_render_leaves_credential_placeholders_alone():
    text = "{{credentials.acme.password}} / {{ credentials.acme-sso.username }}"
    assert S.render(text, {}) == text


def test_render_missing_param_raises_key_error_naming_it():
    with pytest.raises(KeyError) as info:
        S.render("{{present}} {{absent}}", {"present": 1})
    assert info.value.args[0] == "absent"


def test_template_params_lists_params_but_not_credentials():
    text = "{{a}} {{ b }} {{credentials.acme.password}} {{a}}"
    assert S.template_params(text) == {"a", "b"}


def test_render_step_fills_every_string_field_but_keeps_the_credential_placeholder():
    step = parse({"kind": "fill", "name": "Type {{field}}", "target": {"label": "{{field}}"},
                  "value": "{{credentials.acme.password}}"})
    rendered = S.render_step(step, {"field": "Password"})
    assert isinstance(rendered, S.FillStep)
    assert rendered.name == "Type Password"
    assert rendered.target == S.Target(label="Password")
    assert rendered.value == "{{credentials.acme.password}}"
    # The original is untouched.
    assert step.target.label == "{{field}}"


def test_render_step_fills_params_mixed_with_credentials():
    step = parse({"kind": "fill", "target": "Username", "value": "{{prefix}}-{{credentials.acme.username}}"})
    assert S.render_step(step, {"prefix": "ops"}).value == "ops-{{credentials.acme.username}}"


def test_render_step_revalidates_and_keeps_non_string_fields():
    step = parse({"kind": "extract", "target": {"css": "li", "nth": 2}, "into": "item", "all": True,
                  "timeout_s": 2.5})
    rendered = S.render_step(step, {})
    assert rendered == step


def test_render_step_with_a_missing_param_raises_key_error():
    step = parse({"kind": "goto", "url": "/expenses/{{reference}}"})
    with pytest.raises(KeyError) as info:
        S.render_step(step, {"other": "x"})
    assert info.value.args[0] == "reference"


def test_step_strings_collects_every_string():
    step = parse({"kind": "fill", "name": "n", "target": {"label": "L"}, "value": "{{credentials.a.b}}"})
    assert set(S.step_strings(step)) >= {"n", "L", "{{credentials.a.b}}", "fill"}


def test_secret_re_captures_name_and_field():
    match = S.SECRET_RE.search("x {{ credentials.acme-sso_2.password }} y")
    assert match.groups() == ("acme-sso_2", "password")


# --- secrets ---------------------------------------------------------------------------


@pytest.fixture
def box() -> SecretBox:
    return SecretBox(
        {
            "acme": Credential("acme", {"username": "demo", "password": "demo-password"}, domains=["acme.example"]),
            "local": Credential("local", {"password": "hunter22"}, domains=["127.0.0.1"]),
        }
    )


def test_reveal_substitutes_on_the_credentials_domain(box):
    text = "{{credentials.acme.username}}:{{ credentials.acme.password }}"
    assert box.reveal(text, url="https://acme.example/login") == "demo:demo-password"
    assert box.reveal("{{credentials.acme.password}}", url="https://sso.acme.example:8443/x") == "demo-password"
    assert box.reveal("{{credentials.local.password}}", url="http://127.0.0.1:8000/login") == "hunter22"


def test_reveal_leaves_text_without_placeholders_unchanged(box):
    assert box.reveal("plain {{param}} text", url="https://evil.example/") == "plain {{param}} text"


@pytest.mark.parametrize("url", ["https://evil.example/login", "https://acme.example.evil.net/", "https://notacme.example/",
                                 "about:blank"])
def test_reveal_refuses_another_domain(box, url):
    with pytest.raises(StepError, match="may only be typed on acme.example") as info:
        box.reveal("{{credentials.acme.password}}", url=url)
    assert "demo-password" not in str(info.value)


def test_reveal_refuses_unknown_credentials_and_fields(box):
    with pytest.raises(StepError, match="credential 'bank' is not attached"):
        box.reveal("{{credentials.bank.password}}", url="https://acme.example/")
    with pytest.raises(StepError, match="credential 'acme' has no field 'pin'"):
        box.reveal("{{credentials.acme.pin}}", url="https://acme.example/")


def test_a_credential_without_domains_is_typed_nowhere_even_on_the_automations_domains():
    # Saved before domains were required: it must not fall back to the automation's domains.
    box = SecretBox({"any": Credential("any", {"token": "t0ken"})}, default_domains=["example.com"])
    with pytest.raises(StepError, match="has no domains, so it may not be typed on any site"):
        box.reveal("{{credentials.any.token}}", url="https://app.example.com/")
    with pytest.raises(StepError, match="has no domains"):
        SecretBox({"any": Credential("any", {"token": "t0ken"})}).reveal("{{credentials.any.token}}",
                                                                         url="https://anything.example/")


def test_scrub_hides_every_secret_value_but_not_usernames(box):
    text = "login demo / demo-password failed; retry with hunter22"
    scrubbed = box.scrub(text)
    assert "demo-password" not in scrubbed and "hunter22" not in scrubbed
    # Usernames are identifiers shown on pages anyway; masking them would garble ordinary text.
    assert scrubbed == "login demo / •••• failed; retry with ••••"


def test_scrub_keeps_very_short_values_and_clean_text():
    box = SecretBox({"x": Credential("x", {"pin": "42", "empty": ""})})
    assert box.scrub("answer 42") == "answer 42"
    assert SecretBox().scrub("nothing to hide") == "nothing to hide"


# --- domain_allowed ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "domains"),
    [
        ("example.com", ["example.com"]),
        ("a.example.com", ["example.com"]),
        ("a.b.example.com", ["example.com"]),
        ("Shop.Example.COM", ["example.com"]),
        ("example.com.", ["example.com"]),
        ("a.example.com", ["other.org", "example.com"]),
        ("a.example.com", ["*.example.com"]),
        ("a.example.com", [" EXAMPLE.com. "]),
        ("127.0.0.1", ["127.0.0.1"]),
    ],
)
def test_domain_allowed_the_domain_and_its_subdomains(host, domains):
    assert domain_allowed(host, domains)


@pytest.mark.parametrize(
    ("host", "domains"),
    [
        ("badexample.com", ["example.com"]),
        ("example.com.evil.net", ["example.com"]),
        ("example.com", ["a.example.com"]),
        ("example.org", ["example.com"]),
        ("example.com", []),
        ("example.com", ["", "*."]),
        ("", ["example.com"]),
    ],
)
def test_domain_allowed_refuses_other_hosts(host, domains):
    assert not domain_allowed(host, domains)
