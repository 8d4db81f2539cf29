"""The curated concept lexicon (workers/gates/safety/concepts.json) and the structural cues that read
a control by what it is rather than by its exact wording (issue 12: the gate must generalise).
No browser: each case is an ActionContext as the executor builds it."""

from __future__ import annotations

import json
import time

import pytest

from workers.gates.safety import ActionContext, classify
from workers.gates.safety import concepts, labels

TAXONOMY = {"PAY", "DEL", "SEND", "SHARE", "AUTH", "SEC", "INSTALL", "ACCT", "BOOK", "LEGAL", "SYS", "NONE"}
KINDS = {"trigger", "nav", "local", "code", "codeverb", "negation", "dismiss", "composer", "r2", "callverb"}
REQUIRED = set("en zh ja ko de fr es it pt nl pl ru uk tr sv cs da no fi hu ro el ar he hi id vi th ms".split()) - {"en", "zh"}


def click(label: str, **extra) -> ActionContext:
    target = {"role": "button", "name": label, "tag": "button", **extra.pop("target", {})}
    return ActionContext.model_validate({"surface": "web", "action_type": "click", "url": "https://shop.example.com/p/1",
                                         "target": target, **extra})


def gated(ctx: ActionContext) -> bool:
    return classify(ctx).decision != "allow"


def test_every_concept_has_a_category_a_kind_and_forms_in_the_required_languages():
    doc = json.loads(concepts.DATA.read_text(encoding="utf-8"))
    assert set(doc["languages"]) >= REQUIRED
    ids = [c["id"] for c in doc["concepts"]]
    assert len(ids) == len(set(ids))
    for c in doc["concepts"]:
        # A whole-label generic ("confirm": Approve, Allow) may leave its category to the page (UNKNOWN).
        assert (c["category"] in TAXONOMY or (c["kind"], c["category"]) == ("confirm", "UNKNOWN")) and c["kind"] in KINDS | {"confirm"} \
            and c["gloss"], c["id"]
        if c["kind"] == "confirm":
            assert set(c["forms"]) >= REQUIRED, (c["id"], REQUIRED - set(c["forms"]))
        assert set(c["forms"]) <= set(doc["languages"]), c["id"]
        if c["kind"] == "trigger" and c["category"] != "PAY" or c["id"] in ("pay", "buy", "order", "transfer"):
            assert set(c["forms"]) >= REQUIRED, (c["id"], REQUIRED - set(c["forms"]))
    categories = {c["category"] for c in doc["concepts"] if c["kind"] == "trigger"}
    assert categories == TAXONOMY - {"NONE"}


@pytest.mark.parametrize("label", ["Jetzt kaufen", "Payer maintenant", "Оплатить заказ", "결제하기", "購入する", "Acquista ora",
                                   "Siparişi onayla", "Freigeben", "Vaciar papelera", "भेजें", "Zapłać", "Poista", "Ödemeyi tamamla",
                                   "Đặt hàng", "Kirjaudu sisään", "ファイアウォールを無効にする", "Firmar"])
def test_everyday_commit_words_are_read_in_many_languages(label):
    assert gated(click(label, target={"form_method": "post"}))


@pytest.mark.parametrize("label", ["Zahlungsverlauf", "Historial de pagos", "결제 내역", "購入履歴", "Удалить из корзины", "Weiter zur Kasse",
                                   "Code senden", "Отправить код", "No borrar", "Nicht löschen", "削除しない", "Abmelden",
                                   "In den Papierkorb verschieben", "Filter löschen", "Abbrechen", "Annuler"])
def test_places_local_steps_code_requests_negations_and_dismissals_are_not_commits(label):
    assert not gated(click(label))


def test_a_clause_word_keeps_its_verb_outside_it():
    assert labels.read_label("borrar historial").best().category == "DEL"  # the verb is not in the noun's clause
    assert labels.read_label("historial de pagos").best().category == "NONE"


def test_a_currency_amount_on_a_control_is_a_payment_and_an_amount_in_a_cart_step_is_not():
    assert classify(click("42,00 € →")).category == "PAY"
    assert classify(click("₩12,000")).category == "PAY"
    assert not gated(click("In den Warenkorb – 42,00 €"))
    assert not concepts.CURRENCY_AMOUNT.search("left 2 items")


def test_openers_are_lead_ins_on_every_surface():
    assert not gated(click("Delete Sheet…", target={"role": "menu item"}, surface="desktop"))
    assert not gated(click("Share", target={"attributes": {"aria-haspopup": "dialog"}}))
    assert not gated(click("Share", target={"opens": "sheet"}, surface="android"))
    assert gated(click("Delete Sheet"))


def test_reply_opens_a_composer_unless_a_composer_is_already_there():
    assert not gated(click("Reply all", url="https://mail.example.com/#inbox/1"))
    assert not gated(click("Antworten"))
    assert gated(click("Reply", nearby_text=["Write a reply…"]))
    assert gated(click("Send", url="https://mail.example.com/#inbox/1"))


def test_typing_card_details_is_not_the_commit_but_the_submit_of_the_card_form_is():
    typing = ActionContext.model_validate({"surface": "web", "action_type": "type", "typed_text": "4111 1111 1111 1111",
                                           "url": "https://pay.example.com/checkout", "target": {"role": "textbox", "name": "Card number",
                                                                                                "autocomplete": "cc-number"}})
    assert not gated(typing)
    submit = click("Continue", target={"form_method": "post"},
                   form_fields=[{"label": "Card number", "autocomplete": "cc-number", "filled": True}])
    assert classify(submit).category == "PAY" and gated(submit)


def test_saving_a_record_is_not_sending_but_a_message_form_is():
    record = [{"label": "Summary", "filled": True}, {"label": "Priority", "chosen": "blocker"}, {"label": "Cc", "filled": False},
              {"label": "Add Comment", "filled": True}]
    assert not gated(click("Submit changes", target={"form_method": "post"}, form_fields=record))
    message = [{"label": "To", "filled": True}, {"label": "Subject", "filled": True}, {"label": "Message", "filled": True}]
    assert gated(click("Submit", target={"form_method": "post"}, form_fields=message))
    assert gated(click("Submit changes", target={"form_method": "post"}, form_fields=[*record[:2], {"label": "Cc", "filled": True}]))


def test_a_chosen_option_commits_only_as_an_action_or_a_visibility():
    milestone = [{"label": "Milestone", "chosen": "Spring release"}]
    assert not gated(click("Create ticket", target={"form_method": "post"}, form_fields=milestone))
    action = [{"label": "Action:", "name": "action", "chosen": "Delete selected users"}]
    assert classify(click("Go", target={"form_method": "post"}, form_fields=action)).category == "DEL"
    exposure = [{"label": "Paste", "filled": True}, {"label": "Exposure", "chosen": "Public"}]
    assert gated(click("Create paste", target={"form_method": "post"}, form_fields=exposure))


def test_a_get_form_to_this_page_is_a_lead_in():
    ctx = click("– Delete", url="http://127.0.0.1:8000/ticket/2",
                target={"tag": "input", "input_type": "submit", "form_method": "get", "form_action": "#"})
    assert not gated(ctx)


def test_reading_a_long_text_stays_fast():
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor " * 12
    labels.read_label(text)
    start = time.perf_counter()
    for _ in range(5):
        labels.read_label(text)
    # A trie per lexicon: ~20 ms on a busy shared core; one alternative per form took ~700 ms.
    assert (time.perf_counter() - start) / 5 < 0.2
