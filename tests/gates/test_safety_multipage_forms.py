"""Multi-page forms: "Next" moves on, the final submit commits (reference §3 rule 1: confirm the commit,
never an intermediate step).

The practice site's two-page expense form is the case a new user met: page 1's "Next" was held as SEND
because the heading above it says "New expense report", and page 2's "Submit expense" passed as saving a
record. The contexts below are what `workers/gates/context.py` reads from those pages in Chromium
(`practice/templates/practice/expense_details.html`, `expense_confirm.html`).
"""

from __future__ import annotations

import pytest

from workers.gates.safety import ActionContext, SafetyPolicy, classify
from workers.gates.safety.labels import moves_on

SITE = "http://127.0.0.1:8001"
POLICY = SafetyPolicy(allowed_domains=["127.0.0.1"])
# venus_rpa/core/demo.py: the demo-expense automation's own pre-approvals.
DEMO_POLICY = SafetyPolicy(allowed_domains=["127.0.0.1"], pre_approved=[["AUTH", "sign in"], ["SHARE", "receipt"],
                                                                        ["SEND", "submit expense"]])
MENU = "Acme Expenses Signed in as demo Sign out Expenses Shop Cart Order history Messages Documents Account Security "
PAGE_1 = {
    "action_type": "click",
    "target": {"role": "button", "name": "Next", "text": "Next", "tag": "button", "input_type": "submit",
               "form_method": "post", "form_action": "/expenses/new"},
    "nearby_text": ["New expense report", "Next"], "form_submit": "Next",
    "form_fields": [{"label": "Title", "input_type": "text", "name": "title", "filled": True},
                    {"label": "Amount", "input_type": "text", "name": "amount", "filled": True},
                    {"label": "Date", "input_type": "date", "name": "date", "filled": True},
                    {"label": "Category", "input_type": "select", "name": "category", "filled": True, "chosen": "Travel"}],
    "url": SITE + "/expenses/new", "page_title": "New expense report – Step 1 of 2 · Acme Expenses",
    "page_text": MENU + "New expense report Step 1 of 2: Expense details Title Amount In US dollars, for example 12.50 Date "
                        "Category Choose a category Travel Meals Lodging Office supplies Other Next",
    "allowed_domains": ["127.0.0.1"],
}
PAGE_2 = {
    "action_type": "click",
    "target": {"role": "button", "name": "Submit expense", "text": "Submit expense", "tag": "button", "input_type": "submit",
               "form_method": "post", "form_action": "/expenses/new/confirm"},
    "nearby_text": ["Expense details", "Submit expense"], "form_submit": "Back",
    "form_fields": [{"label": "Receipt", "input_type": "file", "name": "receipt", "filled": True},
                    {"label": "Notes", "input_type": "textarea", "name": "notes", "filled": True},
                    {"label": "I confirm this expense is accurate", "input_type": "checkbox", "name": "confirm", "filled": True}],
    "url": SITE + "/expenses/new/confirm", "page_title": "New expense report – Step 2 of 2 · Acme Expenses",
    "page_text": MENU + "New expense report Step 2 of 2: Receipt and confirmation Expense details Title Taxi Amount 42.50 "
                        "Date 2026-01-05 Category Travel Receipt PDF, PNG, JPG or TXT, up to 5 MB. Notes "
                        "I confirm this expense is accurate Back Submit expense",
    "allowed_domains": ["127.0.0.1"],
}


def page(base: dict, *, label: str | None = None, **changes) -> ActionContext:
    ctx = {**base, **changes}
    if label is not None:
        ctx["target"] = {**ctx["target"], "name": label, "text": label}
    return ActionContext.model_validate(ctx)


def judged(ctx: ActionContext, policy: SafetyPolicy = POLICY) -> tuple[str, str, str]:
    v = classify(ctx, policy)
    return v.category, v.level, v.decision


# --- "Next" between the pages of one form ----------------------------------------------------------


def test_next_on_the_first_page_of_the_expense_form_moves_on_without_review():
    v = classify(page(PAGE_1), POLICY)
    assert (v.category, v.level, v.decision) == ("NONE", "R1", "allow")
    assert "next page of this form (step 1 of 2)" in v.reason and "final submit" in v.reason
    assert "label.page_turn" in [e.signal for e in v.evidence]


@pytest.mark.parametrize(("label", "heading", "title", "read_alone"), [
    ("Weiter", "Zahlung", "Kasse – Schritt 1 von 3", "PAY"),  # German: the payment page comes next; its Pay is the commit
    ("下一步", "新建报销单", "报销申请 第1步，共2步", "SEND"),
    ("Suivant", "Envoyer un message", "Contact – Étape 1 sur 2", "SEND"),
    ("Siguiente", "Enviar solicitud de reembolso", "Reembolso – Paso 1 de 2", "LEGAL"),
    ("Next", "Publish your post", "New post – Step 1 of 3", "SEND"),
    ("Weiter", "Dateien hochladen und teilen", "Teilen", "SHARE"),  # "Next" needs no step counter
])
def test_next_in_any_language_does_not_take_on_what_the_whole_form_will_do(label, heading, title, read_alone):
    ctx = page(PAGE_1, label=label, nearby_text=[heading], page_title=title, page_text=f"{heading} {label}")
    assert judged(ctx) == ("NONE", "R1", "allow")
    # The heading alone still says what the form's own commit will do: a generic "Submit" under it is reviewed.
    assert judged(page(PAGE_1, label="Submit", nearby_text=[heading], page_title=title, form_fields=[]))[2] == "review"
    assert read_alone in judged(page(PAGE_1, label="Submit", nearby_text=[heading], page_title=title, form_fields=[]))


