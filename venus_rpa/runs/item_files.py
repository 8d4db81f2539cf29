"""Items in and out: a run's items read from a JSON array, a CSV or an XLSX sheet, and per-item
results written as CSV or XLSX. Plain functions, no database.

Reading (`items_read`, `items_from_json`) is bounded and never trusts the name or type it is given:
- the file's kind is sniffed from its bytes (an XLSX is a ZIP holding `xl/workbook.xml`; a CSV
  is UTF-8 text without NUL bytes); a name ending in .xlsx that holds text, or an .csv that
  holds a ZIP, a PDF or an executable, is refused;
- size, rows, columns and cell length are capped (`Limits`); an XLSX's parts are summed before
  openpyxl opens it (a ZIP that inflates past `xlsx_inflated_bytes` is refused) and openpyxl
  parses its XML through defusedxml;
- formulas are not evaluated: an XLSX cell gives its cached value, a CSV cell its text;
- the first row names the columns: each name becomes an item field (`Amount ($)` → `amount`),
  names must be unique and usable in `{{item.FIELD}}`.
Every problem is an `ItemsError` with the row and column in its message; nothing is half-read.

Writing (`results_csv`, `results_xlsx`) puts one row per item: number, status, error, the
item's fields, its output values. A cell a spreadsheet would take as a formula (starting with
= + - @, a tab or a carriage return) is written with a leading apostrophe (OWASP's advice against
CSV injection), in the CSV and the XLSX alike; XLSX cells are always strings, never formulas.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

FIELD_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class ItemsError(ValueError):
    """The items cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Limits:
    file_bytes: int = 1024 * 1024
    rows: int = 1000
    columns: int = 50
    cell_chars: int = 2000
    xlsx_inflated_bytes: int = 20 * 1024 * 1024


@dataclass
class Sheet:
    """Items as read: the field names in column order, and one dict per row."""

    columns: list[str]
    rows: list[dict[str, str]]


def field_name(header: Any, column: int) -> str:
    """A column's header as an item field name ("Amount ($)" → "amount"); ItemsError if none."""
    text = "" if header is None else str(header).strip()
    name = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    if not name:
        raise ItemsError(f"column {column}: the header is empty; the first row must name every column.")
    if not FIELD_RE.match(name):
        raise ItemsError(f"column {column}: the header {text[:40]!r} does not start with a letter; "
                         "item fields are used as {{item.FIELD}}.")
    return name[:60]


