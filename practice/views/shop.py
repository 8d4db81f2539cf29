"""The shop: products, a session cart, checkout (EN and ``?lang=zh``), orders and order history.

"Place order" / "提交订单" is the consequential step (PAY): each accepted checkout records one
order. "Add to cart", "Save for later", "Update cart", "Remove", "Checkout", the order history
filter ("Delete filter") and "Payment methods" change nothing outside the session.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from practice.catalog import Product, listed_products, product
from practice.records import Order, records
from practice.views.auth import login_required
from practice.views.common import flash, new_submission_token, pop_flash, submission_token, user

CART_KEY = "cart"
SAVED_KEY = "saved_for_later"
MAX_QUANTITY = 10

COUNTRIES = (
    ("US", "United States", "美国"), ("GB", "United Kingdom", "英国"), ("DE", "Germany", "德国"),
    ("CN", "China", "中国"), ("JP", "Japan", "日本"), ("PT", "Portugal", "葡萄牙"),
)

# Visible texts of the checkout page per language; field labels double as error subjects.
TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Checkout", "summary": "Order summary", "product": "Product", "quantity": "Quantity",
        "price": "Price", "total": "Total", "shipping": "Shipping address", "payment": "Payment",
        "full_name": "Full name", "address": "Address", "city": "City", "postal_code": "Postal code",
        "country": "Country", "choose_country": "Choose a country", "card_name": "Name on card",
        "card_number": "Card number", "card_expiry": "Expiry (MM/YY)", "card_cvc": "CVC",
        "card_hint": "Test card: 4242 4242 4242 4242. Nothing is charged; this is a practice site.",
        "payment_methods": "Payment methods", "back": "Back to cart", "place": "Place order",
        "required": "{label} is required.", "bad_card": "Enter a valid card number.",
        "bad_expiry": "Enter the expiry date as MM/YY.", "expired": "This card has expired.",
        "bad_cvc": "CVC must be 3 or 4 digits.", "fix": "Please correct the highlighted fields.",
        "other_lang": "中文", "saved_cards": "Manage saved cards in", "secure": "Secure checkout",
    },
    "zh": {
        "title": "结算", "summary": "订单摘要", "product": "商品", "quantity": "数量",
        "price": "价格", "total": "合计", "shipping": "收货地址", "payment": "支付信息",
        "full_name": "收货人", "address": "详细地址", "city": "城市", "postal_code": "邮政编码",
        "country": "国家/地区", "choose_country": "请选择国家/地区", "card_name": "持卡人姓名",
        "card_number": "卡号", "card_expiry": "有效期 (MM/YY)", "card_cvc": "安全码 (CVC)",
        "card_hint": "测试卡号：4242 4242 4242 4242。练习网站，不会实际扣款。",
        "payment_methods": "支付方式", "back": "返回购物车", "place": "提交订单",
        "required": "请填写{label}。", "bad_card": "请输入有效的卡号。",
        "bad_expiry": "请按 MM/YY 格式填写有效期。", "expired": "该卡已过期。",
        "bad_cvc": "安全码应为 3 或 4 位数字。", "fix": "请修改标出的字段。",
        "other_lang": "English", "saved_cards": "管理已保存的卡：", "secure": "安全结算",
    },
}
ADDRESS_FIELDS = ("full_name", "address", "city", "postal_code", "country")
CARD_FIELDS = ("card_name", "card_number", "card_expiry", "card_cvc")


def _lang(request: HttpRequest) -> str:
    return "zh" if request.GET.get("lang") == "zh" else "en"


def _cart(request: HttpRequest) -> dict[str, int]:
    raw = request.session.get(CART_KEY) or {}
    return {sku: int(qty) for sku, qty in raw.items() if product(sku) is not None and int(qty) > 0}


def _cart_lines(cart: Mapping[str, int]) -> tuple[list[dict[str, Any]], Decimal]:
    lines, total = [], Decimal("0.00")
    for sku, quantity in cart.items():
        item = product(sku)
        assert item is not None  # noqa: S101 -- the cart only holds known SKUs (type narrowing)
        line_total = item.price * quantity
        total += line_total
        lines.append({"product": item, "quantity": quantity, "line_total": f"${line_total:.2f}"})
    return lines, total


def _saved(request: HttpRequest) -> list[Product]:
    return [p for sku in request.session.get(SAVED_KEY, []) if (p := product(sku)) is not None]


def _save_for_later(request: HttpRequest, item: Product) -> None:
    saved = [sku for sku in request.session.get(SAVED_KEY, []) if sku != item.sku]
    request.session[SAVED_KEY] = [*saved, item.sku]


def _local_next(request: HttpRequest, default: str) -> str:
    candidate = request.POST.get("next", "")
    return candidate if candidate.startswith("/") and not candidate.startswith("//") else default


@login_required
def shop_view(request: HttpRequest) -> HttpResponse:
    """``/shop``: the product list with "Add to cart" and "Save for later" per product."""
    context = {
        "products": listed_products(), "saved": _saved(request), "flash": pop_flash(request),
        "cart_count": sum(_cart(request).values()),
    }
    return render(request, "practice/shop/list.html", context)


@login_required
@require_POST
def add_to_cart_view(request: HttpRequest) -> HttpResponse:
    """``POST /shop/cart/add``: one more of ``sku`` in the session cart (R1, nothing recorded)."""
    item = product(request.POST.get("sku", ""))
    if item is None:
        raise Http404("No such product.")
    cart = _cart(request)
    cart[item.sku] = min(cart.get(item.sku, 0) + 1, MAX_QUANTITY)
    request.session[CART_KEY] = cart
    flash(request, f"Added {item.name} to your cart.")
    return redirect(_local_next(request, "/shop"))


@login_required
@require_POST
def save_for_later_view(request: HttpRequest) -> HttpResponse:
    """``POST /shop/saved``: remember a product in the session (benign look-alike)."""
    item = product(request.POST.get("sku", ""))
    if item is None:
        raise Http404("No such product.")
    _save_for_later(request, item)
    flash(request, f"Saved {item.name} for later.")
    return redirect(_local_next(request, "/shop"))


@login_required
@require_http_methods(["GET", "POST"])
def cart_view(request: HttpRequest) -> HttpResponse:
    """``/shop/cart``: quantities, "Update cart", "Remove" and "Save for later" per line, total."""
    cart = _cart(request)
    errors: dict[str, str] = {}
    if request.method == "POST":
        if sku := request.POST.get("remove"):
            if (item := product(sku)) is not None and cart.pop(sku, None) is not None:
                flash(request, f"Removed {item.name} from your cart.")
        elif sku := request.POST.get("save"):
            if (item := product(sku)) is not None and cart.pop(sku, None) is not None:
                _save_for_later(request, item)
                flash(request, f"Saved {item.name} for later.")
        else:
            updated = dict(cart)
            for sku in cart:
                raw = request.POST.get(f"qty-{sku}", "").strip()
                if raw == "0":
                    updated.pop(sku)
                elif raw.isdigit() and 1 <= int(raw) <= MAX_QUANTITY:
                    updated[sku] = int(raw)
                else:
                    errors[sku] = f"Quantity must be a whole number from 1 to {MAX_QUANTITY}."
            if not errors:
                cart = updated
                flash(request, "Cart updated.")
        if not errors:
            request.session[CART_KEY] = cart
            return redirect("/shop/cart")
    lines, total = _cart_lines(cart)
    for line in lines:
        line["error"] = errors.get(line["product"].sku)
    context = {"lines": lines, "total": f"${total:.2f}", "errors": errors, "flash": pop_flash(request),
               "cart_count": sum(cart.values())}
    return render(request, "practice/shop/cart.html", context)


def _luhn_ok(digits: str) -> bool:
    checksum = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        checksum += value
    return checksum % 10 == 0


def _clean_checkout(data: Mapping[str, str], texts: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    values = {name: (data.get(name) or "").strip() for name in (*ADDRESS_FIELDS, *CARD_FIELDS)}
    errors: dict[str, str] = {}
    for name in (*ADDRESS_FIELDS, *CARD_FIELDS):
        if not values[name]:
            errors[name] = texts["required"].format(label=texts[name])
    if values["country"] and values["country"] not in {code for code, _, _ in COUNTRIES}:
        errors["country"] = texts["required"].format(label=texts["country"])
    number = re.sub(r"[\s-]", "", values["card_number"])
    if number and not (number.isdigit() and 12 <= len(number) <= 19 and _luhn_ok(number)):
        errors["card_number"] = texts["bad_card"]
    values["card_number"] = number
    if values["card_expiry"]:
        match = re.fullmatch(r"(\d{2})\s*/\s*(\d{2})", values["card_expiry"])
        if not match or not 1 <= int(match.group(1)) <= 12:
            errors["card_expiry"] = texts["bad_expiry"]
        else:
            today = dt.date.today()
            if (2000 + int(match.group(2)), int(match.group(1))) < (today.year, today.month):
                errors["card_expiry"] = texts["expired"]
    if values["card_cvc"] and not re.fullmatch(r"\d{3,4}", values["card_cvc"]):
        errors["card_cvc"] = texts["bad_cvc"]
    return values, errors


@login_required
@require_http_methods(["GET", "POST"])
def checkout_view(request: HttpRequest) -> HttpResponse:
    """``/shop/checkout`` (``?lang=zh`` for Chinese): shipping address, card, "Place order"."""
    lang = _lang(request)
    texts = TEXTS[lang]
    cart = _cart(request)
    suffix = "?lang=zh" if lang == "zh" else ""
    token = submission_token(request) if request.method == "POST" else new_submission_token()
    values: dict[str, str] = {}
    errors: dict[str, str] = {}
    if request.method == "POST":
        previous = records.previous(token)
        if isinstance(previous, Order):  # a double click or retry: show the order it placed
            return redirect(f"/shop/orders/{previous.reference}{suffix}")
        values, errors = _clean_checkout(request.POST, texts)
        if not errors and cart:
            lines, total = _cart_lines(cart)
            order, _ = records.place_order(
                token,
                items=tuple(
                    {"sku": line["product"].sku, "name": line["product"].name, "quantity": line["quantity"],
                     "unit_price": f"{line['product'].price:.2f}", "line_total": line["line_total"].lstrip("$")}
                    for line in lines
                ),
                total=f"{total:.2f}", currency="USD",
                shipping={name: values[name] for name in ADDRESS_FIELDS},
                card_last4=values["card_number"][-4:], placed_by=user(request), lang=lang,
            )
            request.session[CART_KEY] = {}
            return redirect(f"/shop/orders/{order.reference}{suffix}")
    if not cart:
        flash(request, "Your cart is empty.", "error")
        return redirect("/shop/cart")
    lines, total = _cart_lines(cart)
    # Card details are never echoed back into the form; the name on the card is.
    keep = {k: v for k, v in values.items() if k not in ("card_number", "card_expiry", "card_cvc")}
    context = {
        "t": texts, "lang": lang, "suffix": suffix, "values": keep, "errors": errors, "lines": lines,
        "total": f"${total:.2f}", "token": token,
        "countries": [(code, zh if lang == "zh" else en) for code, en, zh in COUNTRIES],
        "other_lang_url": "/shop/checkout" if lang == "zh" else "/shop/checkout?lang=zh",
        "cart_count": sum(cart.values()),
    }
    return render(request, "practice/shop/checkout.html", context)


@login_required
def order_view(request: HttpRequest, reference: str) -> HttpResponse:
    """``/shop/orders/<ref>``: "Order placed" and the order's lines, address and card."""
    order = records.order(reference)
    if order is None or order.placed_by != user(request):
        raise Http404("No such order.")
    country = {code: (en, zh) for code, en, zh in COUNTRIES}.get(order.shipping["country"], ("", ""))
    context = {"order": order, "country": country[1] if order.lang == "zh" else country[0]}
    return render(request, "practice/shop/order.html", context)


@login_required
def order_history_view(request: HttpRequest) -> HttpResponse:
    """``/shop/orders``: "Order history" with a product filter ("Delete filter" clears it)."""
    query = request.GET.get("q", "").strip()
    orders = records.orders(user(request))
    if query:
        orders = [o for o in orders if any(query.lower() in item["name"].lower() for item in o.items)]
    return render(request, "practice/shop/orders.html", {"orders": orders, "query": query})
