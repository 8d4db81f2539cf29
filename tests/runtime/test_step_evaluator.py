"""The step evaluator (workers.evaluator): the labelled set of effective and ineffective actions
on the practice site, judged in a real Chromium exactly as the agent loop judges them, and the
evidence it records (never a typed value)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.helpers import runtime
from tests.helpers.effect_cases import CASES, judge_case, scores
from tests.helpers.runtime import local_secrets
from workers import actions as A
from workers.evaluator import PageState, judge

browser = runtime.browser  # one Chromium for the module


def test_the_labelled_set_is_judged_with_precision_and_recall_of_at_least_095(browser):
    async def body(env, ex):
        return [(case, await judge_case(env, browser.base_url, case)) for case in CASES]

    labelled = browser.session(body)
    wrong = [(c.name, e and e.to_json()) for c, e in labelled if e is None or e.effective != c.effective]
    figures = scores(labelled)
    assert figures["precision"] >= 0.95 and figures["recall"] >= 0.95, (figures, wrong)
    assert figures["effective_precision"] >= 0.95 and figures["effective_recall"] >= 0.95, (figures, wrong)
    checks = {c.name: e.check for c, e in labelled if e}
    assert checks["click a disabled button"] == "target_disabled"
    assert checks["click a link"] == "navigation"
    assert checks["type 6 digits into a maxlength-4 field"] == "field_value"
    assert checks["check a bad code: an error appears"] == "error_message"
    # The server's answer a second later is waited for (past the late reads): its error, its result.
    assert checks["a check the server answers a second later with an error"] == "error_message"
    assert checks["a load the server answers a second later"] == "page_changed"
    assert checks["follow a link to the page already shown"] == "same_page_link"
    # A warning beside the success; a routed view whose data was refused; a cell chosen by its
    # class; a scroll at the end read after the previous wheel's scroll was drawn.
    assert checks["publish: done, with a warning beside the success"] == "page_changed"
    assert checks["open a view the server refuses (routed by script)"] == "http_status"
    assert checks["choose a grid cell marked by its class alone"] == "element_state"
    assert checks["scroll down at the end after four scrolls"] == "nothing_scrolled"
    # A zero count said; a page busy past the request wait; a click after a transition ended; a
    # widget's chosen option (its class says so).
    assert checks["archive: '0 expenses archived.'"] == "nothing_done_message"
    assert checks["a report the page says it is busy with for 3.5 s"] == "page_changed"
    assert checks["fold an answer right after it unfolded (a transition)"] == "element_state"
    assert checks["pick the owner already chosen in a widget's drop-down"] == "option_already_selected"
    # A refusal said only in red beside its field; a line only a screen reader hears.
    assert checks["request a refund with no amount: refused in red beside the field"] == "error_message"
    assert checks["request a refund of 20"] == "page_changed"
    assert checks["sync: only a screen-reader line says 'Syncing', then nothing"] == "nothing_changed"


def test_a_typed_vault_value_is_checked_without_its_value_or_length_in_the_evidence(browser):
    async def body(env, ex):
        from tests.helpers.effect_cases import Case

        return await judge_case(env, browser.base_url,
                                Case("secret", "type:{{credentials.acme.password}}", True, setup=("click:#notes",)))

    effect = browser.session(body, secrets=local_secrets())
    assert effect.verdict == "effective" and effect.evidence == {"matches": True, "secret": True}
    assert runtime.PASSWORD not in str(effect.to_json())


@pytest.mark.parametrize("after,verdict,check", [
    (PageState(url="http://h/b"), "effective", "navigation"),
    (PageState(url="http://h/a", errors=("Wrong code",)), "error", "error_message"),
    (PageState(url="http://h/a", digest="2"), "effective", "page_changed"),
    (PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True}),
     "ineffective", "target_disabled"),
    (PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True},
               invalid=("email",)), "ineffective", "target_disabled"),
])
def test_judge_decides_a_click_from_the_page_before_and_after(after, verdict, check):
    before = PageState(url="http://h/a", digest="1", target={"key": 7, "tag": "button", "disabled": True})
    effect = judge(A.Click(point=(10, 10)), before, after)
    assert (effect.verdict, effect.check) == (verdict, check)


def test_judge_flags_a_submit_blocked_by_an_invalid_field():
    page = PageState(url="http://h/a", digest="1", target={"key": 3, "tag": "button", "form": {"method": "post"}},
                     invalid=("email",))
    effect = judge(A.Click(point=(1, 1)), page, page)
    assert (effect.verdict, effect.check, effect.evidence) == ("error", "form_invalid", {"invalid_fields": ["email"]})
    # A link outside any form, on a page with an empty required field elsewhere, is not a refused submit.
    link = replace(page, target={"key": 4, "tag": "a"})
    assert judge(A.Click(point=(1, 1)), link, link).check == "nothing_changed"


@pytest.mark.parametrize("after,verdict,check", [
    # The same address served again with an error on it: the form the server sent back.
    (PageState(url="http://h/a?x=1#f", document="d2", digest="2", errors=("Title is required",)),
     "error", "error_message"),
    # Another page after a submit may carry its own warning: the navigation decides.
    (PageState(url="http://h/b", document="d2", digest="2", errors=("Your trial ends soon",)),
     "effective", "navigation"),
    (PageState(url="http://h/b", document="d2", status=404), "error", "http_status"),
    (PageState(url="http://h/a", document="d2", status=500), "error", "http_status"),
    # The same page again, showing exactly the same: nothing the user can see happened.
    (PageState(url="http://h/a?q=", document="d2", digest="1"), "ineffective", "reloaded_unchanged"),
    (PageState(url="http://h/a", document="d2", digest="1"), "ineffective", "reloaded_unchanged"),
    (PageState(url="http://h/a", document="d2", digest="2"), "effective", "navigation"),
    # The target's state is not compared across documents (element keys restart on a new page).
    (PageState(url="http://h/a", document="d2", digest="2", target={"key": 7, "tag": "button", "checked": True}),
     "effective", "navigation"),
    # An in-page link that moved the page; one that changed only the address (a tab already shown).
    (PageState(url="http://h/a#part", document="d1", digest="1", scroll=(0, 640)), "effective", "navigation"),
    (PageState(url="http://h/a#part", document="d1", digest="1"), "ineffective", "nothing_changed"),
    # After a submit (the target here is not one), another page's error is that page's own.
    (PageState(url="http://h/b", document="d2", digest="2", errors=("Disk almost full",),
               strong_errors=("Disk almost full",)), "effective", "navigation"),
    # The app saying it did nothing is its verdict, wherever it says so.
    (PageState(url="http://h/b", document="d2", digest="2", notices=("Nothing changed, nothing saved.",)),
     "ineffective", "nothing_done_message"),
    (PageState(url="http://h/b", document="d2", digest="2", notices=("Your changes have been saved.",)),
     "effective", "navigation"),
])
def test_judge_reads_a_new_document_by_its_address_status_errors_and_text(after, verdict, check):
    before = PageState(url="http://h/a", document="d1", digest="1", target={"key": 7, "tag": "button", "checked": False},
                       errors=("Old banner",))
    effect = judge(A.Click(point=(10, 10)), before, after)
    assert (effect.verdict, effect.check) == (verdict, check)


def test_a_submit_the_browser_refused_is_an_error_although_focus_moved_to_the_invalid_field():
    before = PageState(url="http://h/a", digest="1", target={"key": 3, "tag": "input", "type": "submit"},
                       active={"key": 1, "tag": "body"}, invalid=("title",))  # empty and required before the click
    after = replace(before, active={"key": 9, "tag": "input", "editable": True}, invalid=("title",))
    effect = judge(A.Click(point=(1, 1)), before, after)
    assert (effect.verdict, effect.check, effect.evidence) == ("error", "form_invalid", {"invalid_fields": ["title"]})
    # A click that only showed a form (a modal) whose required field is empty has not been refused.
    shown = judge(A.Click(point=(1, 1)), replace(before, target={"key": 4, "tag": "a"}, invalid=()), after)
    assert shown.verdict != "error", shown
    # A click on a field of a form that still has an empty required field is a click on a field.
    on_field = replace(before, target={"key": 9, "tag": "input", "type": "text"})
    assert judge(A.Click(point=(1, 1)), on_field, replace(after, target=on_field.target)).check == "focus_moved"


SUBMIT = {"key": 3, "tag": "button", "type": "submit"}


@pytest.mark.parametrize("action,before,after,verdict,check", [
    # A form sent from one page and answered on another that names an error (a search refused).
    (A.Click(point=(1, 1)), PageState(url="http://h/a", document="d1", digest="1", target=SUBMIT),
     PageState(url="http://h/search?q=", document="d2", digest="2", errors=("Query too short",),
               strong_errors=("Query too short",)), "error", "error_message"),
    (A.PressEnter(), PageState(url="http://h/a", document="d1", digest="1", active={"key": 4, "editable": True}),
     PageState(url="http://h/search?q=", document="d2", digest="2", errors=("Query too short",),
               strong_errors=("Query too short",)), "error", "error_message"),
    # ... but a warning there (not named an error) is the new page's own.
    (A.Click(point=(1, 1)), PageState(url="http://h/a", document="d1", digest="1", target=SUBMIT),
     PageState(url="http://h/b", document="d2", digest="2", errors=("Your trial ends soon",)), "effective", "navigation"),
    # A link to the page already shown: the same text back, a render time aside.
    (A.Click(point=(1, 1)), PageState(url="http://h/home", document="d1", digest="1", folded="f",
                                      target={"key": 5, "tag": "a", "href": "http://h/home"}),
     PageState(url="http://h/home", document="d2", digest="2", folded="f"), "ineffective", "same_page_link"),
    # ... whose text changed beyond its digits; a link to another address that came back the same.
    (A.Click(point=(1, 1)), PageState(url="http://h/home", document="d1", digest="1", folded="f",
                                      target={"key": 5, "tag": "a", "href": "http://h/home"}),
     PageState(url="http://h/home", document="d2", digest="2", folded="g"), "effective", "navigation"),
    (A.Click(point=(1, 1)), PageState(url="http://h/home", document="d1", digest="1", folded="f",
                                      target={"key": 5, "tag": "a", "href": "http://h/refresh"}),
     PageState(url="http://h/home", document="d2", digest="2", folded="f"), "effective", "navigation"),
    # ... in the site's navigation (its menu was open before, so the text differs), whatever the text.
    (A.Click(point=(1, 1)), PageState(url="http://h/home", document="d1", digest="1", folded="f",
                                      target={"key": 5, "tag": "a", "href": "http://h/home", "in_nav": True}),
     PageState(url="http://h/home", document="d2", digest="2", folded="g"), "ineffective", "same_page_link"),
    # A search form sent as served (nothing typed or chosen) back to its page: the same query again.
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "get", "pristine": True}}),
     PageState(url="http://h/list?q=&sort=id", document="d2", digest="2"), "ineffective", "form_sent_unchanged"),
    (A.PressEnter(), PageState(url="http://h/list", document="d1", digest="1",
                               active={"key": 4, "editable": True, "form": {"method": "get", "pristine": True}}),
     PageState(url="http://h/list?q=", document="d2", digest="2"), "ineffective", "form_sent_unchanged"),
    # ... with something typed, or sent by POST (it may change things), or landing elsewhere: it went somewhere.
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "get", "pristine": False}}),
     PageState(url="http://h/list?q=kettle", document="d2", digest="2"), "effective", "navigation"),
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "post", "pristine": True}}),
     PageState(url="http://h/list", document="d2", digest="2"), "effective", "navigation"),
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "get", "pristine": True}}),
     PageState(url="http://h/report", document="d2", digest="2"), "effective", "navigation"),
    # ... or one whose hidden fields asked for more (a reply box opened under the page).
    (A.Click(point=(1, 1)), PageState(url="http://h/ticket/1", document="d1", digest="1", lines=frozenset("abc"),
                                      target={**SUBMIT, "form": {"method": "get", "pristine": True}}),
     PageState(url="http://h/ticket/1?replyto=description", document="d2", digest="2", lines=frozenset("abcdef")),
     "effective", "navigation"),
    # A link in the site's menu to the page shown, routed by script (no new document): the same
    # page but for what hovering the menu showed; one that drew more went somewhere.
    (A.Click(point=(1, 1)), PageState(url="http://h/", document="d1", digest="1", lines=frozenset("abc"),
                                      target={"key": 5, "tag": "a", "href": "http://h/", "in_nav": True}),
     PageState(url="http://h/", document="d1", digest="2", lines=frozenset("abcx")), "ineffective", "same_page_link"),
    (A.Click(point=(1, 1)), PageState(url="http://h/", document="d1", digest="1", lines=frozenset("abc"),
                                      target={"key": 5, "tag": "a", "href": "http://h/", "in_nav": True}),
     PageState(url="http://h/", document="d1", digest="2", lines=frozenset("xyz")), "effective", "page_changed"),
    # The option already chosen, picked again: the list closed, nothing new showed; another option
    # (or one that changed what the page shows) took effect.
    (A.Click(point=(1, 1)), PageState(url="http://h/", document="d1", digest="1", bare="b",
                                      target={"key": 6, "role": "option", "selected": "true"}),
     PageState(url="http://h/", document="d1", digest="2", bare="b"), "ineffective", "option_already_selected"),
    (A.Click(point=(1, 1)), PageState(url="http://h/", document="d1", digest="1", bare="b",
                                      target={"key": 6, "role": "option", "selected": "false"}),
     PageState(url="http://h/", document="d1", digest="2", bare="c"), "effective", "page_changed"),
    (A.Click(point=(1, 1)), PageState(url="http://h/", document="d1", digest="1", bare="b",
                                      target={"key": 6, "role": "option", "selected": "true"}),
     PageState(url="http://h/", document="d1", digest="2", bare="c"), "effective", "page_changed"),
    # A form sent from a page (its modal) and answered at its own address with a new warning: sent back.
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "post", "action": "http://h/members/add"}}),
     PageState(url="http://h/members/add", document="d2", digest="2", errors=("Already a member",)), "error", "error_message"),
    # ... an address of its own for a page that went elsewhere with a warning of its own is a navigation.
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1",
                                      target={**SUBMIT, "form": {"method": "post", "action": "http://h/members/add"}}),
     PageState(url="http://h/members", document="d2", digest="2", errors=("Trial ends soon",)), "effective", "navigation"),
    # The same page served again, the same but for a drop-down menu that was open.
    (A.Click(point=(1, 1)), PageState(url="http://h/list", document="d1", digest="1", bare="b",
                                      target={"key": 5, "tag": "a", "href": "http://h/lang/fr"}),
     PageState(url="http://h/list", document="d2", digest="2", bare="b"), "ineffective", "reloaded_unchanged"),
])
def test_judge_reads_submits_answered_elsewhere_and_links_to_the_same_page(action, before, after, verdict, check):
    effect = judge(action, before, after)
    assert (effect.verdict, effect.check) == (verdict, check)


def test_typing_at_the_caret_in_the_middle_of_a_text_is_effective():
    field = {"key": 8, "tag": "textarea", "editable": True}
    before = PageState(url="http://h/a", active=field, value="First line.\nLast line.")
    typed = PageState(url="http://h/a", active=field, value="First line.\nA new line.\nLast line.")
    assert judge(A.Type(content="A new line.\n"), before, typed).verdict == "effective"
    wrong = replace(typed, value="First line.\nA new lin.\nLast line.")
    assert judge(A.Type(content="A new line.\n"), before, wrong).verdict == "ineffective"


CELL = {"key": 9, "tag": "td", "name": "Baker & Sons", "marked": ""}


@pytest.mark.parametrize("action,before,after,answers,verdict,check", [
    # A cell a script selects by its class alone (no ARIA): the click chose it.
    (A.Click(point=(1, 1)), PageState(url="http://h/", digest="1", target=CELL),
     PageState(url="http://h/", digest="1", target={**CELL, "marked": "cell--selected focused"}), (), "effective",
     "element_state"),
    # ... a class word that marks no state (hovered) is no choice.
    (A.Click(point=(1, 1)), PageState(url="http://h/", digest="1", target=CELL),
     PageState(url="http://h/", digest="1", target=CELL), (), "ineffective", "nothing_changed"),
    # A save answered with a warning beside a status message of its own ("Stored 1 entries."): done.
    (A.Click(point=(1, 1)), PageState(url="http://h/j", digest="1", target=SUBMIT),
     PageState(url="http://h/j", digest="2", target=SUBMIT, errors=("File changed. Click to reload.",),
               notices=("Stored 1 entries.", "File changed. Click to reload.")), (), "effective", "page_changed"),
    # ... a save button that greyed out with only a warning shown: done.
    (A.Click(point=(1, 1)), PageState(url="http://h/e", digest="1", target={**SUBMIT, "disabled": False}),
     PageState(url="http://h/e", digest="2", target={**SUBMIT, "disabled": True}, errors=("File changed.",)), (),
     "effective", "element_state"),
    # ... a warning alone is still what the action brought; an error named as such beside a notice is an error.
    (A.Click(point=(1, 1)), PageState(url="http://h/e", digest="1", target=SUBMIT),
     PageState(url="http://h/e", digest="2", target=SUBMIT, errors=("Nothing selected",)), (), "error", "error_message"),
    (A.Click(point=(1, 1)), PageState(url="http://h/e", digest="1", target=SUBMIT),
     PageState(url="http://h/e", digest="2", target=SUBMIT, errors=("Amount is required",),
               strong_errors=("Amount is required",), notices=("Saved draft",)), (), "error", "error_message"),
    # A page routed by script (same document) whose data requests were refused: the app's error page.
    (A.PressEnter(), PageState(url="http://h/journal/", document="d1", digest="1", active={"key": 4, "editable": True}),
     PageState(url="http://h/journal/?time=last+march", document="d1", digest="2"), (400,), "error", "http_status"),
    # ... one whose data came (a request refused beside it) went there; a new document is judged by its own status.
    (A.PressEnter(), PageState(url="http://h/journal/", document="d1", digest="1", active={"key": 4, "editable": True}),
     PageState(url="http://h/journal/?time=2025", document="d1", digest="2"), (200, 404), "effective", "navigation"),
    (A.Click(point=(1, 1)), PageState(url="http://h/a", document="d1", digest="1", target={"key": 5, "tag": "a"}),
     PageState(url="http://h/b", document="d2", digest="2", status=200), (403,), "effective", "navigation"),
    # A status message that counts zero of something, in any language: nothing was done.
    (A.Click(point=(1, 1)), PageState(url="http://h/o", document="d1", digest="1", target=SUBMIT),
     PageState(url="http://h/o", document="d2", digest="2", notices=("0 ordini segnati come spediti.",)), (),
     "ineffective", "nothing_done_message"),
    (A.Click(point=(1, 1)), PageState(url="http://h/o", document="d1", digest="1", target=SUBMIT),
     PageState(url="http://h/o", document="d2", digest="2", notices=("10 orders shipped, 0 errors",)), (),
     "effective", "navigation"),
    # A widget's drop-down option whose class says it is the one chosen, picked again.
    (A.Click(point=(1, 1)), PageState(url="http://h/", digest="1", bare="b",
                                      target={"key": 4, "tag": "div", "marked": "active selected", "in_dropdown": True}),
     PageState(url="http://h/", digest="2", bare="b"), (), "ineffective", "option_already_selected"),
    (A.Click(point=(1, 1)), PageState(url="http://h/", digest="1", bare="b",
                                      target={"key": 4, "tag": "div", "marked": "active", "in_dropdown": True}),
     PageState(url="http://h/", digest="2", bare="c"), (), "effective", "page_changed"),
])
def test_judge_reads_class_marked_choices_warnings_beside_success_and_refused_routes(action, before, after, answers,
                                                                                   verdict, check):
    effect = judge(action, before, after, answers=answers)
    assert (effect.verdict, effect.check) == (verdict, check)
