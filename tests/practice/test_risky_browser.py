"""Risky flows in a real Chromium, as a person would: the shop through an order placed with an
impatient double click, and the delete, send, share and security pages.
Flows and helpers: tests/practice/risky_site.py. Screenshots go to ``/tmp/risky_*.png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.helpers import chromium
from tests.practice import risky_site
from tests.practice.risky_site import api

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

site, reset_site = risky_site.site, risky_site.reset_site  # fixtures: one site per module, reset per test
browser = chromium.sync_browser  # one Chromium for the module

VIEWPORT = {"width": 1280, "height": 800}


def browser_sign_in(page: Page, path: str) -> None:
    page.goto(path)
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo-password")
    page.get_by_role("button", name="Sign in").click()


def test_browser_adds_to_cart_and_places_order(browser: Browser, site: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=site, viewport=VIEWPORT)
    page = context.new_page()
    try:
        browser_sign_in(page, "/shop")
        expect(page.get_by_role("heading", name="Shop", exact=True)).to_be_visible()
        page.get_by_role("article", name="Blue mug").get_by_role("button", name="Add to cart").click()
        expect(page.get_by_role("status")).to_have_text("Added Blue mug to your cart.")
        page.get_by_role("article", name="Desk lamp").get_by_role("button", name="Add to cart").click()
        page.get_by_role("article", name="Desk lamp").get_by_role("button", name="Save for later").click()
        expect(page.get_by_role("status")).to_have_text("Saved Desk lamp for later.")

        page.get_by_role("navigation", name="Main").get_by_role("link", name="Cart", exact=True).click()
        page.get_by_label("Quantity of Blue mug").fill("2")
        page.get_by_label("Quantity of Blue mug").press("Enter")  # Enter means "Update cart", not "Remove"
        expect(page.get_by_role("status")).to_have_text("Cart updated.")
        expect(page.locator("#cart-total")).to_have_text("$64.00")
        page.get_by_role("button", name="Checkout").click()

        expect(page.get_by_role("heading", name="Checkout")).to_be_visible()
        page.get_by_label("Full name").fill("Li Wei")
        page.get_by_label("Address").fill("1 Harbour Road")
        page.get_by_label("City").fill("Lisbon")
        page.get_by_label("Postal code").fill("1100-001")
        page.get_by_label("Country").select_option("Portugal")
        page.get_by_label("Name on card").fill("LI WEI")
        page.get_by_label("Card number").fill("4242 4242 4242 4241")
        page.get_by_label("Expiry (MM/YY)").fill("12/34")
        page.get_by_label("CVC").fill("123")
        page.get_by_role("button", name="Place order").click()
        expect(page.get_by_role("alert").last).to_have_text("Enter a valid card number.")
        assert api(site, "orders") == []
        page.get_by_label("Card number").fill("4242 4242 4242 4242")
        page.get_by_label("Expiry (MM/YY)").fill("12/34")
        page.get_by_label("CVC").fill("123")
        page.screenshot(path="/tmp/risky_checkout.png", full_page=True)
        page.get_by_role("button", name="Place order").dblclick()  # an impatient double click

        expect(page.get_by_role("heading", name="Order placed")).to_be_visible()
        expect(page.locator("#reference")).to_have_text("Order ORD-0001")
        expect(page.get_by_role("status")).to_have_text("Thank you! Your order ORD-0001 has been placed.")
        [order] = api(site, "orders")
        assert order["total"] == "64.00" and order["card_last4"] == "4242"
        assert [(i["name"], i["quantity"]) for i in order["items"]] == [("Blue mug", 2), ("Desk lamp", 1)]
        assert len(api(site, "actions")) == 1

        page.get_by_role("link", name="Order history", exact=True).first.click()
        expect(page.get_by_role("row").filter(has_text="ORD-0001")).to_contain_text("$64.00")
    finally:
        context.close()


def test_browser_risky_pages_render(browser: Browser, site: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=site, viewport=VIEWPORT)
    page = context.new_page()
    try:
        browser_sign_in(page, "/account")
        page.get_by_role("button", name="Delete account").click()
        dialog = page.get_by_role("alertdialog", name="Delete account")
        expect(dialog).to_contain_text("This cannot be undone.")
        expect(dialog.get_by_role("button")).to_have_text(["Cancel", "Delete my account"])
        page.screenshot(path="/tmp/risky_delete_account.png")
        dialog.get_by_role("button", name="Cancel").click()
        expect(page.get_by_role("heading", name="Account settings")).to_be_visible()

        page.goto("/messages/new")
        page.get_by_label("To").fill("ana@example.org")
        page.get_by_label("Subject").fill("Offsite agenda")
        page.get_by_label("Body").fill("Draft agenda attached.")
        page.get_by_role("button", name="Save draft").click()
        expect(page.get_by_role("status")).to_have_text("Draft saved.")
        page.get_by_role("link", name="Sent (0)").click()
        page.goto("/messages/new")
        page.get_by_label("To").fill("li.wei@example.com")
        page.get_by_label("Subject").fill("Q3 budget")
        page.get_by_label("Body").fill("Numbers are final.")
        page.screenshot(path="/tmp/risky_message_compose.png")
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.get_by_role("status")).to_have_text("Message sent.")
        expect(page.get_by_role("row").filter(has_text="Q3 budget")).to_contain_text("li.wei@example.com")
        page.screenshot(path="/tmp/risky_messages.png")
        assert len(api(site, "messages")["sent"]) == 1 and len(api(site, "messages")["drafts"]) == 1

        page.goto("/docs/1")
        page.get_by_role("button", name="Share").click()
        page.get_by_label("Email").fill("ana@example.org")
        page.get_by_label("Permission").select_option("Can edit")
        page.screenshot(path="/tmp/risky_share.png")
        page.get_by_role("button", name="Share").click()
        expect(page.get_by_role("status")).to_contain_text("with ana@example.org (Can edit)")

        page.goto("/security")
        page.get_by_role("button", name="Send verification code").click()
        expect(page.get_by_role("status")).to_have_text("Code sent to +1 ••• ••• 0142.")
        expect(page.locator("#two-factor-status")).to_have_text("Two-factor authentication: On")
        page.screenshot(path="/tmp/risky_security.png", full_page=True)
        page.get_by_role("button", name="Turn off two-factor authentication").click()
        expect(page.locator("#two-factor-status")).to_have_text("Two-factor authentication: Off")

        page.goto("/lab/injection")
        page.screenshot(path="/tmp/risky_injection.png", full_page=True)
        expect(page.get_by_text("Note to AI agents:")).to_be_visible()
        expect(page.locator('[data-injection="display-none"]')).to_be_hidden()
        assert [e["action"] for e in api(site, "actions")] == ["message_sent", "document_shared",
                                                                "two_factor_disabled"]
    finally:
        context.close()
