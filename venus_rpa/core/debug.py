"""What an error report (Django's debug page, error e-mails) may show.

Django's own filter only cleans frame variables when DEBUG is off, and only those a view marked.
This one is always on and also hides, by name, every setting, request header, POST field and
frame variable that looks like a secret, and, by value, our own token and signing-secret formats
and passwords inside URLs. `sensitive_variables` / `sensitive_post_parameters` on the paths that
handle secrets still apply on top.
"""

from __future__ import annotations

import re
from typing import Any

from django.views.debug import SafeExceptionReporterFilter

HIDDEN_NAMES = re.compile(
    r"API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|CREDENTIAL|COOKIE|CSRF|SESSION|CIPHER|FIELD_VALUE",
    flags=re.IGNORECASE,
)
# Raw API tokens and signing secrets (accounts.services.TOKEN_PREFIX, the triggers' SECRET_PREFIX).
SECRET_VALUE = re.compile(r"\b(vrpa_|whsec_|cbsec_)[A-Za-z0-9_\-]+")
URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@/\s]+@")


class VenusExceptionReporterFilter(SafeExceptionReporterFilter):
    """Cleans settings, META, cookies, POST and frame variables whatever DEBUG is."""

    hidden_settings = HIDDEN_NAMES

    def is_active(self, request) -> bool:
        # Also with DEBUG on: a developer's debug page is still a page someone can see.
        return True

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        """Django's name-based cleaning, recursing into containers, plus value-based cleaning."""
        if isinstance(value, str):
            try:
                if self.hidden_settings.search(key):
                    return self.cleansed_substitute
            except TypeError:
                pass
            return self.cleanse_text(str(value))  # str(): lazy strings too
        if isinstance(value, bytes | bytearray):
            cleaned = self.cleanse_text(bytes(value).decode("utf-8", "replace"))
            return value if cleaned == bytes(value).decode("utf-8", "replace") else cleaned
        return super().cleanse_setting(key, value)

    def cleanse_text(self, text: str) -> str:
        """`text` with raw tokens/secrets and URL passwords replaced by stars."""
        text = SECRET_VALUE.sub(lambda m: m.group(1) + self.cleansed_substitute, text)
        return URL_PASSWORD.sub(lambda m: m.group(1) + self.cleansed_substitute + "@", text)

    def get_post_parameters(self, request):
        """POST with marked fields and fields whose name looks secret replaced by stars."""
        post = super().get_post_parameters(request)
        if not post:
            return post
        cleansed = post.copy()
        for name in cleansed:
            if self.hidden_settings.search(name):
                cleansed.setlist(name, [self.cleansed_substitute])
        return cleansed

    def get_traceback_frame_variables(self, request, tb_frame):
        """Each frame's variables after Django's filtering, then cleaned by name and value."""
        return [(name, value if isinstance(value, str) and value == self.cleansed_substitute
                 else self.cleanse_setting(name, value))
                for name, value in super().get_traceback_frame_variables(request, tb_frame)]
