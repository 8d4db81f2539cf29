"""Files a run handles: what a step downloaded and what was given with the run at launch.

Plain functions, no Django, no browser. Nothing here trusts a file's name or the type a server
or a client claimed:
- `sniff` reads the kind from the bytes (an XLSX is a ZIP holding `xl/workbook.xml`, a program
  is found by its header: PE `MZ`, ELF, Mach-O, a `#!` script);
- `file_check` says whether a file may be kept: a program (by its bytes or by its name's
  extension) is refused, so is a file over the size limit; a name whose extension claims
  another kind than the bytes (a `.csv` that is a ZIP) is kept but flagged, because sites often
  serve "report.xls" that is really HTML or CSV, and the flag says so in the trace;
- `safe_name` makes a suggested or uploaded name safe to store and show (no folders, no
  markup, no control characters, bounded);
- `file_text` reads a kept file as text for an `extract` step: UTF-8 text (CSV, TXT, JSON)
  bounded, or an XLSX's first sheet as tab-separated lines (cached values, formulas never
  evaluated; its inflated size summed from the ZIP directory before openpyxl opens it, and
  openpyxl parses through defusedxml). Anything else is refused with a `FileError`.
"""

from __future__ import annotations

import codecs
import io
import re
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
READ_MAX_CHARS = 2 * 1024 * 1024  # text an extract step reads from a file
XLSX_INFLATED_MAX = 20 * 1024 * 1024
XLSX_MAX_ROWS = 10_000
XLSX_MAX_COLUMNS = 200

EXECUTABLE_TYPES = {"pe", "elf", "mach-o", "script"}
EXECUTABLE_EXTENSIONS = {"exe", "dll", "msi", "scr", "com", "bat", "cmd", "ps1", "sh", "vbs", "js", "jar", "apk",
                         "app", "dmg", "pkg", "deb", "rpm", "elf", "bin", "so", "dylib", "lnk", "hta", "wsf"}
# What an extension promises, as sniffed types; an extension not listed promises nothing.
EXPECTED = {"csv": {"text"}, "tsv": {"text"}, "txt": {"text"}, "json": {"json", "text"}, "xml": {"text", "html"},
            "xlsx": {"xlsx"}, "docx": {"docx"}, "pdf": {"pdf"}, "png": {"png"}, "jpg": {"jpeg"},
            "jpeg": {"jpeg"}, "gif": {"gif"}, "zip": {"zip", "xlsx", "docx"}, "html": {"html"}, "htm": {"html"},
            "gz": {"gzip"}, "xls": {"ole"}, "doc": {"ole"}}
