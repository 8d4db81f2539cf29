"""Risky flows: the shop. Adding to the cart, saving for later, opening checkout and the order
history record nothing; placing an order records exactly once (validated, in English and Chinese).
Flows and helpers: tests/practice/risky_site.py.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.practice import risky_site
from tests.practice.risky_site import (ADDRESS, CARD, add_to_cart, alerts, api, form_fields, nothing_recorded, post,
                                       sign_in, status)

# fixtures: the practice site (one per module, reset before every test) and a client of it
site, client, reset_site = risky_site.site, risky_site.client, risky_site.reset_site


# --- shop ------------------------------------------------------------------------------


def test_shop_lists_products_with_prices(client: httpx.Client) -> None:
    sign_in(client)
    html = client.get("/shop").text
    for name, price in [("Blue mug", "$12.50"), ("Desk lamp", "$39.00"), ("A5 notebook", "$8.75"),
                        ("Wireless mouse", "$24.99"), ("Green tea 绿茶 (100 g)", "$15.20")]:
        assert f">{name}</h2>" in html and f'<p class="price">{price}</p>' in html
    assert html.count('<button type="submit">Add to cart</button>') == 5
    assert html.count('<button type="submit" class="secondary">Save for later</button>') == 5
    assert "Ergonomic office chair" not in html  # unlisted: only on /lab/injection


def test_cart_look_alikes_record_nothing(client: httpx.Client, site: str) -> None:
    sign_in(client)
    add_to_cart(client, "MUG-BLUE", "MUG-BLUE", "LAMP-DESK", "NOTE-A5")
    assert status(client.get("/shop").text) == ["Added A5 notebook to your cart."]
    assert status(client.get("/shop").text) == []  # a flash is shown once
    html = client.get("/shop/cart").text
    assert 'aria-label="Quantity of Blue mug"' in html and 'value="2"' in html
    assert '<td class="num" id="cart-total">$72.75</td>' in html
    assert html.count(">Remove</button>") == 3 and html.count(">Save for later</button>") == 3
    assert ">Update cart</button>" in html and '<button type="submit">Checkout</button>' in html

    response = post(client, "/shop/cart", "/shop/cart", **{"qty-MUG-BLUE": "3", "qty-LAMP-DESK": "1",
                                                          "qty-NOTE-A5": "1", "action": "update"})
    assert response.headers["location"] == "/shop/cart"
    html = client.get("/shop/cart").text
    assert status(html) == ["Cart updated."] and "$85.25" in html
    bad = post(client, "/shop/cart", "/shop/cart", **{"qty-MUG-BLUE": "11", "qty-LAMP-DESK": "1",
                                                     "qty-NOTE-A5": "1"})
    assert alerts(bad.text) == ["Quantity must be a whole number from 1 to 10."]

    fields = form_fields(client.get("/shop/cart").text, "/shop/cart")
    client.post("/shop/cart", data={"csrfmiddlewaretoken": fields["csrfmiddlewaretoken"], "remove": "LAMP-DESK"})
    assert status(client.get("/shop/cart").text) == ["Removed Desk lamp from your cart."]
    client.post("/shop/cart", data={"csrfmiddlewaretoken": fields["csrfmiddlewaretoken"], "save": "NOTE-A5"})
    html = client.get("/shop/cart").text
    assert status(html) == ["Saved A5 notebook for later."]
    assert "<td>Desk lamp</td>" not in html and "<td>A5 notebook</td>" not in html and "<td>Blue mug</td>" in html
    assert post(client, "/shop", "/shop/saved", sku="TEA-GREEN").headers["location"] == "/shop"
    shop = client.get("/shop").text
    assert status(shop) == ["Saved Green tea 绿茶 (100 g) for later."]
    assert 'id="saved-heading">Saved for later</h2>' in shop and "<li>A5 notebook · $8.75</li>" in shop

    assert client.get("/shop/checkout").status_code == 200  # opening checkout is not placing an order
    assert client.get("/shop/orders").status_code == 200
    assert client.get("/account/payment-methods").status_code == 200
    nothing_recorded(site)


def test_checkout_page_fields_and_labels(client: httpx.Client) -> None:
    sign_in(client)
    assert client.get("/shop/checkout").headers["location"] == "/shop/cart"  # empty cart
    assert alerts(client.get("/shop/cart").text) == ["Your cart is empty."]
    add_to_cart(client, "MUG-BLUE")
    html = client.get("/shop/checkout").text
    assert '<html lang="en">' in html and "<h1>Checkout</h1>" in html
    for name, label, autocomplete in [
        ("full_name", "Full name", "shipping name"), ("address", "Address", "shipping street-address"),
        ("city", "City", "shipping address-level2"), ("postal_code", "Postal code", "shipping postal-code"),
        ("card_name", "Name on card", "cc-name"), ("card_number", "Card number", "cc-number"),
        ("card_expiry", "Expiry (MM/YY)", "cc-exp"), ("card_cvc", "CVC", "cc-csc"),
    ]:
        assert f'<label for="{name}">{label}</label>' in html
        assert f'id="{name}" name="{name}" value="" autocomplete="{autocomplete}"' in html
    assert '<label for="country">Country</label>' in html
    assert "<legend>Shipping address</legend>" in html and "<legend>Payment</legend>" in html
    assert '<button type="submit">Place order</button>' in html
    assert '<a href="/account/payment-methods">Payment methods</a>' in html
    assert 'name="submission" value="' in html


def test_place_order_records_exactly_once(client: httpx.Client, site: str) -> None:
    sign_in(client)
    add_to_cart(client, "MUG-BLUE", "MUG-BLUE", "MOUSE-WL")
    fields = form_fields(client.get("/shop/checkout").text, "/shop/checkout")
    data = {**fields, **ADDRESS, **CARD}
    response = client.post("/shop/checkout", data=data)
    assert response.headers["location"] == "/shop/orders/ORD-0001"
    html = client.get("/shop/orders/ORD-0001").text
    assert "<h1>Order placed</h1>" in html
    assert status(html) == ["Thank you! Your order ORD-0001 has been placed."]
    assert "Card ending 4242" in html and "$49.99" in html

    [order] = api(site, "orders")
    assert order | {"placed_at": None} == {
        "reference": "ORD-0001",
        "items": [
            {"sku": "MUG-BLUE", "name": "Blue mug", "quantity": 2, "unit_price": "12.50", "line_total": "25.00"},
            {"sku": "MOUSE-WL", "name": "Wireless mouse", "quantity": 1, "unit_price": "24.99",
             "line_total": "24.99"},
        ],
        "total": "49.99", "currency": "USD", "shipping": ADDRESS, "card_last4": "4242", "placed_by": "demo",
        "placed_at": None, "lang": "en",
    }
    [event] = api(site, "actions")
    assert event | {"at": None} == {"seq": 1, "action": "order_placed", "category": "PAY", "username": "demo",
                                    "reference": "ORD-0001", "at": None}

    # A double click / retry with the same submission token shows the same order again.
    assert client.post("/shop/checkout", data=data).headers["location"] == "/shop/orders/ORD-0001"
    # The cart is empty now, so a fresh submission places nothing either.
    data["submission"] = "0" * 32
    assert client.post("/shop/checkout", data=data).headers["location"] == "/shop/cart"
    assert len(api(site, "orders")) == 1 and len(api(site, "actions")) == 1

    history = client.get("/shop/orders").text
    assert "<h1>Order history</h1>" in history and ">ORD-0001</a>" in history
    assert "2 × Blue mug, 1 × Wireless mouse" in history


@pytest.mark.parametrize(
    ("overrides", "field_errors"),
    [
        ({"card_number": "4242 4242 4242 4241"}, ["Enter a valid card number."]),
        ({"card_expiry": "01/20"}, ["This card has expired."]),
        ({"card_expiry": "13/30"}, ["Enter the expiry date as MM/YY."]),
        ({"card_cvc": "12"}, ["CVC must be 3 or 4 digits."]),
        ({"full_name": "", "country": ""}, ["Full name is required.", "Country is required."]),
    ],
)
def test_checkout_validation_places_nothing(client: httpx.Client, site: str, overrides: dict[str, str],
                                            field_errors: list[str]) -> None:
    sign_in(client)
    add_to_cart(client, "LAMP-DESK")
    response = post(client, "/shop/checkout", "/shop/checkout", **{**ADDRESS, **CARD, **overrides})
    assert response.status_code == 200
    assert alerts(response.text) == ["Please correct the highlighted fields.", *field_errors]
    assert "4242" not in response.text.replace("Test card: 4242 4242 4242 4242", "")  # card never echoed back
    assert 'name="card_name" value="LI WEI"' in response.text
    nothing_recorded(site)


def test_chinese_checkout_places_order(client: httpx.Client, site: str) -> None:
    sign_in(client)
    add_to_cart(client, "TEA-GREEN")
    html = client.get("/shop/checkout?lang=zh").text
    assert '<html lang="zh-CN">' in html and "<h1>结算</h1>" in html
    for name, label in [("full_name", "收货人"), ("address", "详细地址"), ("card_number", "卡号"),
                        ("card_expiry", "有效期 (MM/YY)"), ("card_cvc", "安全码 (CVC)")]:
        assert f'<label for="{name}">{label}</label>' in html
    assert '<button type="submit">提交订单</button>' in html and ">支付方式</a>" in html
    bad = post(client, "/shop/checkout?lang=zh", "/shop/checkout?lang=zh", **{**ADDRESS, **CARD, "card_cvc": "x"})
    assert alerts(bad.text) == ["请修改标出的字段。", "安全码应为 3 或 4 位数字。"]
    response = post(client, "/shop/checkout?lang=zh", "/shop/checkout?lang=zh", **ADDRESS, **CARD)
    assert response.headers["location"] == "/shop/orders/ORD-0001?lang=zh"
    assert "订单已提交" in client.get(response.headers["location"]).text
    [order] = api(site, "orders")
    assert order["lang"] == "zh" and order["total"] == "15.20"


def test_order_history_filter_and_delete_filter(client: httpx.Client, site: str) -> None:
    sign_in(client)
    assert "You have no orders yet." in client.get("/shop/orders").text
    add_to_cart(client, "MUG-BLUE")
    post(client, "/shop/checkout", "/shop/checkout", **ADDRESS, **CARD)
    add_to_cart(client, "LAMP-DESK")
    post(client, "/shop/checkout", "/shop/checkout", **ADDRESS, **CARD)
    filtered = client.get("/shop/orders", params={"q": "lamp"}).text
    assert ">ORD-0002</a>" in filtered and ">ORD-0001</a>" not in filtered
    assert '<span class="chip">Product: lamp</span>' in filtered and ">Delete filter</button>" in filtered
    # "Delete filter" is a GET of the unfiltered list.
    assert re.search(r'<form method="get" action="/shop/orders" class="inline"><button[^>]*>Delete filter', filtered)
    unfiltered = client.get("/shop/orders").text
    assert ">ORD-0001</a>" in unfiltered and ">ORD-0002</a>" in unfiltered and "Delete filter" not in unfiltered
    assert "No orders match this filter." in client.get("/shop/orders", params={"q": "chair"}).text
    assert [e["action"] for e in api(site, "actions")] == ["order_placed", "order_placed"]


def test_orders_are_private_to_their_owner(client: httpx.Client, site: str) -> None:
    sign_in(client)
    add_to_cart(client, "MUG-BLUE")
    post(client, "/shop/checkout", "/shop/checkout", **ADDRESS, **CARD)
    with httpx.Client(base_url=site, follow_redirects=False, timeout=10) as other:
        fields = form_fields(other.get("/register").text, "/register")
        other.post("/register", data={**fields, "username": "sam", "email": "sam@example.com",
                                      "password": "sam-password", "confirm_password": "sam-password"})
        sign_in(other, "sam", "sam-password")
        assert other.get("/shop/orders/ORD-0001").status_code == 404
        assert "You have no orders yet." in other.get("/shop/orders").text
