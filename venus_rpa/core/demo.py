"""The demo workspace, user, credential and `demo-expense` automation (used by `make up`,
the benchmarks and the end-to-end tests)."""

from __future__ import annotations

from urllib.parse import urlsplit

DEMO_USER = "demo"
DEMO_PASSWORD = "venus-demo"  # noqa: S105 -- the public demo account's password, printed by make up
DEMO_WORKSPACE = "demo"
DEMO_AUTOMATION = "demo-expense"
PRACTICE_CREDENTIAL = "practice-login"


def demo_expense_definition(practice_url: str) -> dict:
    """Sign in to the practice site and file an expense report, with explicit steps."""
    host = urlsplit(practice_url).hostname or "127.0.0.1"
    cred = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    return {
        "surface": "web",
        "start_url": practice_url.rstrip("/") + "/login",
        "allowed_domains": [host],  # runs may visit only the practice site (workers/egress.py)
        "goal": "Sign in and file an expense report for {{title}}",
        "credentials": [PRACTICE_CREDENTIAL],
        "param_schema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "default": "Taxi to the airport"},
                "amount": {"type": "string", "pattern": r"^\d+(\.\d{1,2})?$", "default": "42.50"},
                "date": {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$", "default": "2026-11-30"},
                "category": {"type": "string", "enum": ["Travel", "Meals", "Lodging", "Office supplies", "Other"],
                             "default": "Travel"},
                "notes": {"type": "string", "default": "Filed by Venus RPA"},
            },
            "required": ["title", "amount", "date", "category"],
            "additionalProperties": False,
        },
        "steps": [
            {"kind": "fill", "name": "Type the username", "target": "Username", "value": cred % "username"},
            {"kind": "fill", "name": "Type the password", "target": "Password", "value": cred % "password"},
            {"kind": "click", "name": "Sign in", "target": {"role": "button", "name": "Sign in"}},
            {"kind": "wait_for", "name": "Wait for the expense form", "text": "Step 1 of 2"},
            {"kind": "fill", "target": "Title", "value": "{{title}}"},
            {"kind": "fill", "target": "Amount", "value": "{{amount}}"},
            {"kind": "fill", "target": "Date", "value": "{{date}}"},
            {"kind": "select", "target": "Category", "option": "{{category}}"},
            {"kind": "click", "name": "Next page", "target": {"role": "button", "name": "Next"}},
            {"kind": "upload", "name": "Attach the receipt", "target": "Receipt", "filename": "receipt.txt",
             "content": "Receipt: {{title}}, {{amount}} on {{date}}"},
            {"kind": "fill", "target": "Notes", "value": "{{notes}}"},
            {"kind": "check", "target": "I confirm this expense is accurate"},
            {"kind": "click", "name": "Submit the report", "target": {"role": "button", "name": "Submit expense"}},
            {"kind": "wait_for", "name": "Wait for the confirmation", "text": "Expense submitted"},
            {"kind": "extract", "name": "Read the reference", "target": {"css": "#reference"}, "into": "reference",
             "pattern": r"(EXP-\d+)"},
        ],
        "success_criteria": {"text_visible": "Expense submitted", "url_contains": "/expenses/EXP-"},
        "output_schema": {
            "type": "object",
            "properties": {"reference": {"type": "string", "pattern": "^EXP-\\d+$"}},
            "required": ["reference"],
        },
        "limits": {"max_steps": 50, "max_seconds": 300},
        # Filing the report is this automation's purpose: signing in, attaching the receipt and
        # sending the report (the form's Next under "New expense report", then "Submit expense") are
        # pre-approved; anything else consequential still waits for a reviewer.
        "safety": {"pre_approved": [["AUTH", "sign in"], ["SHARE", "receipt"], ["SEND", "submit expense"],
                                    ["SEND", "new expense report"]]},
    }


def demo_signed_in_expense_definition(practice_url: str) -> dict:
    """The demo expense automation with a persistent login: it opens the expense form (the site
    sends signed-out visitors to /login and back), marks its three sign-in steps, and tells a
    signed-in page by "Sign out" on a URL other than /login. Runs after the first start signed in."""
    definition = demo_expense_definition(practice_url)
    steps = [dict(step) for step in definition["steps"]]
    for step in steps[:3]:
        step["sign_in"] = True
    return {
        **definition,
        "start_url": practice_url.rstrip("/") + "/expenses/new",
        "steps": steps,
        "sign_in": {"credential": PRACTICE_CREDENTIAL,
                    "check": {"text_visible": "Sign out", "url_excludes": "/login"}},
    }


def demo_expense_items_definition(practice_url: str, *, lanes: int = 2) -> dict:
    """File one expense per row of a sheet in one run (docs/workflows.md, "Items"): sign in once,
    then for each item open the expense list, skip the item when its title is already there, and
    file it; a row the form refuses (a bad amount or date) fails alone at "Step 2 of 2". Columns:
    title, amount, date, category. `lanes`: rows filed at once (docs/workflows.md, "Lanes")."""
    definition = demo_expense_definition(practice_url)
    sign_in, form, submit = definition["steps"][:4], definition["steps"][4:9], definition["steps"][9:]
    item = {"title": "{{item.title}}", "amount": "{{item.amount}}", "date": "{{item.date}}",
            "category": "{{item.category}}"}
    form = [{**step, **({"value": item[step["target"].lower()]} if "value" in step else {}),
             **({"option": item["category"]} if "option" in step else {})} for step in form]
    submit = [{**step, "content": "Receipt: {{item.title}}, {{item.amount}} on {{item.date}}"}
              if step["kind"] == "upload" else {**step, "value": "Filed by Venus RPA"} if step.get("target") == "Notes"
              else step for step in submit]
    return {
        **definition,
        "goal": "Sign in and file one expense report per row of the sheet",
        "param_schema": {"type": "object", "properties": {}, "additionalProperties": False},
        "steps": [
            *sign_in,
            {"kind": "for_each", "name": "Every row", "lanes": lanes, "steps": [
                {"kind": "goto", "name": "Open the expense list", "url": "/expenses"},
                {"kind": "if", "name": "Already filed", "condition": {"text_visible": "{{item.title}}", "wait_s": 0.2},
                 "steps": [{"kind": "skip_item", "reason": "already filed"}]},
                {"kind": "goto", "name": "Open the form", "url": "/expenses/new"},
                *form,
                {"kind": "wait_for", "name": "Wait for step 2", "text": "Step 2 of 2", "timeout_s": 3},
                *submit,
            ]},
        ],
        "output_schema": {},
        "success_criteria": {},
        "limits": {"max_steps": 50, "max_seconds": 1800},
    }
