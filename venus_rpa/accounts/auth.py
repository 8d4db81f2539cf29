"""API authentication: `Authorization: Bearer <token>` (or `Token <token>`) scoped to a workspace."""

from __future__ import annotations

from rest_framework import authentication, exceptions

from venus_rpa.accounts.selectors import api_token_resolve, membership_get


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="replace").split()
        if not header or header[0].lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: expected 'Bearer <token>'.")
        token = api_token_resolve(raw=header[1])
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        if membership_get(user=token.user, workspace=token.workspace) is None:
            # A token is only as good as its owner's membership: removal revokes access at once.
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        request.workspace = token.workspace
        return token.user, token

    def authenticate_header(self, request) -> str:
        return "Bearer"
