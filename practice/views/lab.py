"""Small fixed pages that exercise executor edge cases (ambiguity, delays, extraction)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def index_view(request: HttpRequest) -> HttpResponse:
    """List the lab pages."""
    return render(request, "practice/lab/index.html")


def ambiguous_view(request: HttpRequest) -> HttpResponse:
    """Two buttons both named "Save" plus a "Help" link."""
    return render(request, "practice/lab/ambiguous.html")


def delayed_view(request: HttpRequest) -> HttpResponse:
    """A "Load data" button whose result appears only after 500 ms."""
    return render(request, "practice/lab/delayed.html")


def extract_view(request: HttpRequest) -> HttpResponse:
    """A product card to extract structured data from."""
    return render(request, "practice/lab/extract.html")