def test_next_words_come_from_the_translation_catalogs():
    assert [moves_on(x) for x in ("next", "weiter", "下一步", "suivant", "siguiente", "次へ", "다음", "следующий")] == ["next"] * 8
    assert [moves_on(x) for x in ("continue", "fortfahren", "继续", "continuer")] == ["continue"] * 4
    assert [moves_on(x) for x in ("finish", "submit", "save", "send")] == [""] * 4


def test_continue_moves_on_only_where_the_page_says_it_is_not_the_last_step():
    step_1 = page(PAGE_1, label="Continue")
    assert judged(step_1) == ("NONE", "R1", "allow")
    last = page(PAGE_1, label="Continue", page_title="New expense report – Step 2 of 2",
                page_text=MENU + "New expense report Step 2 of 2: Receipt and confirmation Continue")
    assert judged(last) == ("SEND", "R3", "review")
    charged = page(PAGE_1, label="Continue", nearby_text=["You'll be charged $20.00 today"], page_title="Subscription",
                   page_text="Premium You'll be charged $20.00 today Continue", form_fields=[])
    assert judged(charged) == ("PAY", "R3", "review")


def test_what_next_commits_by_itself_is_still_judged():
    sign_in = page(PAGE_1, nearby_text=["Sign in"], page_title="Sign in – Step 2 of 2", url=SITE + "/login",
                   form_fields=[{"label": "Password", "input_type": "password", "name": "password", "filled": True}])
    assert judged(sign_in)[:2] == ("AUTH", "R3")
    card = page(PAGE_1, nearby_text=["Payment"], page_title="Checkout – Step 2 of 3",
                form_fields=[{"label": "Card number", "input_type": "text", "autocomplete": "cc-number", "filled": True}])
    assert judged(card) == ("PAY", "R3", "review")
    in_dialog = page(PAGE_1, dialog_text="Delete 3 files? They cannot be recovered.")
    assert judged(in_dialog) == ("DEL", "R3", "review")


# --- the final submit ------------------------------------------------------------------------------


def test_submit_expense_on_the_last_page_is_reviewed_as_handing_the_claim_to_others():
    v = classify(page(PAGE_2), POLICY)
    assert (v.category, v.level, v.decision) == ("SEND", "R3", "review")
    assert "submits it to other people to act on" in v.reason and "saves this record" not in v.reason
    assert "commit.handed_over" in [e.signal for e in v.evidence]


def test_the_demo_automation_pre_approves_its_own_submit_and_nothing_else():
    assert judged(page(PAGE_2), DEMO_POLICY) == ("SEND", "R2", "allow")
    assert judged(page(PAGE_1), DEMO_POLICY) == ("NONE", "R1", "allow")
    timesheet = page(PAGE_2, label="Submit timesheet", nearby_text=["Timesheet", "Submit timesheet"], page_title="Timesheet")
    assert judged(timesheet, DEMO_POLICY) == ("SEND", "R3", "review")


@pytest.mark.parametrize("label", ["Submit claim", "Submit for approval", "Submit leave request", "Submit a new order"])
def test_a_submit_that_names_a_claim_request_or_order_is_not_a_record_save(label):
    assert judged(page(PAGE_2, label=label, nearby_text=[], page_title="Acme")) == ("SEND", "R3", "review")


def test_a_bare_submit_under_an_expense_report_title_is_reviewed():
    v = classify(page(PAGE_2, label="Submit"), POLICY)
    assert (v.category, v.level, v.decision) == ("SEND", "R3", "review")
    assert "the page says 'expense report'" in v.reason


def test_saving_a_tracker_record_is_still_a_save():
    ticket = page(PAGE_2, label="Submit changes", nearby_text=[], page_title="#1 (Projector) – Trac",
                  page_text="Summary Priority Cc Add Comment Submit changes",
                  form_fields=[{"label": "Add Comment", "input_type": "textarea", "filled": True},
                               {"label": "Summary", "input_type": "text", "filled": True},
                               {"label": "Priority", "input_type": "select", "filled": True, "chosen": "major"},
                               {"label": "Cc", "input_type": "text"}])
    assert judged(ticket) == ("NONE", "R2", "allow")


def test_a_get_form_that_only_opens_the_claim_form_is_a_lead_in():
    opener = page(PAGE_2, label="Submit a claim", url=SITE + "/claims",
                  target={**PAGE_2["target"], "form_method": "get", "form_action": "/claims/new"})
    assert judged(opener) == ("NONE", "R1", "allow")


# --- reasons in plain words ------------------------------------------------------------------------


def test_a_label_read_from_its_surroundings_says_which_text_it_was_read_from():
    v = classify(page(PAGE_1, label="Submit", nearby_text=["Publish your post"], page_title="New post", form_fields=[]), POLICY)
    assert v.reason.startswith("Clicking 'submit' counts as a step that sends or publishes something to other people, "
                               "because the text near it says 'publish'.")
    ok = classify(ActionContext(action_type="click", target={"role": "button", "name": "OK"},
                                dialog_text="Delete this file? It cannot be recovered."), POLICY)
    assert "because the dialog it is in says" in ok.reason and "is about" not in ok.reason
