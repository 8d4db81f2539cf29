"""The OpenAPI document's conventions: the error shape on every operation, bearer tokens, paged lists.

`ApiSchema` is DRF's DEFAULT_SCHEMA_CLASS. It adds to each operation the error answers that the
API really gives (see `venus_rpa.core.api`), described with the one error shape, so a client and
schemathesis both know every status code an operation may return:

- 401 and 403 everywhere (no or bad token; no workspace or not the needed role),
- 404 where the path names an object,
- 400 where the operation reads a body or query parameters,
- 413 and 415 where it reads a body (too large; not JSON).

A view lists further answers (409 for a state conflict) with `extend_schema(responses=...)`
and `ERROR_409`.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from venus_rpa.core.serializers import StrictSerializer

ERROR_DESCRIPTIONS = {
    400: "Invalid input: `fields` names each bad field or query parameter.",
    401: "No valid API token or session.",
    403: "The caller may not do this (no workspace, or the role does not allow it).",
    404: "No such object in the caller's workspace.",
    409: "The object is not in a state that allows this.",
    413: "The request body is too large.",
    415: "The request body is not JSON.",
}
BODY_METHODS = {"POST", "PUT", "PATCH"}


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. `invalid`, `not_found`.")
    message = serializers.CharField(help_text="What went wrong, for people.")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="Problems per field or parameter (dotted paths); may be empty.")


class ErrorSerializer(serializers.Serializer):
    """The API's one error shape."""

    error = ErrorDetailSerializer()


ERROR_409 = OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[409])


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """`Authorization: Bearer vrpa_…` (venus_rpa.accounts.auth.ApiTokenAuthentication)."""

    target_class = "venus_rpa.accounts.auth.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Bearer")  # noqa: S106


class ApiSchema(AutoSchema):
    """AutoSchema plus the error answers every operation can give (module docstring)."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for status_code in self._error_statuses():
            code = str(status_code)
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status_code]), code,
                    direction=direction,
                )
        return responses

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and isinstance(serializer, StrictSerializer):
            schema["additionalProperties"] = False
        return schema

    def _error_statuses(self) -> list[int]:
        # A view without authenticators (the signed webhook receiver) documents its own answers.
        statuses = [401, 403] if self.view.get_authenticators() else []
        if "{" in self.path:
            statuses.append(404)
        reads_body = self.method in BODY_METHODS and self.get_request_serializer() is not None
        if reads_body or self._has_query_parameters():
            statuses.append(400)
        if reads_body:
            statuses += [413, 415]
        return sorted(statuses)

    def _has_query_parameters(self) -> bool:
        if self.method != "GET":
            return False
        if self._get_pagination_parameters():
            return True
        return any(getattr(p, "location", None) == "query" or not hasattr(p, "location")
                   for p in self.get_override_parameters())
