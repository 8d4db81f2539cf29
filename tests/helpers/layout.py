"""Where things are on the practice site, measured in real Chromium at the runtime's viewport,
as UI-Venus normalised coordinates (0-1000). Scripted model answers use these, so the agent
clicks where a real model would have to."""

from __future__ import annotations

from playwright.sync_api import sync_playwright

VIEWPORT = {"width": 1280, "height": 800}


def _centre(page, locator) -> tuple[int, int]:
    box = locator.bounding_box()
    assert box is not None
    x = (box["x"] + box["width"] / 2) / VIEWPORT["width"] * 1000
    y = (box["y"] + box["height"] / 2) / VIEWPORT["height"] * 1000
    return round(x), round(y)


def _sign_in(page, base: str, points: dict[str, tuple[int, int]]) -> dict[str, float]:
    """Measure the sign-in controls into `points`, sign in as demo; the Password box in pixels."""
    page.goto(base + "/login")
    for label in ("Username", "Password"):
        points[label] = _centre(page, page.get_by_label(label))
    points["Sign in"] = _centre(page, page.get_by_role("button", name="Sign in"))
    password_box = page.get_by_label("Password").bounding_box()
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo-password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Step 1 of 2").wait_for()
    return password_box


def practice_layout(base: str) -> dict[str, tuple[int, int]]:
    """Centres of the login and expense-form controls."""
    points: dict[str, tuple[int, int]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        _sign_in(page, base, points)
        for label in ("Title", "Amount", "Date", "Category"):
            points[label] = _centre(page, page.get_by_label(label))
        points["Next"] = _centre(page, page.get_by_role("button", name="Next"))
        browser.close()
    return points


def effects_layout(base: str) -> tuple[dict[str, tuple[int, int]], dict[str, float]]:
    """Centres of the sign-in controls and of /lab/effects' "Preview" decoy and "Save draft"
    button, and the Password field's box in viewport pixels (to look for its mask)."""
    points: dict[str, tuple[int, int]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        password_box = _sign_in(page, base, points)
        page.goto(base + "/lab/effects")  # signed in, as the run is (the page header differs)
        points["Preview"] = _centre(page, page.locator("#decoy"))
        points["Save draft"] = _centre(page, page.locator("#save-draft"))
        browser.close()
    return points, password_box


def replay_layout(base: str, email: str) -> dict[str, tuple[int, int]]:
    """Centres on /lab/replay (Email, Continue) and on its confirmation screen in each layout:
    "Save preferences" (original), "Keep these settings" (renamed), "Save moved" (moved). Leaves the site
    on the original layout."""
    import httpx

    points: dict[str, tuple[int, int]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(base + "/lab/replay")
        points["Email"] = _centre(page, page.get_by_label("Email"))
        points["Continue"] = _centre(page, page.get_by_role("button", name="Continue"))
        try:
            for layout, name, key in (("original", "Save preferences", "Save preferences"), ("renamed", "Keep these settings", "Keep these settings"),
                                      ("moved", "Save preferences", "Save moved")):
                httpx.post(base + "/api/lab/replay", json={"layout": layout}).raise_for_status()
                page.goto(f"{base}/lab/replay/confirm?email={email}")
                points[key] = _centre(page, page.get_by_role("button", name=name))
        finally:
            httpx.post(base + "/api/lab/replay", json={"layout": "original"})
        browser.close()
    return points
