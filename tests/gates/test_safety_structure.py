"""The safety gate reads what a control commits from the page's structure when its wording is
unknown (issue 12): a form with a filled password, the developer's identifiers, the address a POST
form submits to, an SSO button on a sign-in page, a file being uploaded, a console window in any
UI language, a Delete that lands in a trash. The labels here are deliberately words no lexicon
holds ("Qwzx", "Blorp"): only the structure can decide.

No Django: run with `pytest tests/gates -q -p no:django --noconftest`.
"""

from __future__ import annotations

import pytest

from workers.gates.safety import ActionContext, SafetyPolicy, TargetInfo, classify
from workers.gates.safety.context import FormField


def submit(label: str = "Qwzx", fields: list[dict] | None = None, *, input_type: str = "submit", method: str = "post",
           url: str = "https://app.example.org/x", **extra) -> ActionContext:
    target = {"role": "button", "name": label, "text": label, "input_type": input_type, "form_method": method, **extra.pop("target", {})}
    return ActionContext(action_type="click", url=url, target=TargetInfo(**target),
                         form_fields=[FormField(**f) for f in (fields or [])], **extra)


def verdict(context: ActionContext):
    return classify(context, SafetyPolicy())


USER = {"label": "Blorp", "input_type": "text", "filled": True}
EMAIL = {"label": "Zorp", "input_type": "email", "filled": True}
CURRENT = {"label": "Plonk", "input_type": "password", "autocomplete": "current-password", "filled": True}
NEW = {"label": "Plink", "input_type": "password", "autocomplete": "new-password", "filled": True}


@pytest.mark.parametrize("fields, category", [
    ([USER, CURRENT], "AUTH"),                                       # sign-in, whatever the button says
    ([USER, {**CURRENT, "autocomplete": ""}], "AUTH"),               # an unmarked single password signs in too
    ([EMAIL, USER, NEW], "ACCT"),                                    # sign-up: an identity and a new password
    ([CURRENT, NEW, {**NEW, "label": "Plank"}], "SEC"),              # a password change
    ([{"label": "Stare hasło", "input_type": "password", "filled": True},
      {"label": "Nowe hasło", "input_type": "password", "filled": True}], "SEC"),  # old/new read from the labels (Polish)
    ([NEW, {**NEW, "label": "Plank"}], "SEC"),                       # a reset: new password twice, no identity
])
def test_a_form_with_a_filled_password_is_read_from_its_fields(fields, category):
    v = verdict(submit("Qwzx", fields))
    assert (v.category, v.decision) == (category, "review"), v.reason


def test_the_password_reading_needs_a_filled_password_and_a_real_submit():
    assert verdict(submit("Qwzx", [USER, {**CURRENT, "filled": False}])).decision == "allow"  # profile save, password left empty
    assert verdict(submit("Qwzx", [USER, CURRENT], input_type="button")).decision == "allow"  # a script button submits nothing
    assert verdict(submit("Cancel", [USER, CURRENT])).decision == "allow"  # dismissing the sign-in form
    assert verdict(submit("Show password", [USER, CURRENT])).decision == "allow"


def test_a_password_sign_in_on_a_look_alike_host_is_blocked():
    v = classify(submit("Qwzx", [USER, CURRENT], url="https://paypa1-secure.example.net/signin"),
                 SafetyPolicy(allowed_domains=["paypal.com"]))
    assert (v.category, v.decision) == ("AUTH", "block"), v.reason


def test_developer_identifiers_say_what_an_unknown_label_does():
    v = verdict(submit("Qwzx", method="", target={"attributes": {"name": "bulk_action.public"}}))
    assert (v.category, v.decision) == ("SHARE", "review"), v.reason
    assert verdict(submit("Qwzx", method="", target={"attributes": {"name": "qwzx_toggle"}})).decision == "allow"


def test_the_address_a_post_form_submits_to_decides_an_unknown_label():
    assert verdict(submit("Qwzx", target={"form_action": "/user/register"})).category == "ACCT"
    assert verdict(submit("Qwzx", method="get", target={"form_action": "/user/register"})).decision == "allow"


def test_continue_with_a_provider_signs_in_only_on_a_sign_in_page():
    on_sign_in = submit("Fortfahren mit Blorp", method="", url="https://konto.example.de/login", page_title="Anmelden")
    assert verdict(on_sign_in).category == "AUTH"
    elsewhere = submit("Fortfahren mit Blorp", method="", url="https://shop.example.de/warenkorb", page_title="Warenkorb")
    assert verdict(elsewhere).decision == "allow"


def test_submitting_a_form_that_uploads_a_file_shares_it():
    v = verdict(submit("Qwzx", file_name="payroll_full.xlsx"))
    assert (v.category, v.decision) == ("SHARE", "review"), v.reason


@pytest.mark.parametrize("title", ["관리자: 명령 프롬프트", "Eingabeaufforderung", "Invite de commandes", "Командная строка"])
def test_a_command_typed_into_a_localised_console_is_judged_as_a_command(title):
    context = ActionContext(action_type="type", surface="desktop", window_title=title, app_name=title,
                            target=TargetInfo(role="console", name="console"), typed_text="bcdedit /set {current} safeboot minimal\n")
    assert verdict(context).decision in ("review", "block")


