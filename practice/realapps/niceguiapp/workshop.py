"""A bike repair workshop's front desk on NiceGUI (run with the NiceGUI venv's python, not ours):
repair tickets (a sortable, paginated, searchable table; a status filter; a new-ticket dialog with
field validation and a duplicate check; a slow supplier check), a parts page (tabs, a threshold
slider, a low-stock switch, an expansion, a reorder form), a short settings page and a long
handbook. Tickets and stock live in each page load (a fresh load starts from the seed below)."""

import asyncio
import os

from nicegui import ui

TICKETS = [
    ("Anna Berg", "City bike", "Open", "2026-12-07"), ("Bruno Costa", "Road bike", "Waiting for parts", "2026-12-09"),
    ("Chloe Dubois", "E-bike", "Open", "2026-12-06"), ("David Evans", "Mountain bike", "Done", "2026-12-01"),
    ("Eva Fischer", "Cargo bike", "Open", "2026-12-11"), ("Farid Ghani", "City bike", "Done", "2026-11-28"),
    ("Greta Hansen", "Road bike", "Open", "2026-12-08"), ("Hugo Ibsen", "E-bike", "Waiting for parts", "2026-12-14"),
    ("Ines Jovanovic", "Folding bike", "Open", "2026-12-10"), ("Jonas Keller", "Mountain bike", "Open", "2026-12-12"),
    ("Karin Lund", "City bike", "Done", "2026-11-30"), ("Luca Moretti", "Road bike", "Open", "2026-12-13"),
]
BIKES = ["City bike", "Road bike", "Mountain bike", "E-bike", "Cargo bike", "Folding bike"]
PARTS = [
    ("Inner tube 28\"", 42), ("Brake pads (rim)", 6), ("Brake pads (disc)", 18), ("Chain 9-speed", 4),
    ("Chain 11-speed", 11), ("Cassette 11-32", 3), ("Tyre 700x28", 25), ("Bottom bracket", 2),
]
HANDBOOK = [
    ("Opening the workshop", "Switch on the compressor, check the stand clamps and read yesterday's notes."),
    ("Taking in a bike", "Write the customer's name and phone, the bike type and what they report."),
    ("Quotes", "Anything over 80 EUR needs the customer's yes before work starts."),
    ("Parts", "Take parts from the shelf in date order and note what you used on the ticket."),
    ("Test rides", "Every bike gets a short test ride in the yard after the repair."),
    ("Collection", "Show the customer what was done and take payment at the desk."),
    ("E-bikes", "Remove the battery before any work on the drive train or the wiring."),
    ("Cleaning", "Wipe the stands and sweep the floor before closing."),
    ("Safety", "Gloves for brake fluid, glasses for the grinder, no loose clothing near the truing stand."),
    ("Closing", "Lock the yard gate, switch off the compressor and set the alarm."),
]


def header(current: str) -> None:
    with ui.header().classes("items-center gap-6 bg-teal-800"):
        ui.label("Spoke & Chain workshop").classes("text-lg font-bold")
        for title, path in (("Tickets", "/"), ("Parts", "/parts"), ("Settings", "/settings"), ("Handbook", "/handbook")):
            link = ui.link(title, path).classes("text-white no-underline")
            if path == current:
                link.classes("font-bold underline")


