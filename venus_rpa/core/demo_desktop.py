"""The demo desktop automation `demo-desktop-expenses` (seeded by `make up`): the spreadsheet
practice task. It opens the practice workbook `expenses.gnumeric` (copied into every desktop
session's Documents folder), fills a row from the run's parameters and saves the file, which
becomes the run's artifact."""

from __future__ import annotations

DEMO_DESKTOP_AUTOMATION = "demo-desktop-expenses"


def demo_desktop_definition() -> dict:
    return {
        "surface": "desktop",
        "start_url": "app:gnumeric/expenses.gnumeric",
        "goal": "Add an expense row to the workbook and save it.",
        "param_schema": {
            "type": "object",
            "properties": {"item": {"type": "string", "default": "Taxi to the airport"},
                           "amount": {"type": "string", "default": "42.50"}},
            "required": ["item", "amount"],
        },
        "steps": [
            {"kind": "fill", "name": "Item", "target": {"role": "cell", "name": "A3"}, "value": "{{item}}"},
            {"kind": "fill", "name": "Amount", "target": {"role": "cell", "name": "B3"}, "value": "{{amount}}"},
            {"kind": "press", "name": "Save the workbook", "key": "ctrl+s"},
            {"kind": "wait_for", "name": "Saved", "url_contains": "app://gnumeric/expenses.gnumeric", "timeout_s": 20},
        ],
        "success_criteria": {"url_contains": "app://gnumeric/expenses.gnumeric"},  # saved: no "*" in the title
        "limits": {"max_seconds": 300},
    }
