"""A small warehouse order desk written with Plotly Dash and dash-bootstrap-components: an order
table (sortable, filterable, paginated), a search box, a status filter, a new-order form checked
by its callback, a customer dialog that refuses duplicates, a slow report, a discount slider, an
FAQ accordion. State lives in each page load (dcc.Store), so a reload starts from the seed."""

import os
import time

import dash_bootstrap_components as dbc
from dash import Dash, Input, Output, State, dash_table, dcc, html, no_update

PRODUCTS = ["Pallet jack", "Shelf bracket", "Cable drum", "Safety gloves", "Stretch film", "Label printer"]
STATUSES = ["Open", "Packed", "Shipped", "Cancelled"]
CUSTOMERS = ["Acme Foods", "Baker & Sons", "Coastal Tiles", "Delta Print", "Evergreen Farms"]
ORDERS = [
    {"id": 1000 + i, "customer": CUSTOMERS[i % 5], "product": PRODUCTS[(i * 2) % 6],
     "qty": (i * 7) % 40 + 1, "status": STATUSES[i % 4]}
    for i in range(23)
]

# Bootstrap's stylesheet is served from ./assets (the launcher copies it there; no CDN).
app = Dash(__name__, title="Warehouse desk")

LOGO = ("data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='64' height='64'>"
        "<rect width='64' height='64' rx='8' fill='%23345'/><text x='32' y='42' font-size='28' fill='white' "
        "text-anchor='middle'>WD</text></svg>")

orders_tab = html.Div([
    dbc.Row([
        dbc.Col(dbc.Input(id="search", placeholder="Search customer or product", type="text")),
        dbc.Col(dbc.Button("Search", id="search-btn", color="primary"), width="auto"),
        dbc.Col(dcc.Dropdown(id="status-filter", options=["All"] + STATUSES, value="All", clearable=False,
                             style={"width": "180px"}), width="auto"),
    ], className="my-3"),
    html.Div(id="search-note", className="text-muted mb-2"),
    dash_table.DataTable(id="orders", data=ORDERS, page_size=8, sort_action="native", page_action="native",
                         columns=[{"name": n, "id": k} for k, n in
                                  [("id", "Order"), ("customer", "Customer"), ("product", "Product"),
                                   ("qty", "Qty"), ("status", "Status")]],
                         style_cell={"textAlign": "left", "padding": "6px"}),
    html.H5("Export", className="mt-4"),
    dbc.Button("Export to PDF", id="export-pdf", color="secondary", disabled=True, className="me-2"),
    dbc.Button("Build weekly report", id="report-btn", color="info"),
    dcc.Loading(html.Div(id="report-out", className="mt-2")),
])

new_order_tab = html.Div([
    html.H4("New order", className="mt-3"),
    dbc.Label("Customer", html_for="no-customer"),
    dcc.Dropdown(id="no-customer", options=CUSTOMERS, value=None, placeholder="Pick a customer"),
    dbc.Label("Product", html_for="no-product", className="mt-2"),
    dbc.Select(id="no-product", options=PRODUCTS, value="Pallet jack"),
    dbc.Label("Quantity (1-500)", html_for="no-qty", className="mt-2"),
    dbc.Input(id="no-qty", type="number", min=1, max=500, placeholder="1-500"),
    dbc.Label("Reference (max 8 characters)", html_for="no-ref", className="mt-2"),
    dbc.Input(id="no-ref", type="text", maxLength=8),
    dbc.Label("Warehouse", html_for="no-warehouse", className="mt-2"),
    dbc.Input(id="no-warehouse", type="text", value="North depot", readonly=True),
    dbc.Label("Delivery address", html_for="no-address", className="mt-2"),
    dbc.Textarea(id="no-address", rows=3),
    dbc.Label("Contact phone", html_for="no-phone", className="mt-2"),
    dbc.Input(id="no-phone", type="tel"),
    dbc.Label("Shipping", className="mt-2"),
    dbc.RadioItems(id="no-shipping", options=["Standard", "Express", "Pickup"], value="Standard", inline=True),
    dbc.Checklist(id="no-flags", options=[{"label": "Fragile", "value": "fragile"},
                                          {"label": "Gift wrap", "value": "gift"}], value=[], inline=True,
                  className="mt-2"),
    dbc.Label("Discount %", className="mt-2"),
    dcc.Slider(id="no-discount", min=0, max=20, step=5, value=0),
    html.Div(id="no-discount-out", className="text-muted"),
    dbc.Button("Place order", id="no-submit", color="success", className="mt-3"),
    html.Div(id="no-result", className="mt-3"),
])