@ui.page("/")
def tickets_page() -> None:
    header("/")
    rows = [{"id": i + 1, "customer": c, "bike": b, "status": s, "due": d} for i, (c, b, s, d) in enumerate(TICKETS)]
    columns = [
        {"name": "id", "label": "No.", "field": "id", "sortable": True, "align": "left"},
        {"name": "customer", "label": "Customer", "field": "customer", "sortable": True, "align": "left"},
        {"name": "bike", "label": "Bike", "field": "bike", "align": "left"},
        {"name": "status", "label": "Status", "field": "status", "align": "left"},
        {"name": "due", "label": "Due", "field": "due", "sortable": True, "align": "left"},
    ]
    ui.label("Repair tickets").classes("text-h5")
    with ui.row().classes("items-end gap-4"):
        search = ui.input("Search tickets", placeholder="customer or bike").props("clearable")
        status = ui.select(["All", "Open", "Waiting for parts", "Done"], value="All", label="Status")
        ui.button("New ticket", icon="add", on_click=lambda: dialog.open())
        ui.button("Export", icon="download").props("disable")
    table = ui.table(columns=columns, rows=rows, row_key="id", pagination=5).classes("w-full")
    search.bind_value_to(table, "filter")

    def show_status() -> None:
        table.rows = [r for r in rows if status.value in ("All", r["status"])]
        table.update()

    status.on_value_change(show_status)
    supplier = ui.label("")

    async def check_supplier() -> None:
        check.disable()
        supplier.text = "Asking the supplier..."
        await asyncio.sleep(2.5)
        supplier.text = "Supplier: brake pads and chains arrive Tuesday."
        check.enable()

    check = ui.button("Check supplier delivery", on_click=check_supplier)

    with ui.dialog() as dialog, ui.card().classes("w-96"):
        ui.label("New repair ticket").classes("text-h6")
        name = ui.input("Customer name", validation={"Customer name is required": lambda v: bool(v and v.strip())})
        phone = ui.input("Phone", validation={"Phone must be digits only": lambda v: not v or v.replace(" ", "").isdigit()})
        bike = ui.select(BIKES, value="City bike", label="Bike type")
        priority = ui.radio(["Normal", "Urgent"], value="Normal").props("inline")
        loan = ui.checkbox("Loan bike needed")

        def save() -> None:
            if not name.validate() or not phone.validate():
                return
            customer = name.value.strip()
            if any(r["customer"] == customer and r["bike"] == bike.value and r["status"] != "Done" for r in rows):
                ui.notify(f"{customer} already has an open ticket for a {bike.value}.", type="negative")
                return
            rows.append({"id": len(rows) + 1, "customer": customer, "bike": bike.value, "status": "Open",
                         "due": "2026-12-15"})
            show_status()
            extra = " with a loan bike" if loan.value else ""
            ui.notify(f"Ticket {len(rows)} opened for {customer}{extra} ({priority.value}).", type="positive")
            dialog.close()

        with ui.row():
            ui.button("Cancel", on_click=dialog.close).props("flat")
            ui.button("Save ticket", on_click=save)


@ui.page("/parts")
def parts_page() -> None:
    header("/parts")
    ui.label("Parts and stock").classes("text-h5")
    with ui.tabs() as tabs:
        stock_tab = ui.tab("Stock")
        order_tab = ui.tab("Reorder")
    with ui.tab_panels(tabs, value=stock_tab).classes("w-full"):
        with ui.tab_panel(stock_tab):
            threshold = ui.slider(min=0, max=20, value=5).props("label-always")
            ui.label().bind_text_from(threshold, "value", lambda v: f"Low stock below {v} pieces")
            only_low = ui.switch("Show only low stock")
            stock = ui.column()

            def show_stock() -> None:
                stock.clear()
                with stock:
                    for part, count in PARTS:
                        if not only_low.value or count < threshold.value:
                            ui.label(f"{part}: {count}").classes("text-red-700" if count < threshold.value else "")

            threshold.on_value_change(show_stock)
            only_low.on_value_change(show_stock)
            show_stock()
            with ui.expansion("Where parts are kept", icon="inventory_2"):
                ui.label("Tubes and tyres on rack A, brake parts in drawer B, drive train in cabinet C.")
        with ui.tab_panel(order_tab):
            part = ui.select([p for p, _ in PARTS], label="Part", value=PARTS[0][0])
            qty = ui.number("Quantity", value=1, min=1, max=50, precision=0)
            ui.input("Supplier", value="Velo Wholesale").props("readonly")
            note = ui.input("Note for the supplier").props("maxlength=20 counter")

            def reorder() -> None:
                if qty.value is None or not 1 <= qty.value <= 50:
                    ui.notify("Quantity must be between 1 and 50.", type="negative")
                    return
                ui.notify(f"Reorder sent: {int(qty.value)} x {part.value}.", type="positive")
                note.value = ""

            ui.button("Send reorder", on_click=reorder)


@ui.page("/settings")
def settings_page() -> None:
    header("/settings")
    ui.label("Settings").classes("text-h5")
    ui.input("Workshop name", value="Spoke & Chain").props("readonly")
    ui.radio(["Metric", "Imperial"], value="Metric").props("inline")
    reminders = ui.switch("SMS reminders", value=True)
    saved = ui.label("")
    ui.button("Save settings", on_click=lambda: saved.set_text(
        f"Saved: SMS reminders {'on' if reminders.value else 'off'}."))


@ui.page("/handbook")
def handbook_page() -> None:
    header("/handbook")
    ui.label("Workshop handbook").classes("text-h5")
    for title, text in HANDBOOK:
        ui.label(title).classes("text-h6 mt-6")
        for _ in range(3):
            ui.label(text)
    ui.image("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='200' height='80'>"
             "<rect width='200' height='80' fill='%23115e59'/></svg>").classes("w-48")


ui.run(host="127.0.0.1", port=int(os.environ["PORT"]), reload=False, show=False, title="Spoke & Chain")
