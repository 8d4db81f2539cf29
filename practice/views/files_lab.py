"""Files on the practice site: a report to download (CSV or XLSX, and hostile variants), a form
to post its total into, and a form with a file input (multipart) that remembers what it received."""

from __future__ import annotations

import hashlib
import io
import threading

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

REPORT_ROWS = [("2026-11-02", "Taxi", "12.50"), ("2026-11-09", "Hotel", "240.00"), ("2026-11-17", "Lunch", "18.25")]
REPORT_TOTAL = "270.75"
MAX_PADDING = 200 * 1024 * 1024

_received: dict[str, list] = {"totals": [], "attachments": []}
_lock = threading.Lock()


def report_view(request: HttpRequest) -> HttpResponse:
    """``/lab/report``: links that download the month's report, and a form to post its total."""
    return render(request, "practice/lab/report.html")


def _report_csv(padding: int = 0) -> bytes:
    lines = ["Date,Item,Amount", *(",".join(row) for row in REPORT_ROWS), f"Total,,{REPORT_TOTAL}"]
    text = "\n".join(lines) + "\n"
    return text.encode() + (b"# " + b"-" * max(padding - 3, 0) + b"\n" if padding else b"")


def _report_xlsx() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Date", "Item", "Amount"])
    for date, item, amount in REPORT_ROWS:
        sheet.append([date, item, float(amount)])
    sheet.append(["Total", None, float(REPORT_TOTAL)])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _attachment(body: bytes, name: str, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def report_file_view(request: HttpRequest, fmt: str) -> HttpResponse:
    """``/lab/report.csv`` (``?as=program``: a PE program named report.csv; ``?as=zip``: a ZIP named
    report.csv; ``?pad=N``: N more bytes of comment; ``?name=…``: another suggested name) and
    ``/lab/report.xlsx``."""
    name = request.GET.get("name") or f"report-2026-11.{fmt}"
    if fmt == "xlsx":
        return _attachment(_report_xlsx(), name, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    kind = request.GET.get("as", "")
    if kind == "program":
        return _attachment(b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 120 + b"This program cannot be run in DOS mode.",
                           name, "text/csv")
    if kind == "zip":
        import zipfile

        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr("report.csv", _report_csv())
        return _attachment(out.getvalue(), name, "text/csv")
    try:
        padding = min(max(int(request.GET.get("pad", "0")), 0), MAX_PADDING)
    except ValueError:
        padding = 0
    return _attachment(_report_csv(padding), name, "text/csv")


def total_view(request: HttpRequest) -> HttpResponse:
    """``/lab/report/total``: a POST form ("Reported total", "Submit total"); every total received is remembered."""
    received = ""
    if request.method == "POST":
        received = request.POST.get("total", "")[:100]
        with _lock:
            _received["totals"].append(received)
    return render(request, "practice/lab/report_total.html", {"received": received})


def attach_view(request: HttpRequest) -> HttpResponse:
    """``/lab/attach``: a multipart form with a file input ("Receipt", "Send receipt"); what it
    received (name, size, SHA-256) is remembered and shown."""
    received = None
    if request.method == "POST" and "receipt" in request.FILES:
        upload = request.FILES["receipt"]
        body = upload.read()
        received = {"name": upload.name, "size": len(body), "sha256": hashlib.sha256(body).hexdigest(),
                    "content_type": upload.content_type}
        with _lock:
            _received["attachments"].append(received)
    return render(request, "practice/lab/attach.html", {"received": received})


def files_api(request: HttpRequest) -> JsonResponse:
    """What the total form and the file input received since the last reset."""
    with _lock:
        return JsonResponse({k: list(v) for k, v in _received.items()})


def reset() -> None:
    with _lock:
        for values in _received.values():
            values.clear()
