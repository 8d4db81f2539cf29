"""The API's authentication (bearer and token keywords, revoked tokens, deactivated users) and its
OpenAPI document, shown on the automations endpoint."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.api.conftest import assert_error

LIST = "/api/automations/"


# --- authentication ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_request_without_credentials_is_rejected_with_401_and_the_error_shape(personas):
    response = APIClient().get(LIST)
    error = assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert error["fields"] == {}


@pytest.mark.django_db
def test_unknown_bearer_token_is_rejected_with_401(personas):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer vrpa_not-a-real-token")
    assert_error(client.get(LIST), 401, "authentication_failed")


@pytest.mark.django_db
def test_malformed_authorization_header_is_rejected_with_401(personas):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer two parts")
    assert_error(client.get(LIST), 401, "authentication_failed")


@pytest.mark.django_db
def test_revoked_token_is_rejected_with_401_while_a_live_one_works(personas):
    from venus_rpa.accounts.models import ApiToken
    from venus_rpa.accounts.services import api_token_create

    token, raw = api_token_create(workspace=personas.workspace, user=personas.owner, name="ci")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(LIST).status_code == 200

    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert_error(client.get(LIST), 401, "authentication_failed")


@pytest.mark.django_db
def test_token_of_a_deactivated_user_is_rejected_with_401(personas):
    client = personas.client(personas.owner)
    personas.owner.is_active = False
    personas.owner.save()
    assert_error(client.get(LIST), 401, "authentication_failed")


@pytest.mark.django_db
def test_token_keyword_is_accepted_as_well_as_bearer(personas):
    from venus_rpa.accounts.services import api_token_create

    _, raw = api_token_create(workspace=personas.workspace, user=personas.owner, name="ci")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert client.get(LIST).status_code == 200


# --- OpenAPI -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_openapi_schema_is_served_and_describes_the_automations_endpoint(owner):
    response = owner.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert "/api/automations/" in document["paths"]
    assert "/api/runs/{run_id}/cancel/" in document["paths"]


@pytest.mark.django_db
def test_openapi_schema_default_format_mentions_automations(owner):
    response = owner.get("/api/schema/")
    assert response.status_code == 200
    assert "/api/automations/" in response.content.decode()
