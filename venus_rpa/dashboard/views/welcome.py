"""The sign-up page of an invited member (`member_invite`): they choose a password and are signed in.

Django's password-reset confirmation does the work: the link's token (`default_token_generator`)
moves into the session and the browser goes on to a URL without it (no token in Referer or
history); the password passes settings.AUTH_PASSWORD_VALIDATORS (SetPasswordForm). The token ends
after settings.PASSWORD_RESET_TIMEOUT, and once the password is set (it depends on the password
hash and last_login). A wrong, used or expired link, and one naming nobody, get the same 400 page.
"""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import reverse_lazy

INVALID_LINK = "This link has expired or was used: ask your workspace owner for a new one."


class WelcomeView(auth_views.PasswordResetConfirmView):
    template_name = "registration/welcome.html"
    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    success_url = reverse_lazy("dashboard:home")
    title = "Choose your password"

    def render_to_response(self, context, **kwargs):
        if not self.validlink:
            kwargs["status"] = 400
            context["invalid_message"] = INVALID_LINK
        return super().render_to_response(context, **kwargs)


welcome = WelcomeView.as_view()
