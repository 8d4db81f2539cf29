"""The eighth independent labelled set for the step evaluator (holdout 8): actions on a Swedish city
library's loans desk built on Gradio 6.31.0 (a framework whose pages are a Svelte application that
talks to the Python session and redraws itself; UI in Swedish: tabs, a read-only data grid with its
own pager buttons of which one is disabled on the first page and the other does nothing on the
last, Gradio's own drop-downs (a text field with a list of options), a checkbox, radio buttons,
text, number, read-only and `maxlength` fields, forms checked on the server that refuse an unknown
card, a title already lent out, a loan already returned or a card number already in use (Gradio
shows the refusal as an error toast), success toasts, accordions, a slider, a slow report and a
long help page) and on a Polish warehouse's returns desk served by Flask 3.1.3 with WTForms
3.3.2 (a classic server-rendered stack: every action is a full page load; nav links, a GET filter
form with a status select and a client search, sortable columns, a pager whose ends are greyed text
and page links, a new-return form checked by WTForms validators and a duplicate check, a status form
whose unchanged save says "Brak zmian do zapisania.", a read-only field, a disabled delete button, a
`maxlength` text area, a long help page); real third-party frameworks nobody here wrote, each
served from its own virtualenv under .local/holdout-apps (practice/realapps/lanedisk,
practice/realapps/zwroty; not in CI). Panel, a candidate first tried, was dropped: it draws its
widgets inside shadow roots, which the dry run's checks cannot see into.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (each case's setup and action tried by hand through plain Playwright in Chromium, in this
order, on a freshly started app, with tests/helpers/effect_cases_dryrun.py) before the evaluator was
run on any case, and written without reading the evaluator's code or rules; `why` says so in one
line. The harness is tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open `path` fresh,
run `setup`, judge `action`; specs `click:<css>`, `dblclick:<css>`, `type:<text>`,
`scroll:down|up`, `enter`, `select:<n>`, the setup-only `bottom`).

Order: the Gradio desk keeps its loans and borrowers in each browser session
(gr.State), so every case starts from the 17 seeded loans (L-301 to L-317, six to a page) and 7
borrowers (cards 1001 to 1007) on the Utlån tab. Seeded loans of note: L-302 is overdue, L-303
already returned, "Pippi Långstrump" lent out, "Det blåser på månen" on the shelf. The Flask desk
keeps its 13 seeded returns (ZAM-4100 to ZAM-4184, five to a page, by default in ascending amount
order) in the server process, so its cases change it as they go and order matters there: ZAM-5000
is registered (so the case after it is refused as a duplicate), then return 1's status is changed;
every other case leaves the records as they were.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("lanedisk", "zwroty")


def _l(*args, **kw) -> Case:
    return Case("lanedisk", *args, **kw)


def _z(*args, **kw) -> Case:
    return Case("zwroty", *args, **kw)


TAB = "click:#flik_{}-button"
NYTT, FOLK, RAPPORT, HJALP = (TAB.format("nytt"),), (TAB.format("lantagare"),), (TAB.format("rapport"),), \
    (TAB.format("hjalp"),)
OPTION = "click:[role=option][aria-label='{}']"
TEXT = "click:#{} [data-testid=textbox]"
RADIO = "click:#{} label[data-testid='{}-radio-label']"
NEXT, PREV = "click:#nasta", "click:#forra"
PERSON_OPEN = (*FOLK, "click:#ny_lantagare > button.label-wrap")


def loan(card: str, title: str, *more: str) -> tuple[str, ...]:
    return (*NYTT, TEXT.format("kort"), f"type:{card}", "click:#bok input", OPTION.format(title), *more)


def person(card: str, name: str) -> tuple[str, ...]:
    return (*PERSON_OPEN, TEXT.format("nytt_kort"), f"type:{card}", TEXT.format("nytt_namn"), f"type:{name}")


CASES: tuple[Case, ...] = (
    # the Utlån tab: tabs, plain text, the pager
    _l("tab_nytt_lan", "/", TAB.format("nytt"), True, "clicking the 'Nytt lån' tab shows the new-loan form"),
    _l("tab_utlan_already_shown", "/", TAB.format("utlan"), False, "the 'Utlån' tab is the one already shown"),
    _l("click_page_heading", "/", "click:#rubrik h1", False, "the page heading is plain text"),
    _l("click_intro_text", "/", "click:#ingress p", False, "the introduction under the tabs is plain text"),
    _l("next_page", "/", NEXT, True, "'Nästa' shows loans 7-12, page 2 of 3"),
    _l("previous_on_first_page", "/", PREV, False, "'Föregående' is disabled on the first page"),
    _l("previous_from_page_two", "/", PREV, True, "back from page 2 to page 1 of the loans", setup=(NEXT,)),
    _l("next_on_last_page", "/", NEXT, False, "page 3 of 3 is the last: 'Nästa' has nothing more to show",
       setup=(NEXT, NEXT)),
    _l("scroll_up_at_top", "/", "scroll:up", False, "the page is already at its top"),
    # filters
    _l("open_status_list", "/", "click:#status input", True, "clicking the status drop-down opens its list of statuses"),
    _l("filter_overdue", "/", OPTION.format("Försenad"), True, "choosing 'Försenad' keeps only the overdue loans",
       setup=("click:#status input",)),
    _l("filter_all_again", "/", OPTION.format("Alla"), False, "'Alla' is the status already chosen: the same loans stay",
       setup=("click:#status input",)),
    _l("only_overdue_checkbox", "/", "click:#bara_forsenade input", True, "ticking 'Endast försenade' hides the loans not overdue"),
    _l("only_overdue_label", "/", "click:#bara_forsenade .label-text", True,
       "the checkbox's own label ticks it too, and the list shrinks to the overdue loans"),
    _l("search_title_enter", "/", "enter", True, "Enter in the search runs it: only 'Aniara' is left",
       setup=(TEXT.format("sok"), "type:Aniara")),
    _l("search_empty_enter", "/", "enter", False, "Enter in the empty search field shows the same loans as before",
       setup=(TEXT.format("sok"),)),
    _l("type_search_text", "/", "type:Doktor", True, "the typed words appear in the search field",
       setup=(TEXT.format("sok"),)),
    # returning a loan
    _l("return_unknown_loan", "/", "click:#aterlamna", False, "there is no loan L-999: the desk refuses with an error",
       setup=(TEXT.format("lan_nr"), "type:L-999")),
    _l("return_without_number", "/", "click:#aterlamna", False, "no loan number given: the desk refuses with an error"),
    _l("return_overdue_loan", "/", "click:#aterlamna", True, "L-302 is marked returned in the list and a toast confirms it",
       setup=(TEXT.format("lan_nr"), "type:L-302")),
    _l("return_already_returned", "/", "click:#aterlamna", False, "L-303 was already returned: the desk refuses",
       setup=(TEXT.format("lan_nr"), "type:L-303")),
    # a new loan
    _l("register_empty_form", "/", "click:#registrera", False, "no card number: the loan is refused", setup=NYTT),
    _l("register_unknown_card", "/", "click:#registrera", False, "card 9999 does not exist: the loan is refused",
       setup=loan("9999", "Det blåser på månen")),
    _l("register_title_lent_out", "/", "click:#registrera", False, "'Pippi Långstrump' is already lent out: refused",
       setup=loan("1001", "Pippi Långstrump")),
    _l("register_loan", "/", "click:#registrera", True, "a free title on a known card: the loan is registered",
       setup=loan("1002", "Det blåser på månen")),
    _l("register_too_long_loan", "/", "click:#registrera", False, "90 days is over the 60-day limit: refused",
       setup=loan("1002", "Det blåser på månen", "dblclick:#dagar input", "type:90")),
    _l("type_into_full_card_field", "/", "type:5", False, "the card field takes four characters and holds four already",
       setup=(*NYTT, TEXT.format("kort"), "type:1001")),
    _l("type_into_read_only_clerk", "/", "type:Anna", False, "the 'Handläggare' field is read-only",
       setup=(*NYTT, TEXT.format("handlaggare"))),
    _l("pick_audiobook", "/", RADIO.format("typ", "Ljudbok"), True, "the medium becomes 'Ljudbok'", setup=NYTT),
    _l("pick_book_again", "/", RADIO.format("typ", "Bok"), False, "'Bok' is the medium already chosen", setup=NYTT),
    _l("receipt_disabled", "/", "click:#kvitto", False, "'Skriv ut kvitto' is disabled", setup=NYTT),
    _l("choose_title", "/", OPTION.format("Kallocain"), True, "'Kallocain' becomes the chosen title",
       setup=(*NYTT, "click:#bok input")),
    _l("open_title_list", "/", "click:#bok input", True, "the title drop-down opens its list", setup=NYTT),
    # borrowers
    _l("open_new_borrower", "/", "click:#ny_lantagare > button.label-wrap", True, "the 'Ny låntagare' section unfolds",
       setup=FOLK),
    _l("close_new_borrower", "/", "click:#ny_lantagare > button.label-wrap", True,
       "the open 'Ny låntagare' section folds up again", setup=PERSON_OPEN),
    _l("add_borrower_card_taken", "/", "click:#spara", False, "card 1003 belongs to Maja Holm: refused",
       setup=person("1003", "Per Ek")),
    _l("add_borrower", "/", "click:#spara", True, "Per Ek with card 1008 joins the list of borrowers",
       setup=person("1008", "Per Ek")),
    _l("add_borrower_short_card", "/", "click:#spara", False, "a card number must be four digits: refused",
       setup=person("12", "Per Ek")),
    _l("tab_borrowers_already_shown", "/", TAB.format("lantagare"), False, "the 'Låntagare' tab is already shown",
       setup=FOLK),
    # the report
    _l("slow_report", "/", "click:#report_button", True, "after a few seconds the monthly report replaces 'Ingen rapport'",
       setup=RAPPORT),
    _l("period_month_again", "/", RADIO.format("period", "Månad"), False, "'Månad' is the period already chosen",
       setup=RAPPORT),
    _l("period_week", "/", RADIO.format("period", "Vecka"), True, "the period becomes 'Vecka'", setup=RAPPORT),
    _l("fee_slider_click", "/", "click:#avgift input[type=range]", True, "clicking the slider's middle sets the fee to 10 kr",
       setup=RAPPORT),
    # the long help page
    _l("help_scroll_down", "/", "scroll:down", True, "the long help page scrolls down", setup=HJALP),
    _l("help_scroll_down_at_end", "/", "scroll:down", False, "the help page is already at its end",
       setup=(*HJALP, "bottom")),
    _l("help_open_contact", "/", "click:#kontakt > button.label-wrap", True, "the IT-support section unfolds",
       setup=(*HJALP, "bottom")),
    _l("help_click_text", "/", "click:#hjalptext h2", False, "a heading of the help text is plain text", setup=HJALP),
    # the returns desk (Flask + WTForms): the list, its filter, sorting and pager
    _z("nav_to_current_list", "/zwroty", "click:#nav-zwroty", False, "'Zwroty' links to the list already shown"),
    _z("nav_to_new_return", "/zwroty", "click:#nav-nowy", True, "'Nowy zwrot' opens the new-return form"),
    _z("click_list_title", "/zwroty", "click:#tytul", False, "the page title is plain text"),
    _z("click_list_intro", "/zwroty", "click:#opis", False, "the sentence above the filter is plain text"),
    _z("next_page", "/zwroty", "click:#nastepna", True, "'Następna' shows returns 6-10, page 2 of 3"),
    _z("previous_on_first_page", "/zwroty", "click:#poprzednia", False, "'Poprzednia' is greyed text on the first page"),
    _z("next_on_last_page", "/zwroty?strona=3", "click:#nastepna", False, "page 3 of 3 is the last: 'Następna' is greyed text"),
    _z("link_to_current_page", "/zwroty", "click:#strona-1", False, "page 1 is the page already shown: the same rows again"),
    _z("link_to_page_three", "/zwroty", "click:#strona-3", True, "the page link 3 shows the last three returns"),
    _z("sort_by_client", "/zwroty", "click:#sort-klient", True, "the returns are reordered by client name"),
    _z("sort_by_client_reversed", "/zwroty?sort=klient", "click:#sort-klient", True,
       "a second click on 'Klient' reverses the order"),
    _z("sort_by_amount_already_ascending", "/zwroty", "click:#sort-kwota", False,
       "the list is already in ascending amount order: the same rows, only a ▲ by 'Kwota' (doubtful)"),
    _z("choose_status", "/zwroty", "select:2", True, "the status select now reads 'W weryfikacji'",
       setup=("click:#status",)),
    _z("choose_status_already_chosen", "/zwroty", "select:0", False, "'Wszystkie' is the status already chosen",
       setup=("click:#status",)),
    _z("filter_by_status", "/zwroty", "click:#filtruj", True, "'Filtruj' keeps only the returns in verification",
       setup=("click:#status", "select:2")),
    _z("filter_unchanged", "/zwroty", "click:#filtruj", False, "'Filtruj' with nothing chosen shows the same rows"),
    _z("search_client_enter", "/zwroty", "enter", True, "Enter in the client search keeps only Sklep Bałtyk's returns",
       setup=("click:#q", "type:Bałtyk")),
    _z("search_empty_enter", "/zwroty", "enter", False, "Enter in the empty client search shows the same rows",
       setup=("click:#q",)),
    _z("open_a_return", "/zwroty", "click:#lista tbody tr:nth-child(2) a", True, "the order number opens that return"),
    # the new-return form
    _z("submit_empty_form", "/zwroty/nowy", "click:#zapisz", False, "order number and amount are missing: the form comes back"),
    _z("submit_bad_order_number", "/zwroty/nowy", "click:#zapisz", False, "'12345' is not in the ZAM-1234 format: refused",
       setup=("click:#zamowienie", "type:12345", "click:#kwota", "type:50")),
    _z("submit_amount_too_high", "/zwroty/nowy", "click:#zapisz", False, "20 000 zł is over the 10 000 zł limit: refused",
       setup=("click:#zamowienie", "type:ZAM-5000", "click:#kwota", "type:20000")),
    _z("submit_existing_order", "/zwroty/nowy", "click:#zapisz", False, "ZAM-4107 already has a return: refused",
       setup=("click:#zamowienie", "type:ZAM-4107", "click:#kwota", "type:99")),
    _z("type_order_number", "/zwroty/nowy", "type:ZAM-5001", True, "the order number appears in its field",
       setup=("click:#zamowienie",)),
    _z("type_into_full_notes", "/zwroty/nowy", "type:x", False, "the notes take 40 characters and hold 40 already",
       setup=("click:#uwagi", "type:" + "Karton zgnieciony, towar do sprawdzenia.")),
    _z("tick_urgent", "/zwroty/nowy", "click:#pilne", True, "the 'Pilne' box gets ticked"),
    _z("tick_urgent_by_label", "/zwroty/nowy", "click:label[for=pilne]", True, "the label 'Pilne' ticks its box"),
    _z("choose_reason", "/zwroty/nowy", "select:2", True, "the reason becomes 'Zła ilość'", setup=("click:#powod",)),
    _z("choose_reason_already_chosen", "/zwroty/nowy", "select:0", False, "'Uszkodzony' is the reason already chosen",
       setup=("click:#powod",)),
    _z("register_return", "/zwroty/nowy", "click:#zapisz", True, "a valid return: back on the list with 'Zarejestrowano'",
       setup=("click:#zamowienie", "type:ZAM-5000", "click:#kwota", "type:250")),
    _z("register_same_return_again", "/zwroty/nowy", "click:#zapisz", False, "ZAM-5000 was registered just before: refused",
       setup=("click:#zamowienie", "type:ZAM-5000", "click:#kwota", "type:250")),
    # one return's page
    _z("save_unchanged", "/zwroty/1", "click:#zapisz", False, "nothing was changed: the desk says 'Brak zmian do zapisania.'"),
    _z("save_new_status", "/zwroty/1", "click:#zapisz", True, "the status becomes 'W weryfikacji' and 'Zapisano' is shown",
       setup=("click:#status", "select:1")),
    _z("delete_disabled", "/zwroty/3", "click:#usun", False, "'Usuń' is disabled for an accepted return"),
    _z("type_into_read_only_clerk", "/zwroty/2", "type:Nowak", False, "the 'Magazynier' field is read-only",
       setup=("click:#magazynier",)),
    _z("type_note", "/zwroty/2", "type:Sprawdzone", True, "the note appears in the 'Uwagi' field", setup=("click:#uwagi",)),
    # the long help page
    _z("help_scroll_down", "/pomoc", "scroll:down", True, "the long help page scrolls down"),
    _z("help_scroll_up_at_top", "/pomoc", "scroll:up", False, "the help page is already at its top"),
    _z("help_scroll_down_at_end", "/pomoc", "scroll:down", False, "the help page is already at its end", setup=("bottom",)),
    _z("help_link_to_itself", "/pomoc", "click:#nav-pomoc", False, "'Pomoc' links to the help page already shown"),
    _z("help_click_heading", "/pomoc", "click:main h2", False, "a heading of the help text is plain text"),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.lanedisk.app import Server as Lanedisk
    from practice.realapps.zwroty.app import Server as Zwroty

    return {"lanedisk": Lanedisk, "zwroty": Zwroty}


async def sign_in(env, app: str, server) -> None:
    """Neither desk shows a sign-in: open it once (not judged)."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "lanedisk":
        await env.goto(base + "/")
        await page.wait_for_selector("#tabell")  # Gradio 6 draws its rows outside `tbody tr` (a collapsed row there)
        await env.ready()
    elif app == "zwroty":
        await env.goto(base + "/zwroty")
        await page.wait_for_selector("#lista tbody tr")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