customers_tab = html.Div([
    html.H4("Customers", className="mt-3"),
    html.Ul(id="customer-list", children=[html.Li(c) for c in CUSTOMERS]),
    dbc.Button("Add customer", id="open-add", color="primary"),
    dbc.Modal([
        dbc.ModalHeader(dbc.ModalTitle("Add customer")),
        dbc.ModalBody([dbc.Label("Company name", html_for="cust-name"), dbc.Input(id="cust-name", type="text"),
                       html.Div(id="cust-error", className="text-danger mt-2")]),
        dbc.ModalFooter([dbc.Button("Cancel", id="cust-cancel", color="secondary"),
                         dbc.Button("Save", id="cust-save", color="primary")]),
    ], id="cust-modal", is_open=False),
    html.H4("Help", className="mt-4"),
    dbc.Accordion([
        dbc.AccordionItem("Orders placed before 2 pm leave the same day.", title="When do orders ship?"),
        dbc.AccordionItem("Cancel an open order from the order table's menu.", title="How do I cancel?"),
        dbc.AccordionItem("Pickup orders wait at the north depot for seven days.", title="Pickup rules"),
    ], start_collapsed=True, id="faq"),
    html.Div([html.P(f"Note {i}: keep pallets clear of the loading bay doors.") for i in range(1, 40)],
             className="mt-4 text-muted"),
])

app.layout = dbc.Container([
    html.Div([html.Img(src=LOGO, alt="Warehouse desk logo", id="logo", className="me-3"),
              html.H1("Warehouse desk", className="d-inline align-middle")], className="mt-3"),
    html.P("North depot · shift A", id="subtitle", className="lead"),
    dcc.Store(id="customers", data=CUSTOMERS),
    dcc.Tabs(id="tabs", value="orders", children=[
        dcc.Tab(label="Orders", value="orders", children=orders_tab),
        dcc.Tab(label="New order", value="new", children=new_order_tab),
        dcc.Tab(label="Customers", value="customers", children=customers_tab),
    ]),
])


@app.callback(Output("orders", "data"), Output("search-note", "children"),
              Input("search-btn", "n_clicks"), Input("search", "n_submit"), Input("status-filter", "value"),
              State("search", "value"), prevent_initial_call=True)
def filter_orders(_clicks, _submit, status, text):
    rows = [r for r in ORDERS if status == "All" or r["status"] == status]
    text = (text or "").strip().lower()
    if text:
        rows = [r for r in rows if text in r["customer"].lower() or text in r["product"].lower()]
    if not rows:
        return rows, f"No orders match '{text}'." if text else "No orders with this status."
    return rows, f"{len(rows)} orders" if text or status != "All" else ""


@app.callback(Output("report-out", "children"), Input("report-btn", "n_clicks"), prevent_initial_call=True)
def build_report(_clicks):
    time.sleep(3)
    open_count = sum(r["status"] == "Open" for r in ORDERS)
    return dbc.Alert(f"Weekly report ready: {len(ORDERS)} orders, {open_count} open.", color="info")


@app.callback(Output("no-discount-out", "children"), Input("no-discount", "value"))
def show_discount(value):
    return f"Discount: {value}%"


@app.callback(Output("no-result", "children"), Input("no-submit", "n_clicks"),
              State("no-customer", "value"), State("no-product", "value"), State("no-qty", "value"),
              State("no-ref", "value"), prevent_initial_call=True)
def place_order(_clicks, customer, product, qty, ref):
    problems = []
    if not customer:
        problems.append("Pick a customer.")
    if qty is None or not 1 <= qty <= 500:
        problems.append("Quantity must be between 1 and 500.")
    if problems:
        return dbc.Alert(" ".join(problems), color="danger")
    return dbc.Alert(f"Order placed: {qty} × {product} for {customer} (ref {ref or '-'}).", color="success")


@app.callback(Output("cust-modal", "is_open"), Output("customers", "data"), Output("cust-error", "children"),
              Output("customer-list", "children"),
              Input("open-add", "n_clicks"), Input("cust-cancel", "n_clicks"), Input("cust-save", "n_clicks"),
              State("cust-name", "value"), State("customers", "data"), prevent_initial_call=True)
def customer_dialog(_open, _cancel, _save, name, customers):
    from dash import ctx

    if ctx.triggered_id == "open-add":
        return True, no_update, "", no_update
    if ctx.triggered_id == "cust-cancel":
        return False, no_update, "", no_update
    name = (name or "").strip()
    if not name:
        return True, no_update, "Enter a company name.", no_update
    if name.lower() in (c.lower() for c in customers):
        return True, no_update, f"{name} is already a customer.", no_update
    customers = customers + [name]
    return False, customers, "", [html.Li(c) for c in customers]


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ["PORT"]), debug=False)
