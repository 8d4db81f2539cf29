"""The fourth independent labelled set for the step evaluator (holdout 4): actions on a small German
town-library admin built on Flask-Admin (server-rendered CRUD in Flask-Admin's own German UI: list
views, search, filters, sorting, pagination, a details modal loaded late, x-editable cells, select2
and date pickers, server-side validators next to the browser's own `required`/`min` checks) and on a
Streamlit app (widgets drawn client-side by Streamlit's React front end and answered over a
websocket: a form checked on submit, tabs, selectbox, number input, radio, checkbox, a dialog, a
paginated catalogue, a slow button, page navigation, a long and a short page), real third-party
frameworks nobody here wrote, served from their own virtualenvs under .local/holdout-apps
(practice/realapps/flaskadmin, practice/realapps/streamlitapp; not in CI). Measured by
`benchmarks/step_evaluator_holdout.py --set 4`.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (each case's setup and action tried by hand through plain Playwright in Chromium, in this
order, on freshly seeded apps) before the evaluator was run on any case; `why` says so in one line.
The cases were committed before the one scoring run. The harness is
tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open `path` fresh, run `setup`, judge
`action`; specs `click:<css>`, `dblclick:<css>`, `type:<text>`, `scroll:down|up`, `enter`,
`select:<n>`, the setup-only `bottom`); neither app asks for a sign-in (`sign_in` only opens it).

Order matters within an app: the cases run in one browser, in order, on one server. On Flask-Admin
some add rows (books, a reader: each title and card number used once, 34 books become 36, still 3
list pages) and the last case changes book 1's page count. Streamlit keeps orders per browser
session and a fresh page load starts a new session, so each of its cases starts from no orders and
the first catalogue page.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("flaskadmin", "streamlitapp")


def _f(*args, **kw) -> Case:
    return Case("flaskadmin", *args, **kw)


def _s(*args, **kw) -> Case:
    return Case("streamlitapp", *args, **kw)


F_LIST = "/admin/buch/"
F_NEW = "/admin/buch/new/"
F_LESER_NEW = "/admin/leser/new/"
F_SAVE = "click:input[type=submit][value=Speichern]"
F_FILTERS = "click:a.dropdown-toggle:has-text('Filter hinzufügen')"
F_EYE = "click:a[title='Eintrag ansehen'] >> nth=0"


def _leser(name: str, card: str, pin: str, pin2: str) -> tuple[str, ...]:
    return ("click:#name", f"type:{name}", "click:#ausweis", f"type:{card}", "click:#pin", f"type:{pin}",
            "click:#pin_wiederholen", f"type:{pin2}")


S_ORDER = "/"
S_PLACE = "click:button:has-text('Place order')"
S_CATALOGUE = "click:[role=tab]:has-text('Catalogue')"
S_NEXT = "click:button:has-text('Next')"
S_CLEAR = "click:button:has-text('Clear orders')"
S_PLANT = "click:input[aria-label='Plant']"


def _order(name: str, email: str) -> tuple[str, ...]:
    return ("click:input[aria-label='Customer name']", f"type:{name}", "click:input[aria-label='Email']", f"type:{email}")


CASES: tuple[Case, ...] = (
    # --- Flask-Admin: the book list (15 a page, 3 pages) ---
    _f("Liste tab already selected", F_LIST, "click:ul.nav-tabs a.nav-link.active", False,
       "the active 'Liste (34)' tab is a javascript:void(0) link: nothing happens"),
    _f("Erstellen tab", F_LIST, "click:ul.nav-tabs a:has-text('Erstellen')", True,
       "opens the create form for a new book"),
    _f("pagination page 2", F_LIST, "click:ul.pagination a.page-link:text-is('2')", True,
       "the list shows books 16-30"),
    _f("pagination current page 1", F_LIST, "click:ul.pagination li.active a", False,
       "the current page's number is an inert link: the same page stays"),
    _f("next page on the last page", F_LIST + "?page=2", "click:ul.pagination a.page-link:text-is('>')", False,
       "on the last page the '>' link is disabled: nothing happens"),
    _f("previous page on the first page", F_LIST, "click:ul.pagination a.page-link:text-is('<')", False,
       "on the first page the '<' link is disabled: nothing happens"),
    _f("search with Enter", F_LIST, "enter", True,
       "the list is narrowed to the 5 books whose title holds 'Meer'",
       setup=("click:input[name=search]", "type:Meer")),
    _f("search Enter with an empty box", F_LIST, "enter", False,
       "an empty search reloads the same unfiltered list of 34 books",
       setup=("click:input[name=search]",)),
    _f("search without hits via Suche button", F_LIST, "click:button:has-text('Suche')", True,
       "the search runs and the list now says it has no entries for 'Zeppelin'",
       setup=("click:input[name=search]", "type:Zeppelin")),
    _f("typing into the focused search box", F_LIST, "type:Haus", True,
       "the text appears in the search box", setup=("click:input[name=search]",)),
    _f("typing with nothing focused", F_LIST, "type:Fluss", False,
       "no field has focus: the text goes nowhere"),
    _f("unsortable Autor header", F_LIST, "click:th.col-autor", False,
       "the Autor column header is plain text (not sortable): nothing happens"),
    _f("sort by Gattung", F_LIST, "click:th.col-genre a", True,
       "the list is re-sorted by genre, Krimi books first"),
    _f("click a plain table cell", F_LIST, "click:td.col-genre >> nth=0", False,
       "a list cell is plain text: nothing happens"),
    _f("row checkbox", F_LIST, "click:input.action-checkbox >> nth=2", True,
       "the third row is selected for a bulk action"),
    _f("Filter hinzufügen menu", F_LIST, F_FILTERS, True,
       "the dropdown lists the filterable columns"),
    _f("add a Gattung filter", F_LIST, "click:a.filter:has-text('Gattung')", True,
       "a filter row for Gattung with an Übernehmen button appears", setup=(F_FILTERS,)),
    _f("apply the Gattung filter", F_LIST, "click:button:has-text('Übernehmen')", True,
       "the list is filtered to the 9 Krimi books",
       setup=(F_FILTERS, "click:a.filter:has-text('Gattung')", "type:Krimi")),
    _f("Mit Auswahl menu", F_LIST, "click:a.dropdown-toggle:has-text('Mit Auswahl')", True,
       "the bulk-action dropdown opens with Löschen"),
    _f("details eye icon", F_LIST, F_EYE, True,
       "a modal loads the book's details from the server"),
    _f("close the details modal", F_LIST, "click:#fa_modal_window button.close", True,
       "the modal closes", setup=(F_EYE,)),
    _f("click text inside the details modal", F_LIST, "click:#fa_modal_window td >> nth=1", False,
       "a value cell of the details table is plain text: nothing happens", setup=(F_EYE,)),
    _f("scroll the long list down", F_LIST, "scroll:down", True,
       "the 15-row list is taller than the window: it scrolls down"),
    _f("scroll up at the top", F_LIST, "scroll:up", False,
       "the page is already at its top"),
    _f("scroll down at the bottom", F_LIST, "scroll:down", False,
       "the page is already at its end", setup=("bottom",)),
    _f("edit pencil icon", F_LIST, "click:a[title='Eintrag bearbeiten'] >> nth=0", True,
       "opens the edit form of book 1"),
    _f("Bestand menu", F_LIST, "click:a.dropdown-toggle:has-text('Bestand')", True,
       "the navbar dropdown opens with Bücher and Autoren"),
    _f("Leser nav link", F_LIST, "click:a.nav-link:has-text('Leser')", True,
       "goes to the readers list"),
    _f("Leser nav link on the Leser page", "/admin/leser/", "click:a.nav-link:has-text('Leser')", False,
       "links to the page already shown: the same readers list reloads unchanged"),
    _f("brand link", F_LIST, "click:a.navbar-brand", True,
       "goes to the admin start page"),
    _f("scroll the short start page", "/admin/", "scroll:down", False,
       "the start page fits in the window: nothing to scroll"),
    _f("scroll the short Autoren list", "/admin/autor/", "scroll:down", False,
       "six authors fit in the window: nothing to scroll"),
    # --- Flask-Admin: forms ---
    _f("save an empty new book", F_NEW, F_SAVE, False,
       "the browser's required check on Titel stops the submit: nothing is saved"),
    _f("Erstellen tab on the create form", F_NEW, "click:ul.nav-tabs a.nav-link.active", False,
       "the active tab is a javascript:void(0) link: nothing happens"),
    _f("save a valid new book", F_NEW, F_SAVE, True,
       "the book is created; back on the list with 'Eintrag wurde erfolgreich erstellt.' and 35 books",
       setup=("click:#titel", "type:Die Brücke am Fluss")),
    _f("save a duplicate title", F_NEW, F_SAVE, False,
       "server answers 'Existiert bereits.': nothing is created",
       setup=("click:#titel", "type:Band 01: Der Fluss")),
    _f("save with a malformed ISBN", F_NEW, F_SAVE, False,
       "server rejects it: 'Die ISBN muss aus genau 13 Ziffern bestehen.'",
       setup=("click:#titel", "type:Das Tor", "click:#isbn", "type:12345")),
    _f("save with a year below the minimum", F_NEW, F_SAVE, False,
       "the browser's min=1450 check on Jahr stops the submit: nothing is saved",
       setup=("click:#titel", "type:Das Tor", "click:#jahr", "type:1300")),
    _f("Abbrechen button", F_NEW, "click:a.btn-danger:has-text('Abbrechen')", True,
       "leaves the form for the book list"),
    _f("untick Verfügbar", F_NEW, "click:#verfuegbar", True,
       "the checkbox is unticked"),
    _f("click the Verfügbar label", F_NEW, "click:label[for=verfuegbar]", True,
       "the label toggles its checkbox off"),
    _f("open the Gattung select2", F_NEW, "click:.select2-container >> nth=1", True,
       "the select2 dropdown opens with four genres"),
    _f("pick Lyrik in the select2", F_NEW, "click:.select2-results li:has-text('Lyrik')", True,
       "Gattung becomes Lyrik", setup=("click:.select2-container >> nth=1",)),
    _f("open the date picker", F_NEW, "click:#erschienen", True,
       "the daterangepicker calendar opens under the field"),
    _f("Speichern und neuer Eintrag", F_NEW, "click:input[name=_add_another]", True,
       "the book is created and an empty create form comes back with the success message",
       setup=("click:#titel", "type:Der Kreidekreis")),
    _f("save an unchanged edit form", "/admin/buch/edit/?id=1", F_SAVE, True,
       "Flask-Admin saves and confirms 'Eintrag erfolgreich gespeichert.', back on the list"),
    _f("reader PINs do not match", F_LESER_NEW, F_SAVE, False,
       "server rejects it: 'Die beiden PINs stimmen nicht überein.'",
       setup=_leser("Dora Lenz", "L1004", "4321", "4322")),
    _f("valid new reader", F_LESER_NEW, F_SAVE, True,
       "the reader is created; the list shows 4 readers",
       setup=_leser("Dora Lenz", "L1004", "4321", "4321")),
    _f("reader card number in a bad format", F_LESER_NEW, F_SAVE, False,
       "server rejects it: 'Ausweisnummern haben die Form L1234.'",
       setup=_leser("Emil Haas", "X-77", "1111", "1111")),
    _f("duplicate reader card number", F_LESER_NEW, F_SAVE, False,
       "server answers 'Existiert bereits.' for L1001: nothing is created",
       setup=_leser("Emil Haas", "L1001", "1111", "1111")),
    # --- Flask-Admin: inline x-editable cell (changes book 1 last) ---
    _f("open an inline editor", F_LIST, "click:td.col-seiten a >> nth=0", True,
       "an x-editable popup with an input opens over the Seiten cell"),
    _f("cancel the inline editor", F_LIST, "click:.editable-cancel", True,
       "the popup closes", setup=("click:td.col-seiten a >> nth=1",)),
    _f("Enter in the inline editor", F_LIST, "enter", True,
       "the new page count 1205 is saved by an AJAX request and shown in the cell",
       setup=("click:td.col-seiten a >> nth=0", "type:5")),
    # --- Streamlit: the order desk ---
    _s("Place order with everything empty", S_ORDER, S_PLACE, False,
       "the app answers 'Customer name is required.': no order"),
    _s("Place order with an email lacking @", S_ORDER, S_PLACE, False,
       "the app answers 'Please enter an email address containing @.': no order",
       setup=_order("Mia Roth", "mia.example.org")),
    _s("Place a valid order", S_ORDER, S_PLACE, True,
       "'Order placed: 1 x Fern for Mia Roth.' and the order appears in Recent orders",
       setup=_order("Mia Roth", "mia@example.org")),
    _s("Place the same order twice", S_ORDER, S_PLACE, False,
       "the app answers 'Mia Roth already has an order for Fern.': no second order",
       setup=_order("Mia Roth", "mia@example.org") + (S_PLACE,)),
    _s("Enter in the form's email field", S_ORDER, "enter", True,
       "Enter submits the form: 'Order placed: 1 x Fern for Jan Wolf.'",
       setup=_order("Jan Wolf", "jan@example.org")),
    _s("typing with nothing focused", S_ORDER, "type:Lavender", False,
       "no field has focus: the text goes nowhere"),
    _s("typing into the focused name field", S_ORDER, "type:Lena Hart", True,
       "the name appears in the Customer name field",
       setup=("click:input[aria-label='Customer name']",)),
    _s("Catalogue tab", S_ORDER, S_CATALOGUE, True,
       "the Catalogue tab opens with the plant table"),
    _s("New order tab already selected", S_ORDER, "click:[role=tab]:has-text('New order')", False,
       "that tab is already shown: nothing changes"),
    _s("click the page title", S_ORDER, "click:h1:has-text('Plant order desk')", False,
       "the title is plain text: nothing happens"),
    _s("click the caption", S_ORDER, "click:[data-testid=stCaptionContainer]", False,
       "the caption is plain text: nothing happens"),
    _s("tick Gift wrap", S_ORDER, "click:label:has-text('Gift wrap')", True,
       "the checkbox is ticked"),
    _s("choose Courier", S_ORDER, "click:label:has-text('Courier')", True,
       "the Delivery radio switches from Pickup to Courier"),
    _s("choose Pickup, already chosen", S_ORDER, "click:label:has-text('Pickup')", False,
       "Pickup is already the selected radio: nothing changes"),
    _s("open the Plant selectbox", S_ORDER, S_PLANT, True,
       "the list of six plants opens"),
    _s("pick Lavender", S_ORDER, "click:[role=option]:has-text('Lavender')", True,
       "the Plant selectbox now shows Lavender", setup=(S_PLANT,)),
    _s("pick Fern, already selected", S_ORDER, "click:[role=option]:has-text('Fern')", False,
       "Fern was already the chosen plant: the list closes with the same value", setup=(S_PLANT,)),
    _s("Quantity plus", S_ORDER, "click:[data-testid=stNumberInputStepUp]", True,
       "Quantity goes from 1 to 2"),
    _s("Quantity minus at its minimum", S_ORDER, "click:[data-testid=stNumberInputStepDown]", False,
       "at the minimum 1 the minus button is disabled: nothing changes"),
    _s("Check stock (slow)", S_ORDER, "click:button:has-text('Check stock')", True,
       "a spinner shows, then after 2.5 s 'Stock checked: all 18 plants available.'"),
    _s("disabled Export CSV", S_ORDER, "click:button:has-text('Export CSV')", False,
       "the button is disabled (only its tooltip shows on hover): nothing is exported"),
    _s("Clear orders opens a dialog", S_ORDER, S_CLEAR, True,
       "a modal 'Clear all orders?' opens"),
    _s("Keep orders closes the dialog", S_ORDER, "click:button:has-text('Keep orders')", True,
       "the dialog closes", setup=(S_CLEAR,)),
    _s("dialog close X", S_ORDER, "click:[role=dialog] button[aria-label=Close]", True,
       "the dialog closes", setup=(S_CLEAR,)),
    _s("click the dialog's text", S_ORDER, "click:[role=dialog] p:has-text('This removes')", False,
       "plain text in the dialog: nothing happens", setup=(S_CLEAR,)),
    _s("catalogue Next", S_ORDER, S_NEXT, True,
       "the table moves to page 2 of 4", setup=(S_CATALOGUE,)),
    _s("catalogue Previous on page 1", S_ORDER, "click:button:has-text('Previous')", False,
       "on page 1 Previous is disabled: nothing changes", setup=(S_CATALOGUE,)),
    _s("catalogue Next on the last page", S_ORDER, S_NEXT, False,
       "on page 4 of 4 Next is disabled: nothing changes", setup=(S_CATALOGUE, S_NEXT, S_NEXT, S_NEXT)),
    _s("catalogue search with Enter", S_ORDER, "enter", True,
       "the table is narrowed to the shade plants",
       setup=(S_CATALOGUE, "click:input[aria-label='Search plants']", "type:shade")),
    _s("catalogue search Enter with an empty box", S_ORDER, "enter", False,
       "nothing typed: the same first page stays",
       setup=(S_CATALOGUE, "click:input[aria-label='Search plants']")),
    _s("click a catalogue cell", S_ORDER, "click:td:has-text('Olive tree')", False,
       "a table cell is plain text: nothing happens", setup=(S_CATALOGUE,)),
    _s("open the Opening hours expander", S_ORDER, "click:summary:has-text('Opening hours')", True,
       "the expander opens and shows the hours", setup=("click:[role=tab]:has-text('Help')",)),
    _s("sidebar link to Care notes", S_ORDER, "click:[data-testid=stSidebarNav] a:has-text('Care notes')", True,
       "the Care notes page opens"),
    _s("sidebar link to the current page", S_ORDER, "click:[data-testid=stSidebarNav] a:has-text('Order desk')", False,
       "the order desk is already shown: it stays as it was"),
    # --- Streamlit: the long and the short page ---
    _s("scroll the long notes page", "/notes", "scroll:down", True,
       "30 notes are taller than the window: the page scrolls down"),
    _s("scroll up at the top of the notes", "/notes", "scroll:up", False,
       "the page is already at its top"),
    _s("scroll down at the end of the notes", "/notes", "scroll:down", False,
       "twelve scrolls reached the end: nothing more to scroll", setup=("scroll:down",) * 12),
    _s("page link back to the order desk", "/notes", "click:a:has-text('Back to the order desk')", True,
       "the order desk page opens"),
    _s("page link to the page itself", "/notes", "click:a:has-text('Care notes (this page)')", False,
       "links to the page already shown: nothing changes"),
    _s("click a note heading", "/notes", "click:h3:has-text('Note 2')", False,
       "a heading is plain text: nothing happens"),
    _s("scroll the short About page", "/about", "scroll:down", False,
       "the About page fits in the window: nothing to scroll"),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.flaskadmin.app import Server as FlaskAdmin
    from practice.realapps.streamlitapp.app import Server as StreamlitApp

    return {"flaskadmin": FlaskAdmin, "streamlitapp": StreamlitApp}


async def sign_in(env, app: str, server) -> None:
    """Neither app has a sign-in: open it once before its cases (not judged)."""
    if app == "flaskadmin":
        await env.goto(server.base_url.rstrip("/") + "/admin/")
    elif app == "streamlitapp":
        await env.goto(server.base_url.rstrip("/") + "/")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