MIME = {"text": "text/plain", "json": "application/json", "html": "text/html", "pdf": "application/pdf",
        "png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "zip": "application/zip", "gzip": "application/gzip",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "ole": "application/vnd.ms-office"}
_TEXT_MIME = {"csv": "text/csv", "tsv": "text/tab-separated-values"}
_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
_HEADERS = ((b"MZ", "pe"), (b"\x7fELF", "elf"), (b"#!", "script"), (b"%PDF", "pdf"), (b"\x89PNG", "png"),
            (b"\xff\xd8\xff", "jpeg"), (b"GIF8", "gif"), (b"\x1f\x8b", "gzip"), (b"\xd0\xcf\x11\xe0", "ole"))
_UNSAFE_CHARS = re.compile(r"[<>:\"'`|?*&;$%{}\[\]\\/]+")


class FileError(ValueError):
    """A file cannot be kept or read; the message says why."""


@dataclass(frozen=True)
class RunFile:
    """A file of a run: kept (a download) or given at launch (an input). `ref` is the store's id."""

    name: str
    content: bytes = field(repr=False)
    type: str
    ref: str = ""

    @property
    def mime(self) -> str:
        return mime_type(self.name, self.type)

    @property
    def size(self) -> int:
        return len(self.content)


@dataclass(frozen=True)
class FileCheck:
    """What `file_check` found: the sniffed type, why the file is refused ("" when kept), and a
    flag for a kept file whose name claims another kind than its bytes ("" when none)."""

    type: str
    refused: str = ""
    flag: str = ""

    def facts(self) -> dict[str, Any]:
        return {"type": self.type, **({"refused": self.refused} if self.refused else {}),
                **({"flag": self.flag} if self.flag else {})}


def sniff(data: bytes) -> str:
    """The kind of the bytes: pe, elf, mach-o, script, pdf, png, jpeg, gif, gzip, ole, xlsx, docx,
    zip, html, json, text, empty or binary."""
    if not data:
        return "empty"
    if data.startswith(_MACHO):
        return "mach-o"
    for header, kind in _HEADERS:
        if data.startswith(header):
            return kind
    if data.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    head = data[:65536]
    if b"\x00" in head:
        return "binary"
    try:
        text = head.decode("utf-8-sig", errors="strict" if len(data) <= 65536 else "ignore").lstrip().lower()
    except UnicodeDecodeError:
        return "binary"
    if text.startswith(("<!doctype html", "<html")):
        return "html"
    if text.startswith(("{", "[")):
        return "json"
    return "text"


def _zip_kind(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError):
        return "binary"
    if "xl/workbook.xml" in names:
        return "xlsx"
    if "word/document.xml" in names:
        return "docx"
    return "zip"


def extension(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower() if "." in name.strip(".") else ""


def mime_type(name: str, kind: str) -> str:
    """The content type a file is handed on with: from its sniffed kind (text by its extension)."""
    if kind == "text":
        return _TEXT_MIME.get(extension(name), "text/plain")
    return MIME.get(kind, "application/octet-stream")


def file_check(name: str, content: bytes, *, max_bytes: int) -> FileCheck:
    """May this file be kept? Refused: over `max_bytes`, empty, or a program (by bytes or by name);
    flagged: its name's extension promises another kind than its bytes."""
    kind = sniff(content[:65536] if len(content) > max_bytes else content)
    if len(content) > max_bytes:
        return FileCheck(kind, f"the file is {len(content):,} bytes; at most {max_bytes:,} are kept")
    if kind == "empty":
        return FileCheck(kind, "the file is empty")
    ext = extension(name)
    if kind in EXECUTABLE_TYPES or ext in EXECUTABLE_EXTENSIONS:
        what = f"its bytes are a {kind} program" if kind in EXECUTABLE_TYPES else f"a .{ext} file is a program"
        return FileCheck(kind, f"programs are never kept ({what})")
    expected = EXPECTED.get(ext)
    if expected is not None and kind not in expected:
        return FileCheck(kind, flag=f"the name says .{ext} but the bytes are {kind}")
    return FileCheck(kind)


def safe_name(name: str, *, default: str = "download") -> str:
    """A file name safe to store and show: the last part of any path, without control characters,
    markup or shell characters, no leading dots, at most 120 characters (the extension kept)."""
    base = str(name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(c for c in unicodedata.normalize("NFC", base) if unicodedata.category(c)[0] != "C")
    base = _UNSAFE_CHARS.sub("_", base)
    base = re.sub(r"\s+", " ", base).strip(" ._") or default
    if len(base) > 120:
        ext = extension(base)
        keep = f".{ext}" if ext and len(ext) <= 10 else ""
        base = base[:120 - len(keep)].rstrip(" ._") + keep
    return base


def file_text(file: RunFile, *, max_chars: int = READ_MAX_CHARS) -> str:
    """The file as text for an `extract` step (see the module docstring); FileError otherwise."""
    if file.type in ("text", "json", "html"):
        if len(file.content) > max_chars * 4:
            raise FileError(f"{file.name!r} is {file.size:,} bytes; an extract reads at most {max_chars:,} characters")
        try:
            text = file.content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise FileError(f"{file.name!r} is not UTF-8 text (byte {exc.start})") from None
        if len(text) > max_chars:
            raise FileError(f"{file.name!r} has {len(text):,} characters; an extract reads at most {max_chars:,}")
        return text
    if file.type == "xlsx":
        return _xlsx_text(file, max_chars)
    raise FileError(f"{file.name!r} is a {file.type} file; an extract reads text (CSV, TXT, JSON) or an XLSX sheet")


def _xlsx_text(file: RunFile, max_chars: int) -> str:
    from openpyxl import load_workbook  # imported when a workbook is read, not at start

    with zipfile.ZipFile(io.BytesIO(file.content)) as archive:
        inflated = sum(info.file_size for info in archive.infolist())
    if inflated > XLSX_INFLATED_MAX:
        raise FileError(f"{file.name!r} inflates to {inflated:,} bytes; at most {XLSX_INFLATED_MAX:,} are read")
    try:
        book = load_workbook(io.BytesIO(file.content), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged workbook
        raise FileError(f"{file.name!r} cannot be read as a workbook ({type(exc).__name__})") from None
    lines: list[str] = []
    size = 0
    try:
        sheet = book.worksheets[0] if book.worksheets else None
        rows = sheet.iter_rows(values_only=True, max_row=XLSX_MAX_ROWS, max_col=XLSX_MAX_COLUMNS) if sheet else []
        for row in rows:
            line = "\t".join(_cell(v) for v in row).rstrip("\t")
            size += len(line) + 1
            if size > max_chars:
                raise FileError(f"{file.name!r} has more than {max_chars:,} characters of cells; an extract reads at most that")
            lines.append(line)
    finally:
        book.close()
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") else text
    return str(value).replace("\t", " ").replace("\n", " ").strip()


ZIP_TEXT_MAX_BYTES = 64 * 1024 * 1024  # what a secret check reads out of a zip-based file, at most


def file_holds(content: bytes, kind: str, holds: Callable[[str], bool]) -> bool:
    """Whether `holds` finds something (a vault value) in the file's text: its bytes read as UTF-8
    (UTF-16 with a byte-order mark), or, for xlsx/docx/zip, each member's (bounded)."""
    if kind in ("xlsx", "docx", "zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                budget = ZIP_TEXT_MAX_BYTES
                for member in archive.infolist():
                    if budget <= 0:
                        return False
                    with archive.open(member) as handle:
                        data = handle.read(budget)
                    budget -= len(data)
                    if _text_holds(data, holds):
                        return True
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
            pass  # not readable as an archive: its raw bytes are read below
    return _text_holds(content, holds)


def _text_holds(data: bytes, holds: Callable[[str], bool]) -> bool:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return holds(data.decode("utf-16", errors="ignore"))
    return holds(data.decode("utf-8", errors="ignore"))
