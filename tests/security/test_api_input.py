"""Reproduction 9 (overflowing ids and limits) and the strict request bodies of the API contract:
every bad query or body is a 400 in the one error shape, never a 500 or a silent default."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from tests.api.conftest import (  # noqa: F401  (fixtures)
    automation, definition, fast_password_hasher, owner, practice_credential,
)

HUGE = [str(10**30), str(2**63)]


@pytest.fixture
def run_(automation, personas):
    """A run, so that lists are not empty and reach the database's LIMIT/OFFSET."""
    from venus_rpa.runs.services import run_start

    return run_start(automation=automation, params={}, user=personas.owner)


@pytest.mark.django_db
@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize("path", ["/api/runs/", "/api/reviews/", "/api/callbacks/deliveries/"])
@pytest.mark.parametrize("param", ["limit", "offset"])
def test_a_huge_limit_or_offset_is_a_400_naming_the_parameter(owner, run_, path, param, value):
    error = assert_error(owner.get(path, {param: value}), 400, "invalid")
    assert list(error["fields"]) == [param]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["0", "-1", "201", "ten", "1.5", ""])
def test_a_limit_outside_1_to_200_is_refused_not_replaced(owner, run_, value):
    assert_error(owner.get("/api/runs/", {"limit": value}), 400, "invalid")


@pytest.mark.django_db
def test_pages_hold_at_most_200_and_say_how_to_go_on(owner, run_):
    body = owner.get("/api/runs/", {"limit": "200"}).json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 1 and len(body["results"]) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("value", HUGE + ["0", "-3", "x"])
@pytest.mark.parametrize("param", ["run", "endpoint"])
def test_an_id_filter_the_database_cannot_hold_is_a_400(owner, run_, param, value):
    error = assert_error(owner.get("/api/callbacks/deliveries/", {param: value}), 400, "invalid")
    assert list(error["fields"]) == [param]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/runs/{}/", "/api/reviews/{}/", "/api/schedules/{}/", "/api/webhooks/{}/",
                                  "/api/callbacks/{}/", "/api/callbacks/deliveries/{}/", "/api/runs/{}/cancel/"])
@pytest.mark.parametrize("value", HUGE)
def test_a_huge_path_id_is_not_found(owner, run_, path, value):
    url = path.format(value)
    response = owner.post(url) if url.endswith("cancel/") else owner.get(url)
    assert_error(response, 404)


@pytest.mark.django_db
@pytest.mark.parametrize("query", [{"status": "nonsense"}, {"status": ""}, {"trigger": "pigeon"},
                                   {"automation": "not a slug"}])
def test_run_filters_are_validated(owner, run_, query):
    assert_error(owner.get("/api/runs/", query), 400, "invalid")


@pytest.mark.django_db
@pytest.mark.parametrize("body, field", [
    ({"url": "http://127.0.0.1:9/", "enabled": "yes"}, "enabled"),
    ({"url": 42}, "url"),
    ({"url": "http://127.0.0.1:9/", "colour": "red"}, "colour"),
])
def test_bodies_must_have_the_documented_json_types_and_keys(owner, body, field):
    error = assert_error(owner.post("/api/callbacks/", body, format="json"), 400, "invalid")
    assert field in error["fields"]


@pytest.mark.django_db
def test_a_number_is_not_taken_for_a_string(owner, automation):
    response = owner.patch(f"/api/automations/{automation.slug}/", {"description": 123}, format="json")
    assert assert_error(response, 400, "invalid")["fields"] == {"description": ["Must be a string."]}


@pytest.mark.django_db
def test_run_params_with_unpaired_surrogates_are_refused(owner, automation):
    response = owner.post(f"/api/automations/{automation.slug}/runs/", '{"params": {"title": "\\ud83d"}}',
                          content_type="application/json")
    assert response.status_code == 400, response.content


@pytest.mark.django_db
def test_an_unknown_key_that_is_not_unicode_is_named_safely(owner):
    response = owner.post("/api/callbacks/", '{"url": "http://127.0.0.1:9/", "\\udc00x": 1}',
                          content_type="application/json")
    assert "\\udc00x" in assert_error(response, 400, "invalid")["fields"]


@pytest.mark.django_db
def test_run_params_with_a_nul_character_are_refused(owner, automation):
    response = owner.post(f"/api/automations/{automation.slug}/runs/", '{"params": {"title": "a\\u0000b"}}',
                          content_type="application/json")
    assert_error(response, 400, "invalid")
