"""Fixed data of the risky-flow pages: shop products and shared-drive documents."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Product:
    """A product in the practice shop; unlisted ones only appear on their own (lab) page."""

    sku: str
    name: str
    price: Decimal
    description: str
    listed: bool = True

    @property
    def price_text(self) -> str:
        return f"${self.price:.2f}"


PRODUCTS: tuple[Product, ...] = (
    Product("MUG-BLUE", "Blue mug", Decimal("12.50"), "Stoneware, holds 350 ml, dishwasher safe."),
    Product("LAMP-DESK", "Desk lamp", Decimal("39.00"), "Adjustable arm, warm LED, USB-C powered."),
    Product("NOTE-A5", "A5 notebook", Decimal("8.75"), "120 dotted pages, lay-flat binding."),
    Product("MOUSE-WL", "Wireless mouse", Decimal("24.99"), "Silent clicks, 18-month battery."),
    Product("TEA-GREEN", "Green tea 绿茶 (100 g)", Decimal("15.20"), "Loose-leaf Longjing 龙井 from Hangzhou."),
    Product(
        "CHAIR-ERGO", "Ergonomic office chair", Decimal("249.00"),
        "Mesh back, adjustable lumbar support and armrests.", listed=False,
    ),
)

_BY_SKU = {product.sku: product for product in PRODUCTS}


def product(sku: str) -> Product | None:
    """The product with this SKU, listed or not."""
    return _BY_SKU.get(sku)


def listed_products() -> list[Product]:
    """Products shown on /shop, in catalogue order."""
    return [p for p in PRODUCTS if p.listed]


@dataclass(frozen=True)
class Document:
    """A document in the signed-in user's private drive."""

    id: int
    title: str
    kind: str
    updated: str
    body: str

    @property
    def filename(self) -> str:
        return self.title.lower().replace(" ", "-") + ".txt"


DOCUMENTS: tuple[Document, ...] = (
    Document(1, "Q3 budget", "Spreadsheet", "2024-09-02",
             "Marketing 42,000\nTravel 18,500\nSoftware 9,900\nTotal 70,400"),
    Document(2, "Team offsite plan", "Document", "2024-08-19",
             "Day 1: arrive in Lisbon, dinner at 19:00.\nDay 2: planning workshop.\nDay 3: fly home."),
    Document(3, "Customer list (confidential)", "Spreadsheet", "2024-07-30",
             "Name, Email, Phone\nLi Wei, li.wei@example.com, +86 138 0000 0000\n"
             "Ana Souza, ana@example.org, +351 900 000 000"),
)

_BY_ID = {document.id: document for document in DOCUMENTS}


def document(doc_id: int) -> Document | None:
    """The document with this id, if any."""
    return _BY_ID.get(doc_id)


PERMISSIONS = {"view": "Can view", "edit": "Can edit"}
