"""Streamlit (streamlit.io), a framework whose widgets are drawn client-side by its own React front end
and driven over a websocket by a Python script that reruns on every interaction, as a real-app target
for the fourth independent step-evaluator set (tests/helpers/effect_cases_holdout4.py). No `tasks.py`:
nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 4` does.

Pinned: Streamlit 1.67.0 and all its dependencies in `.local/holdout-apps/streamlitapp/venv`. The app
(`APP`, English UI) is a garden centre's plant order desk written on Streamlit's documented API: a
multipage app (`st.navigation`: the order desk, a long "Care notes" page, a short "About" page), tabs,
a form with server-side checks on submit, a selectbox, number input, radio, checkbox, a dialog, a
paginated and searchable catalogue, a slow "Check stock" button (spinner, result after 2.5 s), a
disabled button, an expander, page links. Its data is the fixed `PLANTS` list of the script; orders
live in each browser session only (a fresh page load starts with none), so the seed is the script
and `reset()` restarts the server. Served by `streamlit run` on a free 127.0.0.1 port.
"""

from __future__ import annotations

import os
from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, ensure_venv

NAME = "streamlitapp"
VENV_ROOT = HOLDOUT_ROOT
PINS = [
    'altair==6.3.0',
    'anyio==4.16.0',
    'attrs==26.1.0',
    'certifi==2026.10.19.post1',
    'charset-normalizer==3.5.3',
    'click==8.5.1',
    'h11==0.16.0',
    'idna==3.20',
    'itsdangerous==2.2.0',
    'Jinja2==3.1.6',
    'jsonschema==4.26.0',
    'jsonschema-specifications==2025.9.1',
    'MarkupSafe==3.0.4',
    'narwhals==2.29.0',
    'numpy==2.4.6',
    'packaging==26.4',
    'pandas==3.1.1',
    'pillow==13.0.0',
    'protobuf==7.36.2',
    'pyarrow==26.0.1',
    'pydeck==0.9.3',
    'python-dateutil==4.0.0',
    'python-multipart==0.0.34',
    'referencing==0.37.0',
    'requests==2.34.2',
    'rpds-py==2026.9.1',
    'starlette==1.10.0',
    'streamlit==1.67.0',
    'typing_extensions==4.16.0',
    'tzdata==2026.6',
    'urllib3==2.8.0',
    'uvicorn==0.55.0',
    'watchdog==7.1.1',
    'websockets==17.4',
]

