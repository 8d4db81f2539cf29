"""Datasette (datasette.io), a tool for exploring and publishing SQLite data, as a real-app target
for the third independent step-evaluator set (tests/helpers/effect_cases_holdout3.py). No `tasks.py`:
nothing in CI installs it; `benchmarks/step_evaluator_holdout.py --set 3` does.

Pinned: Datasette 0.65.5 (ASGI on uvicorn) and all its dependencies in
`.local/holdout-apps/datasette/venv`. Datasette's pages mix server-rendered tables, facets, filters
and full-text search with client-side behaviour (column cog menus, a CodeMirror SQL editor with a
"Format SQL" button). The shop database is built by `SEED` with the standard library's sqlite3 (5
categories, 120 products with an FTS5 index, 3 suppliers); `METADATA` gives the site its title, the
products' search index and two canned queries (a writable `add_category` and `cheap_products`).
Served by `datasette serve` on a free 127.0.0.1 port; `reset()` puts back the seeded database.
"""

from __future__ import annotations

from pathlib import Path

from practice.realapps._support import HOLDOUT_ROOT, ROOT, AppServer, copy_seed, ensure_venv, run_tool, seeded

NAME = "datasette"
VENV_ROOT = HOLDOUT_ROOT
PINS = [
    'aiofiles==25.1.0',
    'anyio==4.16.0',
    'asgi-csrf==0.11',
    'asgiref==3.13.0',
    'certifi==2026.10.19.post1',
    'click==8.5.1',
    'click-default-group==1.2.4',
    'datasette==0.65.5',
    'flexcache==0.3',
    'flexparser==0.4',
    'h11==0.16.0',
    'httpcore==1.0.9',
    'httpx==0.29.0',
    'hupper==1.12.1',
    'idna==3.20',
    'itsdangerous==2.2.0',
    'janus==2.0.0',
    'Jinja2==3.1.6',
    'MarkupSafe==3.0.4',
    'mergedeep==1.3.4',
    'platformdirs==4.14.9',
    'pluggy==1.7.0',
    'python-multipart==0.0.34',
    'PyYAML==6.0.4',
    'typing_extensions==4.16.0',
    'uvicorn==0.55.0',
]

SEED = """\
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript('''
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE CHECK (length(trim(name)) > 0), aisle INTEGER NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id),
                       price REAL NOT NULL, stock INTEGER NOT NULL, colour TEXT);
CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
''')
cats = ["Garden", "Kitchen", "Office", "Toys", "Tools"]
db.executemany("INSERT INTO categories (id, name, aisle) VALUES (?, ?, ?)", [(i + 1, c, 10 + i) for i, c in enumerate(cats)])
adjs = ["Small", "Large", "Blue", "Red", "Folding", "Steel", "Wooden", "Deluxe"]
nouns = ["bucket", "lamp", "stapler", "kettle", "rake", "drill", "puzzle", "mug", "hose", "clamp", "ruler", "yo-yo", "shears", "whisk", "binder"]
colours = ["red", "green", "blue", "black", "white"]
rows = []
for i in range(120):
    name = f"{adjs[i % len(adjs)]} {nouns[(i * 7) % len(nouns)]} {100 + i}"
    rows.append((i + 1, name, 1 + (i * 3) % 5, round(2.5 + (i * 37) % 200 / 4, 2), (i * 13) % 60, colours[i % 5]))
db.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)", rows)
db.executemany("INSERT INTO suppliers VALUES (?, ?, ?)", [(1, "Nordic Garden AB", "Malmo"), (2, "Kettle & Co", "Leeds"), (3, "Toyhaus", "Bremen")])
db.executescript('''
CREATE VIRTUAL TABLE products_fts USING fts5 (name, content='products', content_rowid='id');
INSERT INTO products_fts (rowid, name) SELECT id, name FROM products;
''')
db.commit()
"""

METADATA = """\
{
  "title": "Acme Stock",
  "description": "Stock list of the Acme shop",
  "databases": {"shop": {
    "tables": {"products": {"fts_table": "products_fts", "fts_pk": "id", "label_column": "name"}},
    "queries": {
      "add_category": {"sql": "INSERT INTO categories (name, aisle) VALUES (:name, :aisle)", "write": true,
                       "title": "Add a category", "on_success_message": "Category added"},
      "cheap_products": {"sql": "SELECT id, name, price FROM products WHERE price < :max_price ORDER BY price", "title": "Products under a price"}
    }
  }}
}
"""


def ensure_installed() -> Path:
    """Datasette's own virtualenv (pinned); returns its directory."""
    return ensure_venv(NAME, PINS, root=VENV_ROOT)


def seeded_template(venv: Path) -> Path:
    """The shop database and its metadata, made once per recipe (well under a second)."""
    return seeded(venv, (PINS, SEED, METADATA), lambda site: _seed(venv, site))


def _seed(venv: Path, site: Path) -> None:
    site.mkdir(parents=True)
    (site / "seed.py").write_text(SEED)
    (site / "metadata.json").write_text(METADATA)
    run_tool([str(venv / "bin" / "python"), "seed.py", "shop.db"], cwd=site)


class Server(AppServer):
    """The shop database served by `datasette serve` on 127.0.0.1. Use as a context manager."""

    name, pins = NAME, PINS
    venv_root = VENV_ROOT

    def __init__(self) -> None:
        super().__init__()
        self.site = self.workdir / "site"

    @property
    def db_path(self) -> Path:
        return self.site / "shop.db"

    def seed(self) -> None:
        copy_seed(seeded_template(self.venv), self.site)

    def serve(self) -> None:
        self.launch([str(self.venv / "bin" / "datasette"), "serve", "shop.db", "--metadata", "metadata.json",
                     "--host", "127.0.0.1", "--port", str(self.port)], ready="/shop", cwd=self.site)