def sniff(data: bytes) -> str:
    """"xlsx" or "csv" from the bytes themselves; ItemsError for anything else."""
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = set(archive.namelist())
        except (zipfile.BadZipFile, ValueError):
            raise ItemsError("the file looks like a ZIP but cannot be opened; save it again as XLSX or CSV.") from None
        if "xl/workbook.xml" in names:
            return "xlsx"
        raise ItemsError("the file is a ZIP archive but not an XLSX workbook (e.g. an .ods or .docx); "
                         "save it as XLSX or CSV.")
    if data.startswith((b"\xd0\xcf\x11\xe0", b"%PDF", b"MZ", b"\x7fELF", b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
        raise ItemsError("the file is not a CSV or XLSX sheet (an old .xls, a PDF, an image or a program); "
                         "save it as XLSX or CSV.")
    if b"\x00" in data[:65536]:
        raise ItemsError("the file holds binary data; a CSV must be UTF-8 text.")
    return "csv"


def items_read(data: bytes, *, limits: Limits = Limits()) -> Sheet:
    """Read a CSV or XLSX sheet (kind sniffed from the bytes) into items; ItemsError if unusable."""
    if len(data) > limits.file_bytes:
        raise ItemsError(f"the file is {len(data):,} bytes; at most {limits.file_bytes:,} are accepted.")
    if not data.strip():
        raise ItemsError("the file is empty.")
    rows = _xlsx_rows(data, limits) if sniff(data) == "xlsx" else _csv_rows(data, limits)
    return _sheet(rows, limits)


def _csv_rows(data: bytes, limits: Limits) -> Iterable[list[Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ItemsError(f"the CSV is not UTF-8 text (byte {exc.start}); save it as “CSV UTF-8”.") from None
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect, strict=True)
    reader_rows = iter(reader)
    while True:
        try:
            row = next(reader_rows)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ItemsError(f"row {reader.line_num}: the CSV is malformed ({exc}).") from None
        yield row


def _xlsx_rows(data: bytes, limits: Limits) -> Iterable[list[Any]]:
    from openpyxl import load_workbook  # imported when a workbook comes, not at web start

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        inflated = sum(info.file_size for info in archive.infolist())
    if inflated > limits.xlsx_inflated_bytes:
        raise ItemsError(f"the workbook inflates to {inflated:,} bytes; at most {limits.xlsx_inflated_bytes:,} "
                         "are accepted.")
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged workbook
        raise ItemsError(f"the XLSX workbook cannot be read ({type(exc).__name__}); save it again.") from None
    try:
        sheet = book.worksheets[0] if book.worksheets else None
        if sheet is None:
            raise ItemsError("the workbook has no sheet.")
        for row in sheet.iter_rows(values_only=True, max_row=limits.rows + 2, max_col=limits.columns + 1):
            yield list(row)
    finally:
        book.close()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):  # dates and times from a workbook
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") else text
    return str(value).strip()


def _sheet(rows: Iterable[list[Any]], limits: Limits) -> Sheet:
    iterator = iter(rows)
    header = next(iterator, None)
    while header is not None and not any(_cell(v) for v in header):  # blank rows before the header
        header = next(iterator, None)
    if header is None:
        raise ItemsError("the sheet has no header row.")
    while header and not _cell(header[-1]):
        header = header[:-1]
    if len(header) > limits.columns:
        raise ItemsError(f"the sheet has more than {limits.columns} columns.")
    columns = [field_name(value, n) for n, value in enumerate(header, start=1)]
    duplicates = sorted({c for c in columns if columns.count(c) > 1})
    if duplicates:
        raise ItemsError(f"two columns have the same name once made into fields: {', '.join(duplicates)}.")
    out: list[dict[str, str]] = []
    for number, row in enumerate(iterator, start=2):
        cells = [_cell(v) for v in row]
        if not any(cells):
            continue  # a blank line
        if any(cells[len(columns):]):
            raise ItemsError(f"row {number}: it has more cells than the header names ({len(columns)}).")
        if len(out) >= limits.rows:
            raise ItemsError(f"the sheet has more than {limits.rows} rows of items; split it into several runs.")
        cells = cells[:len(columns)]
        item = dict(zip(columns, cells + [""] * (len(columns) - len(cells)), strict=True))
        _check_cells(item, f"row {number}", limits)
        out.append(item)
    if not out:
        raise ItemsError("the sheet has a header but no rows of items.")
    return Sheet(columns, out)


def _check_cells(item: dict[str, Any], where: str, limits: Limits) -> None:
    for name, value in item.items():
        if len(value) > limits.cell_chars:
            raise ItemsError(f"{where}, column {name!r}: more than {limits.cell_chars} characters.")
        if "{{" in value or "}}" in value:
            raise ItemsError(f"{where}, column {name!r}: may not contain '{{{{' or '}}}}' (values are typed "
                             "literally).")


def items_from_json(value: Any, *, limits: Limits = Limits()) -> Sheet:
    """Items given as a JSON array of flat objects (text, numbers, true/false, null)."""
    if not isinstance(value, list):
        raise ItemsError("items must be a JSON array of objects.")
    if not value:
        raise ItemsError("items is empty; give at least one item.")
    if len(value) > limits.rows:
        raise ItemsError(f"more than {limits.rows} items; split them into several runs.")
    columns: list[str] = []
    rows: list[dict[str, str]] = []
    for number, raw in enumerate(value, start=1):
        if not isinstance(raw, dict) or not raw:
            raise ItemsError(f"item {number}: must be an object with at least one field.")
        item: dict[str, str] = {}
        for key, cell in raw.items():
            if not isinstance(key, str) or not FIELD_RE.match(key) or len(key) > 60:
                raise ItemsError(f"item {number}: {str(key)[:40]!r} is not a usable field name (letters, digits "
                                 "and _, not starting with a digit).")
            if isinstance(cell, (dict, list)):
                raise ItemsError(f"item {number}, field {key!r}: must be text, a number, true/false or null.")
            item[key] = _cell(cell) if not isinstance(cell, bool) else ("true" if cell else "false")
            if key not in columns:
                columns.append(key)
        if len(columns) > limits.columns:
            raise ItemsError(f"the items have more than {limits.columns} fields.")
        _check_cells(item, f"item {number}", limits)
        rows.append(item)
    return Sheet(columns, [{c: row.get(c, "") for c in columns} for row in rows])


# -- results out --------------------------------------------------------------------------------

def safe_cell(value: Any) -> str:
    """A value as a spreadsheet cell that is never taken for a formula."""
    text = value if isinstance(value, str) else "" if value is None else (
        ", ".join(map(str, value)) if isinstance(value, list) else str(value))
    return "'" + text if text.startswith(FORMULA_START) else text


def results_table(columns: list[str], items: Iterable[dict[str, Any]]) -> list[list[str]]:
    """The header and one row per item: number, status, error, the fields, the output values."""
    items = list(items)
    outputs: list[str] = []
    for item in items:
        outputs += [k for k in item["output"] if k not in outputs]
    header = ["item", "status", "error", *columns, *[f"output.{k}" for k in outputs]]
    table = [header]
    for item in items:
        table.append([str(item["number"]), item["status"], item["error"],
                      *[item["data"].get(c, "") for c in columns], *[item["output"].get(k, "") for k in outputs]])
    return [[safe_cell(cell) for cell in row] for row in table]


def results_csv(table: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(table)
    return out.getvalue().encode("utf-8-sig")  # the BOM: spreadsheets then read it as UTF-8


def results_xlsx(table: list[list[str]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("Items")
    for row in table:
        sheet.append(row)  # safe_cell strings: openpyxl writes a text starting with ' as text, not a formula
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