APP = """\
import time

import streamlit as st

PLANTS = [
    ("Fern", "Shade", 12.5), ("Olive tree", "Sun", 89.0), ("Basil", "Sun", 3.2), ("Lavender", "Sun", 6.9),
    ("Hosta", "Shade", 9.4), ("Rosemary", "Sun", 5.5), ("Ivy", "Shade", 4.1), ("Thyme", "Sun", 3.8),
    ("Monstera", "Indoor", 34.0), ("Snake plant", "Indoor", 19.9), ("Peace lily", "Indoor", 15.0), ("Sage", "Sun", 4.4),
    ("Bamboo", "Sun", 27.5), ("Heather", "Sun", 7.2), ("Foxglove", "Shade", 6.1), ("Aloe vera", "Indoor", 8.8),
    ("Mint", "Shade", 3.0), ("Tomato", "Sun", 2.9),
]
PER_PAGE = 5


def order_page():
    st.title("Plant order desk")
    st.caption("Orders are kept for this browser session only.")
    st.session_state.setdefault("orders", [])
    new, catalogue, help_tab = st.tabs(["New order", "Catalogue", "Help"])
    with new:
        with st.form("order"):
            name = st.text_input("Customer name")
            email = st.text_input("Email")
            plant = st.selectbox("Plant", [p[0] for p in PLANTS[:6]])
            qty = st.number_input("Quantity", min_value=1, max_value=20, value=1)
            delivery = st.radio("Delivery", ["Pickup", "Courier"], horizontal=True)
            gift = st.checkbox("Gift wrap")
            sent = st.form_submit_button("Place order")
        if sent:
            if not name.strip():
                st.error("Customer name is required.")
            elif "@" not in email:
                st.error("Please enter an email address containing @.")
            elif any(o["Customer"] == name.strip() and o["Plant"] == plant for o in st.session_state.orders):
                st.error(f"{name.strip()} already has an order for {plant}.")
            else:
                st.session_state.orders.append({"Customer": name.strip(), "Plant": plant, "Qty": int(qty),
                                                "Delivery": delivery, "Gift wrap": "yes" if gift else "no"})
                st.success(f"Order placed: {int(qty)} x {plant} for {name.strip()}.")
        st.subheader("Recent orders")
        if st.session_state.orders:
            st.table(st.session_state.orders)
        else:
            st.info("No orders yet.")
        left, mid, right = st.columns(3)
        with left:
            if st.button("Check stock"):
                with st.spinner("Checking stock..."):
                    time.sleep(2.5)
                st.success("Stock checked: all 18 plants available.")
        with mid:
            st.button("Export CSV", disabled=True, help="Exports are switched off on this desk.")
        with right:
            if st.button("Clear orders"):
                confirm_clear()
    with catalogue:
        query = st.text_input("Search plants", placeholder="name or light, e.g. shade")
        found = [p for p in PLANTS if not query or query.lower() in p[0].lower() or query.lower() in p[1].lower()]
        pages = max(1, -(-len(found) // PER_PAGE))
        page = min(st.session_state.get("page", 1), pages)
        st.table([{"Plant": n, "Light": l, "Price (EUR)": f"{p:.2f}"} for n, l, p in found[(page - 1) * PER_PAGE:page * PER_PAGE]])
        prev_col, info_col, next_col = st.columns([1, 2, 1])
        if prev_col.button("Previous", disabled=page <= 1):
            st.session_state.page = page - 1
            st.rerun()
        info_col.markdown(f"Page {page} of {pages} ({len(found)} plants)")
        if next_col.button("Next", disabled=page >= pages):
            st.session_state.page = page + 1
            st.rerun()
    with help_tab:
        st.markdown("Call the garden centre on 0301 55 20 17 for anything the desk cannot do.")
        with st.expander("Opening hours"):
            st.markdown("Monday to Saturday 8:00 to 19:00, Sunday closed.")


@st.dialog("Clear all orders?")
def confirm_clear():
    st.write("This removes every order of this session.")
    keep, clear = st.columns(2)
    if keep.button("Keep orders"):
        st.rerun()
    if clear.button("Clear all", type="primary"):
        st.session_state.orders = []
        st.rerun()


def notes_page():
    st.title("Care notes")
    st.page_link(order, label="Back to the order desk")
    st.page_link(notes, label="Care notes (this page)")
    for i in range(1, 31):
        st.subheader(f"Note {i}")
        st.markdown(f"Water plant group {i} every {1 + i % 4} days; keep the soil moist but not wet. "
                    "Move pots away from radiators in winter and turn them a quarter every week.")


def about_page():
    st.title("About")
    st.markdown("The order desk of the Lindenhof garden centre.")


order = st.Page(order_page, title="Order desk", url_path="order", default=True)
notes = st.Page(notes_page, title="Care notes", url_path="notes")
about = st.Page(about_page, title="About", url_path="about")
st.navigation([order, notes, about]).run()
"""

CONFIG = """\
[server]
headless = true
address = "127.0.0.1"
runOnSave = false
fileWatcherType = "none"
enableXsrfProtection = true

[browser]
gatherUsageStats = false

[client]
toolbarMode = "minimal"

[global]
developmentMode = false
"""


def ensure_installed() -> Path:
    """Streamlit's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


class Server(AppServer):
    """The order desk served by `streamlit run` on 127.0.0.1 (no sign-in). Use as a context manager."""

    name, pins = NAME, PINS
    venv_root = VENV_ROOT

    def __init__(self) -> None:
        super().__init__()
        self.site = self.workdir / "site"

    @property
    def db_path(self) -> Path:
        return self.site / "no-database.sqlite"  # the app keeps no database: `query` answers no rows

    def seed(self) -> None:
        (self.site / ".streamlit").mkdir(parents=True, exist_ok=True)
        (self.site / "garden.py").write_text(APP)
        (self.site / ".streamlit" / "config.toml").write_text(CONFIG)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "python"), "-m", "streamlit", "run", "garden.py", "--server.port",
                     str(self.port), "--server.address", "127.0.0.1", "--server.headless", "true"],
                    ready="/_stcore/health", cwd=self.site, env={**os.environ, "HOME": str(self.workdir)})