def test_a_delete_that_lands_in_the_trash_is_easily_undone_but_not_when_the_page_says_it_is_final():
    mailbox = ActionContext(action_type="click", url="https://mail.example.com/inbox/3", target=TargetInfo(role="button", name="Delete"),
                            nearby_text=["Moved to Trash. Undo"])
    assert verdict(mailbox).decision == "allow"
    final = ActionContext(action_type="click", url="https://mail.example.com/inbox/3", target=TargetInfo(role="button", name="Delete"),
                          nearby_text=["Trash"], dialog_text="Delete this message? This cannot be undone.")
    assert verdict(final).decision == "review"
    german = ActionContext(action_type="click", target=TargetInfo(role="button", name="Löschen"),
                           nearby_text=["Dies kann nicht rückgängig gemacht werden."])
    assert verdict(german).decision == "review"


def test_choosing_a_bulk_action_in_a_select_listed_by_the_form_is_a_lead_in():
    context = ActionContext(action_type="select", url="https://admin.example.org/users", option="Delete selected users",
                            target=TargetInfo(role="combobox", name="Action"),
                            form_fields=[FormField(label="Action", input_type="select", chosen="Delete selected users")])
    assert verdict(context).decision == "allow"


@pytest.mark.parametrize("label, category", [
    ("Kundenkonto endgültig schließen", "ACCT"),   # account + close, an adverb between them
    ("Bekreft endring av flyvning", "BOOK"),       # confirm + flight (Norwegian)
    ("Maak publiek", "SHARE"),                     # make + public (Dutch)
    ("İki adımlı doğrulamayı kapat", "SEC"),       # two-step verification + turn off (Turkish)
])
def test_an_object_and_a_verb_anywhere_in_the_label_make_a_commit(label, category):
    v = verdict(ActionContext(action_type="click", url="https://app.example.org/x", target=TargetInfo(role="button", name=label)))
    assert (v.category, v.decision) == (category, "review"), v.reason


@pytest.mark.parametrize("label", ["Account settings", "My bookings", "View order", "Kontoeinstellungen", "เปิดเซิร์ฟเวอร์"])
def test_an_object_without_a_committing_verb_is_not_a_commit(label):
    v = verdict(ActionContext(action_type="click", url="https://app.example.org/x", target=TargetInfo(role="button", name=label)))
    assert v.decision == "allow", v.reason


@pytest.mark.parametrize("label, title, category", [
    ("Deaktivieren", "Zwei-Faktor-Authentifizierung deaktivieren", "SEC"),  # the verb on the button, the object in the title
    ("Désactiver", "Désactiver la validation en deux étapes", "SEC"),  # "Click to sign" is an e-signature on its own since the s23 e_sign concept
])
def test_a_button_that_is_only_a_verb_acts_on_what_the_page_names(label, title, category):
    v = verdict(ActionContext(action_type="click", url="https://app.example.org/x", page_title=title,
                              target=TargetInfo(role="button", name=label)))
    assert (v.category, v.decision) == (category, "review"), v.reason
    bare = verdict(ActionContext(action_type="click", url="https://app.example.org/x", page_title="Benachrichtigungen",
                                 target=TargetInfo(role="button", name=label)))
    assert bare.decision == "allow", bare.reason


def test_sending_a_code_to_the_users_own_masked_number_is_not_sending_a_message():
    v = verdict(ActionContext(action_type="click", url="https://app.example.org/account/login/", page_title="Login",
                              target=TargetInfo(role="button", name="Send text message to +*********67")))
    assert v.decision == "allow", v.reason
    plain = verdict(ActionContext(action_type="click", url="https://app.example.org/messages",
                                  target=TargetInfo(role="button", name="Send text message to +33 6 12 34 56 78")))
    assert plain.decision == "review", plain.reason


def test_a_filter_chip_with_an_amount_removes_the_filter():
    v = verdict(ActionContext(action_type="click", url="https://shop.example.org/search", target=TargetInfo(role="button", name="Price: under $100 ×")))
    assert v.decision == "allow", v.reason


@pytest.mark.parametrize("command, decision", [
    ("rm --help\n", "allow"), ("git push --dry-run --force origin main\n", "allow"),
    ("sudo shutdown -h now\n", "review"), ("git push --force origin main\n", "review"),
])
def test_a_command_that_only_prints_its_help_or_a_dry_run_changes_nothing(command, decision):
    context = ActionContext(action_type="type", surface="desktop", window_title="dev@laptop: ~/repo",
                            target=TargetInfo(role="terminal", name="terminal"), typed_text=command)
    assert verdict(context).decision == decision


def test_a_generic_confirm_reads_its_dialogs_verb_in_any_language():
    v = verdict(ActionContext(action_type="click", url="https://code.example.org/gist/41", dialog_text="Підтвердіть видалення цього запису",
                              target=TargetInfo(role="button", name="OK")))
    assert (v.category, v.decision) == ("DEL", "review"), v.reason


def test_run_beside_a_destructive_query_is_judged_by_the_query():
    context = ActionContext(action_type="click", url="https://db.example.org/sql", nearby_text=["DROP TABLE customers_archive;"],
                            target=TargetInfo(role="button", name="Run query"))
    assert verdict(context).decision == "review"
    harmless = ActionContext(action_type="click", url="https://db.example.org/sql", nearby_text=["SELECT count(*) FROM orders;"],
                             target=TargetInfo(role="button", name="Run query"))
    assert verdict(harmless).decision == "allow"
