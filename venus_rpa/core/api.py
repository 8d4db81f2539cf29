"""The API's one error shape: {"error": {"code", "message", "fields"}}."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from venus_rpa.core.errors import PayloadTooLarge, ServiceError


def _flatten(detail) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if isinstance(value, dict):
                for sub, msgs in _flatten(value).items():
                    out[f"{key}.{sub}"] = msgs
            else:
                out[str(key)] = [str(v) for v in (value if isinstance(value, list) else [value])]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(v) for v in detail]}
    return {}


def error_response(code: str, message: str, http_status: int, fields: dict | None = None) -> Response:
    return Response({"error": {"code": code, "message": message, "fields": fields or {}}}, status=http_status)


def exception_handler(exc, context):
    """DRF's handler, answering in the one error shape. None (Django's handler500, JSON under
    /api/ too: core.views) for exceptions nobody anticipated."""
    if isinstance(exc, RequestDataTooBig):  # a form body read through request.POST
        exc = PayloadTooLarge("The request body is too large.")
    if isinstance(exc, ServiceError):
        return error_response(exc.code, exc.message, exc.status, exc.fields)
    if isinstance(exc, Http404):
        return error_response("not_found", "Not found.", status.HTTP_404_NOT_FOUND)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        return error_response("invalid", "The request has invalid fields.", response.status_code, fields)
    detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
    code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
    response.data = {"error": {"code": code if isinstance(code, str) else "error", "message": str(detail), "fields": {}}}
    return response
