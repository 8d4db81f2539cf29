"""Template context shared by every practice page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


# The signed-in navigation bar: (path, link text). "Order history" is a benign look-alike of
# the shop's consequential pages, "Account" and "Security" lead to settings with risky buttons.
NAV_LINKS = (
    ("/expenses", "Expenses"), ("/shop", "Shop"), ("/shop/cart", "Cart"), ("/shop/orders", "Order history"),
    ("/messages", "Messages"), ("/docs", "Documents"), ("/account", "Account"), ("/security", "Security"),
)


def current_user(request: HttpRequest) -> dict[str, Any]:
    """Expose the signed-in username (or None) so the header can show "Sign out", and the nav links."""
    user = request.session.get("user")
    # The current section is the longest link path that is the page's path or a folder of it.
    matches = [href for href, _ in NAV_LINKS if request.path == href or request.path.startswith(href + "/")]
    current = max(matches, key=len, default=None)
    links = [{"href": href, "label": label, "current": href == current} for href, label in NAV_LINKS]
    return {"current_user": user, "nav_links": links if user else []}
