"""The ninth independent labelled set for the step evaluator (holdout 9): actions on a Dutch
bike-rental counter served by Pyramid 2.1 with Deform 3.0.1 and Colander 2.0 (a classic
server-rendered stack with its own form library: every action is a full page load; UI in Dutch,
with Colander's and Deform's own Dutch messages: nav links, a GET filter form with a status select
and a customer search, sortable columns, a Bootstrap pager whose ends are disabled items and page
links, a new-rental form checked by Colander validators and a duplicate check that Deform
re-renders with its error banner and per-field messages, a disabled field, a select, a checkbox,
radio buttons, a `maxlength` text area, an edit form whose unchanged save says "Geen wijzigingen om
op te slaan.", read-only fields, a disabled delete button or, for a returned rental, a Bootstrap
confirmation dialog, Bootstrap tabs, an accordion, a slow availability check and a long help
page) and on a Czech district office's desk for permits to occupy public space built on Solara
1.58.2 (a reactive framework whose pages are Vuetify 2 components that the browser draws from the
Python session over a websocket; UI in Czech: nav buttons with client-side navigation, a search
field committed by Enter or a button, status filter buttons, sortable column buttons, a pager
whose ends are disabled buttons, an edit dialog with a read-only and a disabled field, radio
buttons and a `maxlength` note, delete buttons disabled except for refused permits and a
confirmation dialog, a new-permit form checked on the server with Vuetify's own field messages and
an error alert, a Vuetify drop-down, a checkbox, tabs, expansion panels, a slow fee calculation and
a long help page); real third-party frameworks nobody here wrote, each served from its own
virtualenv under .local/holdout-apps (practice/realapps/fietsbalie, practice/realapps/zabory; not
in CI).

Order: the Pyramid counter keeps its 17 seeded rentals (VH-1001 to VH-1017, six to a page, by
default in ascending number order) in the server process, so cases that change them change them
for the cases after; the Solara desk keeps its 14 seeded permits (ZP-1001 to ZP-1014, five to a
page) in each browser page's session, so every case that opens its page afresh starts from the
seed.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (both apps' code read in full, then each case's setup and action tried through plain
Playwright in Chromium, in file order on a freshly started app, with
tests/helpers/effect_cases_dryrun.py; the two slow actions' final outcome checked after waiting
for them) and written without reading the evaluator's code, its page reading, its tests or any
earlier set's cases, and without running the evaluator. A refused form, a disabled control, an
action that leaves the screen as it was or a message saying nothing was done is ineffective; an
action that visibly does what its control promises is effective (a search with no match, which
shows its "nothing found" message, counts as done; so do Cancel/Ne buttons that close their
dialog). Slow actions are labelled by what a patient person sees once they finish. The fietsbalie
availability check's selector carries a no-op `:not(.report)` so that the dry run waits for the
redirect after the 2 s check instead of reading the page while it navigates. `why` says what the
person sees in one line.

Order on fietsbalie: every case before `new_save_ok` leaves the records as they were; then
VH-2001 is saved (18 rentals, still three pages), so `new_duplicate` after it is refused;
`edit_save_note` adds a note to VH-1004; `delete_confirm` deletes the returned VH-1002 (17
rentals again); the cases after it only visit the fleet, rates and help pages. On zabory each
case opens its page afresh, so none depends on another.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("fietsbalie", "zabory")

LONG_NOTE = ("Klant meldt een rammelend spatbord en een losse bel. " * 3)[:120]
LONG_ZNOTE = ("Doplnit vyjádření policie a situační nákres. " * 2)[:80]
NEW_OK = ("click:#nummer", "type:VH-2001", "click:#klant", "type:Sanne Kok", "click:#telefoon", "type:06-12345678")


def _f(name, path, action, effective, why, setup=()):
    return Case("fietsbalie", name, path, action, effective, why, tuple(setup))


def _z(name, path, action, effective, why, setup=()):
    return Case("zabory", name, path, action, effective, why, tuple(setup))


NEW_Z = ("click:#cislo", "type:ZP-2001", "click:#zadatel", "type:Kavárna Mlýnek", "click:#misto", "type:Kamenická 8",
         "click:#plocha", "type:12")
SAVE_F = "click:#verhuurformopslaan"

FIETSBALIE = (
    # navigation and plain text
    _f("nav_new_rental", "/verhuur", "click:#nav-nieuw", True, "the nav link opens the 'Nieuwe verhuring' form"),
    _f("nav_rentals_current", "/verhuur", "click:#nav-verhuur", False,
       "the nav link of the list already shown reloads the same list unchanged"),
    _f("heading_click", "/verhuur", "click:#titel", False, "clicking the plain heading 'Verhuringen' changes nothing"),
    # search and filter
    _f("search_type", "/verhuur", "type:Eva", True, "the typed name appears in the 'Zoek klant' field",
       ["click:#zoek"]),
    _f("search_enter", "/verhuur", "enter", True,
       "Enter in the search field lists only Bram Jansen's rentals ('2 verhuring(en)')", ["click:#zoek", "type:Bram"]),
    _f("search_no_results", "/verhuur", "click:#zoeken", True,
       "doubtful: the search runs and the list says 'Geen verhuringen gevonden.' for a name nobody has",
       ["click:#zoek", "type:Xander"]),
    _f("search_empty_enter", "/verhuur", "enter", False,
       "Enter in the empty search field reloads the same 17 rentals", ["click:#zoek"]),
    _f("status_select_same", "/verhuur", "select:0", False, "choosing 'Alle', the status already chosen, changes nothing",
       ["click:#status"]),
    _f("status_filter", "/verhuur", "click:#zoeken", True,
       "Zoeken with status 'Teruggebracht' lists only the 6 returned rentals", ["click:#status", "select:2"]),
    _f("status_filter_already", "/verhuur?status=Lopend", "click:#zoeken", False,
       "Zoeken with the filter already applied reloads the same 6 running rentals"),
    _f("clear_filter", "/verhuur?zoek=Bram", "click:#wissen", True,
       "'Filter wissen' empties the search and shows all 17 rentals again"),
    # sorting and pager
    _f("sort_customer", "/verhuur", "click:#sort-klant", True, "the list is sorted by customer name (Klant ▲)"),
    _f("sort_customer_reverse", "/verhuur?sort=klant", "click:#sort-klant", True,
       "clicking the sorted column again sorts it descending (Klant ▼)"),
    _f("pager_next", "/verhuur", "click:#volgende", True, "'Volgende »' shows page 2 (VH-1007 to VH-1012)"),
    _f("pager_prev_disabled_first", "/verhuur", "click:#vorige", False,
       "'« Vorige' is a disabled item on page 1: nothing happens"),
    _f("pager_next_disabled_last", "/verhuur?pagina=3", "click:#volgende", False,
       "'Volgende »' is a disabled item on the last page: nothing happens"),
    _f("pager_prev", "/verhuur?pagina=2", "click:#vorige", True, "'« Vorige' goes back to page 1"),
    _f("pager_current_page", "/verhuur", "click:#pagina-1", False, "the link of page 1, already shown, reloads the same page"),
    _f("open_rental", "/verhuur", "click:#verhuur-1", True, "the rental number opens the edit form 'Verhuring VH-1001'"),
    # new rental form: fields
    _f("new_number_maxlength", "/verhuur/nieuw", "type:5", False,
       "the rental number field is full (maxlength 7): the extra digit does not appear",
       ["click:#nummer", "type:VH-1234"]),
    _f("new_disabled_branch", "/verhuur/nieuw", "click:#vestiging", False,
       "the 'Vestiging' field is disabled: clicking it does nothing"),
    _f("new_bike_select", "/verhuur/nieuw", "select:2", True, "the bike select now shows 'Bakfiets'", ["click:#fiets"]),
    _f("new_bike_select_same", "/verhuur/nieuw", "select:0", False,
       "choosing 'Stadsfiets', already chosen, changes nothing", ["click:#fiets"]),
    _f("new_insurance_checkbox", "/verhuur/nieuw", "click:#verzekering", True, "the insurance checkbox becomes ticked"),
    _f("new_payment_radio", "/verhuur/nieuw", "click:#betaling-2", True, "the payment radio 'Op factuur' becomes chosen"),
    _f("new_days_letters", "/verhuur/nieuw", "type:xyz", False,
       "the number field 'Aantal dagen' refuses letters: it still shows 1", ["click:#dagen"]),
    _f("new_note_maxlength", "/verhuur/nieuw", "type:x", False,
       "the note already holds 120 characters (maxlength): the extra letter does not appear",
       ["click:#opmerking", "type:" + LONG_NOTE]),
    # new rental form: submissions (server validation)
    _f("new_required", "/verhuur/nieuw", SAVE_F, False,
       "the empty form comes back with 'Er zaten één of meer fouten in uw formulier' and 'Verplicht' under the fields"),
    _f("new_format_number", "/verhuur/nieuw", SAVE_F, False,
       "refused: 'Gebruik de vorm VH-1234.' under the rental number",
       ["click:#nummer", "type:2001", "click:#klant", "type:Sanne Kok", "click:#telefoon", "type:06-12345678"]),
    _f("new_range_days", "/verhuur/nieuw", SAVE_F, False, "refused: 'Maximaal 14 dagen.' under the number of days",
       [*NEW_OK, "dblclick:#dagen", "type:30"]),
    _f("new_save_ok", "/verhuur/nieuw", SAVE_F, True,
       "saved: the list opens with 'Verhuring VH-2001 is opgeslagen.'", NEW_OK),
    _f("new_duplicate", "/verhuur/nieuw", SAVE_F, False,
       "refused: 'Verhuring VH-2001 bestaat al.' (it was saved by the case before)", NEW_OK),
    # edit form
    _f("edit_unchanged_save", "/verhuur/1", "click:#wijzigformopslaan", False,
       "saving without changes says 'Geen wijzigingen om op te slaan.'"),
    _f("edit_readonly_number", "/verhuur/1", "type:X", False,
       "the rental number is read-only: typing into it changes nothing", ["click:#nummer"]),
    _f("edit_delete_disabled", "/verhuur/1", "click:#verwijderen", False,
       "'Verwijderen' is disabled for a running rental: nothing happens"),
    _f("edit_range_days", "/verhuur/1", "click:#wijzigformopslaan", False,
       "refused: 'Maximaal 14 dagen.' under the number of days", ["dblclick:#dagen", "type:20"]),
    _f("edit_save_note", "/verhuur/4", "click:#wijzigformopslaan", True,
       "saved: 'Verhuring VH-1004 is bijgewerkt.' and the note is kept", ["click:#opmerking", "type:Slot vergeten"]),
    _f("delete_open_dialog", "/verhuur/2", "click:#verwijderen", True,
       "for a returned rental 'Verwijderen' opens the dialog 'Verhuring verwijderen?'"),
    _f("delete_cancel", "/verhuur/2", "click:#bevestig-nee", True, "'Nee, terug' closes the dialog, as it promises",
       ["click:#verwijderen"]),
    _f("delete_confirm", "/verhuur/2", "click:#bevestig-ja", True,
       "deleted: the list opens with 'Verhuring VH-1002 is verwijderd.'", ["click:#verwijderen"]),
    # fleet, rates, help
    _f("tab_ebikes", "/fietsen", "click:#tab-ebike", True, "the 'E-bikes' tab shows the Stromer and the Sparta"),
    _f("tab_current", "/fietsen", "click:#tab-stad", False, "the 'Stadsfietsen' tab is already open: nothing changes"),
    _f("slow_availability", "/fietsen", "click:#controleform:not(.report) #controleer", True,
       "after about 2 s the page says 'Controle voltooid: 4 fietsen beschikbaar.'"),
    _f("accordion_open", "/tarieven", "click:#acc-week", True, "the 'Weekkorting' section opens (15% korting)"),
    _f("help_scroll_down", "/hulp", "scroll:down", True, "the long help page scrolls down"),
    _f("help_scroll_up_top", "/hulp", "scroll:up", False, "already at the top: the page cannot scroll up"),
    _f("help_scroll_down_end", "/hulp", "scroll:down", False, "already at the end: the page cannot scroll further",
       ["bottom"]),
    _f("help_chapter_click", "/hulp", "click:#hoofdstuk-3", False, "clicking the plain chapter heading changes nothing"),
)

ZABORY = (
    # navigation and plain text
    _z("nav_new_permit", "/", "click:#nav-nova", True, "the nav button opens the form 'Nová žádost o zábor'"),
    _z("nav_list_current", "/", "click:#nav-zadosti", False, "the nav button of the list already shown changes nothing"),
    _z("nav_help", "/sazebnik", "click:#nav-napoveda", True, "the nav button opens 'Nápověda pro podatelnu'"),
    _z("page_label_click", "/", "click:#strana", False, "clicking the plain text 'Strana 1 z 3' changes nothing"),
    # search and filter
    _z("search_type", "/", "type:Jana", True, "the typed name appears in the 'Hledat žadatele' field", ["click:#hledat"]),
    _z("search_enter", "/", "enter", True, "Enter lists only the permits of Stavby Novák a.s. ('Nalezeno žádostí: 2')",
       ["click:#hledat", "type:Novák"]),
    _z("search_no_results", "/", "click:#hledat-tlacitko", True,
       "doubtful: the search runs and says 'Žádné žádosti neodpovídají hledání.'", ["click:#hledat", "type:Zelenina"]),
    _z("search_empty_enter", "/", "enter", False, "Enter in the empty search field leaves the same 14 permits",
       ["click:#hledat"]),
    _z("filter_refused", "/", "click:#filtr-zamitnuto", True, "the 'Zamítnuto' filter shows only the 4 refused permits"),
    _z("filter_all_current", "/", "click:#filtr-vse", False, "'Vše' is the filter already chosen: nothing changes"),
    # sorting and pager
    _z("sort_applicant", "/", "click:#razeni-zadatel", True, "the list is sorted by applicant (Žadatel ▲)"),
    _z("sort_applicant_reverse", "/", "click:#razeni-zadatel", True,
       "clicking the sorted column again sorts it descending (Žadatel ▼)", ["click:#razeni-zadatel"]),
    _z("pager_next", "/", "click:#dalsi", True, "'Další »' shows page 2 ('Strana 2 z 3')"),
    _z("pager_prev_disabled_first", "/", "click:#predchozi", False, "'« Předchozí' is disabled on page 1: nothing happens"),
    _z("pager_next_disabled_last", "/", "click:#dalsi", False, "'Další »' is disabled on the last page: nothing happens",
       ["click:#dalsi", "click:#dalsi"]),
    _z("pager_prev", "/", "click:#predchozi", True, "'« Předchozí' goes back to page 1", ["click:#dalsi"]),
    # edit dialog
    _z("edit_open", "/", "click:#upravit-1", True, "'Upravit' opens the dialog 'Úprava žádosti ZP-1001'"),
    _z("edit_cancel", "/", "click:#upravit-zrusit", True, "'Zrušit' closes the dialog, as it promises",
       ["click:#upravit-1"]),
    _z("edit_unchanged_save", "/", "click:#upravit-ulozit", False,
       "saving without changes closes the dialog with 'Žádné změny k uložení.'", ["click:#upravit-1"]),
    _z("edit_status_radio", "/", "click:label[for='upravit-stav-1']", True, "the status radio 'Schváleno' becomes chosen",
       ["click:#upravit-1"]),
    _z("edit_status_radio_same", "/", "click:label[for='upravit-stav-0']", False,
       "'Podáno' is the status already chosen: nothing changes", ["click:#upravit-1"]),
    _z("edit_save_changed", "/", "click:#upravit-ulozit", True,
       "saved: 'Žádost ZP-1001 byla uložena.' and the row shows 'Schváleno'",
       ["click:#upravit-1", "click:label[for='upravit-stav-1']"]),
    _z("edit_readonly_number", "/", "type:X", False, "the permit number is read-only: typing into it changes nothing",
       ["click:#upravit-1", "click:#upravit-cislo"]),
    _z("edit_disabled_office", "/", "click:#upravit-urad", False, "the 'Úřad' field is disabled: clicking it does nothing",
       ["click:#upravit-1"]),
    _z("edit_note_maxlength", "/", "type:x", False,
       "the note already holds 80 characters (maxlength): the extra letter does not appear",
       ["click:#upravit-1", "click:#upravit-poznamka", "type:" + LONG_ZNOTE]),
    # delete
    _z("delete_disabled", "/", "click:#smazat-1", False, "'Smazat' is disabled for a permit that is not refused"),
    _z("delete_open_dialog", "/", "click:#smazat-3", True, "for a refused permit 'Smazat' opens 'Smazat žádost?'"),
    _z("delete_cancel", "/", "click:#potvrdit-ne", True, "'Ne' closes the confirmation dialog, as it promises",
       ["click:#smazat-3"]),
    _z("delete_confirm", "/", "click:#potvrdit-ano", True, "deleted: 'Žádost ZP-1003 byla smazána.'",
       ["click:#smazat-3"]),
    # new permit form: submissions
    _z("new_required", "/nova", "click:#podat", False,
       "the empty form is refused: 'Formulář obsahuje chyby, opravte vyznačená pole.' and 'Zadejte podací číslo.'"),
    _z("new_format_number", "/nova", "click:#podat", False, "refused: 'Podací číslo má tvar ZP-1234.'",
       ["click:#cislo", "type:ZP-12", *NEW_Z[2:]]),
    _z("new_format_ico", "/nova", "click:#podat", False, "refused: 'IČO má 8 číslic.'",
       [*NEW_Z, "click:#ico", "type:123"]),
    _z("new_range_area", "/nova", "click:#podat", False, "refused: 'Plocha musí být 1 až 200 m².'",
       [*NEW_Z[:6], "click:#plocha", "type:500"]),
    _z("new_duplicate", "/nova", "click:#podat", False, "refused: 'Žádost ZP-1005 už je zaevidována.'",
       ["click:#cislo", "type:ZP-1005", *NEW_Z[2:]]),
    _z("new_ok", "/nova", "click:#podat", True, "registered: 'Žádost ZP-2001 byla zaevidována.' and the form is emptied",
       NEW_Z),
    _z("new_clear_empty", "/nova", "click:#vycistit", False, "'Vyčistit formulář' on the empty form changes nothing"),
    # new permit form: fields
    _z("new_select_choose", "/nova", "click:.menuable__content__active .v-list-item:has-text('Předzahrádka')", True,
       "the drop-down 'Účel' now shows 'Předzahrádka'", ["click:#ucel-vyber .v-select__slot"]),
    _z("new_select_same", "/nova", "click:.menuable__content__active .v-list-item:has-text('Lešení')", False,
       "'Lešení' is already the chosen purpose: it stays so", ["click:#ucel-vyber .v-select__slot"]),
    _z("new_checkbox", "/nova", "click:label[for='chodnik']", True, "the checkbox 'Zábor chodníku' becomes ticked"),
    _z("new_disabled_office", "/nova", "click:#urad", False, "the 'Příslušný úřad' field is disabled: nothing happens"),
    _z("new_area_letters", "/nova", "type:abc", False, "the number field 'Plocha' refuses letters: it stays empty",
       ["click:#plocha"]),
    # fee schedule
    _z("tab_roadway", "/sazebnik", "click:#tab-vozovka", True, "the 'Vozovka' tab shows its rates (kontejner 20)"),
    _z("tab_current", "/sazebnik", "click:#tab-chodnik", False, "the 'Chodník' tab is already open: nothing changes"),
    _z("panel_open", "/sazebnik", "click:#panel-slevy", True, "the 'Slevy' panel opens: 'Spolky a školy platí polovinu sazby.'"),
    _z("slow_fee", "/sazebnik", "click:#spocitat", True,
       "after about 2 s the page says 'Poplatek (Chodník, Lešení): 700 Kč'"),
    # help
    _z("help_scroll_down", "/napoveda", "scroll:down", True, "the long help page scrolls down"),
    _z("help_scroll_up_top", "/napoveda", "scroll:up", False, "already at the top: the page cannot scroll up"),
    _z("help_scroll_down_end", "/napoveda", "scroll:down", False, "already at the end: the page cannot scroll further",
       ["bottom"]),
    _z("help_chapter_click", "/napoveda", "click:#kapitola-2", False, "clicking the plain chapter heading changes nothing"),
)

CASES: tuple[Case, ...] = FIETSBALIE + ZABORY


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.fietsbalie.app import Server as Fietsbalie
    from practice.realapps.zabory.app import Server as Zabory

    return {"fietsbalie": Fietsbalie, "zabory": Zabory}


async def sign_in(env, app: str, server) -> None:
    """Neither desk shows a sign-in: open it once (not judged)."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "fietsbalie":
        await env.goto(base + "/verhuur")
        await page.wait_for_selector("#verhuurlijst tbody tr")
    elif app == "zabory":
        await env.goto(base + "/")
        await page.wait_for_selector("#tabulka tbody tr")  # Solara draws the page after its websocket opens
        await env.ready()
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
