"""Errors services raise; the API turns them into its one error shape."""

from __future__ import annotations


class ServiceError(Exception):
    """Base for errors a user can act on. `code` is stable, `message` is for people."""

    code = "error"
    status = 400

    def __init__(self, message: str, *, fields: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}


class InvalidInput(ServiceError):
    code = "invalid"


class Conflict(ServiceError):
    code = "conflict"
    status = 409


class PermissionDenied(ServiceError):
    code = "permission_denied"
    status = 403


class PayloadTooLarge(ServiceError):
    """A request body over the size the server accepts (DATA_UPLOAD_MAX_MEMORY_SIZE)."""

    code = "too_large"
    status = 413
