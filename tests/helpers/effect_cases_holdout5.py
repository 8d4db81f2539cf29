"""The fifth independent labelled set for the step evaluator (holdout 5): actions on I Hate Money
(ihatemoney 7.2.1, a shared-budget application on Flask: server-rendered pages in its own French
translation, WTForms checks on the server next to the browser's `required`, Bootstrap collapses,
dropdowns and a modal, a two-page bill list) and on a small bike-workshop desk built on NiceGUI
3.18.0 (Vue/Quasar components drawn client-side and driven over a socket.io websocket: a sortable,
paginated, searchable table, a Quasar select, a dialog with field validation and a duplicate check,
a slow button, tabs, a slider, a toggle, an expansion, read-only, `maxlength` and number inputs, a
long and a short page), real third-party frameworks nobody here wrote, served from their own
virtualenvs under .local/holdout-apps (practice/realapps/ihatemoney, practice/realapps/niceguiapp;
not in CI). Measured by `benchmarks/step_evaluator_holdout.py --set 5`.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (each case's setup and action tried by hand through plain Playwright in Chromium, in this
order, on freshly seeded apps) before the evaluator was run on any case, and written without
reading the evaluator's code or rules; `why` says so in one line. The cases were committed before
the one scoring run. The harness is tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open
`path` fresh, run `setup`, judge `action`; specs `click:<css>`, `dblclick:<css>`, `type:<text>`,
`scroll:down|up`, `enter`, `select:<n>`, the setup-only `bottom`).

Order matters within an app: the cases run in one browser, in order, on one server. On I Hate
Money the browser signs in to the project "coloc-lyon" once and picks French (`sign_in`); some
cases add to it (bills "Courses Lidl" and "Cinéma Pathé", a participant "Lucie", a new project
name, a second project "colloc-test", and last a reimbursement: 104 bills become 107, still two
list pages), and they come after the cases that read what they change. The NiceGUI desk keeps its tickets in
each page load, so each of its cases starts from the twelve seeded tickets and the first page.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("ihatemoney", "niceguiapp")


def _m(*args, **kw) -> Case:
    return Case("ihatemoney", *args, **kw)


def _n(*args, **kw) -> Case:
    return Case("niceguiapp", *args, **kw)


M_BILLS = "/coloc-lyon/"
M_ADD = "/coloc-lyon/add"
M_EDIT = "/coloc-lyon/edit"
M_STATS = "/coloc-lyon/statistics"
M_SETTLE = "/coloc-lyon/settle_bills"
M_NAV = "a.nav-link[href='{}']"
M_VALIDER = "click:form:has(#what) input#submit"
M_MEMBER = ("click:input#name",)
M_ADD_MEMBER = "click:form:has(input#name) button[type=submit]"
M_FILTERS = ("click:#toggle-filters", "click:#search")


def _bill(what: str, amount: str) -> tuple[str, ...]:
    return ("click:#what", f"type:{what}", "click:#payer", "select:1", "click:#amount", f"type:{amount}")


N_NEW = "click:button:has-text('New ticket')"
N_SAVE = "click:button:has-text('Save ticket')"
N_NAME = "click:.q-dialog input[aria-label='Customer name']"
N_PHONE = "click:.q-dialog input[aria-label='Phone']"
N_SEARCH = "click:input[aria-label='Search tickets']"
N_STATUS = "click:input[aria-label='Status']"
N_PAGER = "click:.q-table__bottom button[aria-label='{}']"
N_REORDER = "click:[role=tab]:has-text('Reorder')"

CASES: tuple[Case, ...] = (
    # --- I Hate Money (French): navigation ---
    _m("Factures tab on the bill list", M_BILLS, f"click:{M_NAV.format('/coloc-lyon/')}", False,
       "'Factures' links to the bill list already shown: the same page comes back"),
    _m("Remboursements tab", M_BILLS, f"click:{M_NAV.format('/coloc-lyon/settle_bills')}", True,
       "the settlement page with who owes whom opens"),
    _m("Statistiques tab", M_BILLS, f"click:{M_NAV.format('/coloc-lyon/statistics')}", True,
       "the statistics page opens"),
    _m("Statistiques tab on the statistics page", M_STATS, f"click:{M_NAV.format('/coloc-lyon/statistics')}", False,
       "a link to the page already shown"),
    _m("click the statistics heading", M_STATS, "click:h2:has-text('Dépenses par mois')", False,
       "'Dépenses par mois' is a plain heading"),
    _m("double-click the balance heading", M_STATS, "dblclick:table th >> nth=0", False,
       "a table header cell, not a control"),
    _m("scroll down the statistics page", M_STATS, "scroll:down", False,
       "the statistics page fits in the window: nothing below"),
    _m("open the language menu", M_BILLS, "click:#langMenuButton", True, "the list of languages drops down"),
    _m("choose French, the language already shown", M_BILLS, "click:a.dropdown-item[href$='/lang/fr']", False,
       "the page is already in French: the same bill list comes back", setup=("click:#langMenuButton",)),
    _m("open the project menu", M_BILLS, "click:#navbarProjectsLinks", True,
       "the project menu (settings, other projects, sign out) drops down"),
    _m("open project settings from the project menu", M_BILLS, f"click:a.dropdown-item[href='{M_EDIT}']", True,
       "the project settings page opens", setup=("click:#navbarProjectsLinks",)),
    _m("Inviter des gens", M_BILLS, "click:a[href='/coloc-lyon/invite']", True, "the invitation page opens"),
    # --- bill list: pagination, scrolling, filters ---
    _m("bill list page 2", M_BILLS, "click:ul.pagination a.page-link:text-is('2')", True,
       "the four oldest bills are listed on page 2"),
    _m("bill list current page 1", M_BILLS, "click:ul.pagination li.active a.page-link", False,
       "page 1 is already shown: the same list comes back"),
    _m("'Factures suivantes' on the first page", M_BILLS, "click:ul.pagination a.page-link >> nth=0", False,
       "there are no newer bills: the link is disabled on page 1"),
    _m("'Factures précédentes' on the last page", M_BILLS + "?page=2", "click:ul.pagination a.page-link >> nth=-1",
       False, "page 2 is the last: the link is disabled"),
    _m("'Factures suivantes' on page 2", M_BILLS + "?page=2", "click:ul.pagination a.page-link >> nth=0", True,
       "goes back to page 1 with the newest bills"),
    _m("scroll down the long bill list", M_BILLS, "scroll:down", True, "100 bills: the page is far taller than the window"),
    _m("scroll up at the top of the bill list", M_BILLS, "scroll:up", False, "already at the top"),
    _m("scroll down at the end of the bill list", M_BILLS, "scroll:down", False, "already at the end",
       setup=("bottom",)),
    _m("show the filters", M_BILLS, "click:#toggle-filters", True, "the filter panel unfolds"),
    _m("search bills with Enter", M_BILLS, "enter", True, "only the Picard bills are listed",
       setup=(*M_FILTERS, "type:Picard")),
    _m("search bills with no match", M_BILLS, "enter", True,
       "the list is filtered and shows that no bill matches 'Ikea'", setup=(*M_FILTERS, "type:Ikea")),
    _m("press Enter in the empty search box", M_BILLS, "enter", False,
       "an empty filter lists the same bills again", setup=M_FILTERS),
    _m("type into the search box", M_BILLS, "type:Monoprix", True, "the text appears in the search box",
       setup=M_FILTERS),
    _m("type on a freshly loaded bill list", M_BILLS, "type:bonjour", False,
       "the focus is on the 'Nouvelle facture' link, not a field: the keys go nowhere"),
    _m("press Enter on a freshly loaded bill list", M_BILLS, "enter", True,
       "the 'Nouvelle facture' button has autofocus: Enter opens the add-bill modal"),
    _m("open the add-bill modal", M_BILLS, "click:a.btn-primary[href='/coloc-lyon/add']", True,
       "the 'Ajouter une facture' modal opens"),
    _m("click the explanatory comic button", M_BILLS, "click:a:has-text('Voir la BD explicative')", True,
       "a modal with the comic strip opens"),
    # --- the add-bill form (its own page) ---
    _m("submit an empty bill", M_ADD, M_VALIDER, False,
       "the browser stops it: 'Quoi ?' is required; no bill is made"),
    _m("submit a bill with an amount that is not a number", M_ADD, M_VALIDER, False,
       "the server refuses 'douze' as an amount and shows the form again with an error",
       setup=_bill("Pain", "douze")),
    _m("press Enter in 'Quoi ?' with no amount", M_ADD, "enter", False,
       "the amount is required: the browser stops the submission", setup=("click:#what", "type:Boulangerie")),
    _m("type into 'Quoi ?'", M_ADD, "type:Courses", True, "the text appears in the field", setup=("click:#what",)),
    _m("click the 'Quoi ?' label", M_ADD, "click:label[for=what]", False,
       "the label focuses its field, which already has the focus on load: nothing changes"),
    _m("untick a participant", M_ADD, "click:#payed_for-2", True, "Mathieu no longer shares the bill"),
    _m("click 'Personne'", M_ADD, "click:#selectnone", True, "every participant becomes unticked"),
    _m("click 'Tout le monde' with everyone ticked", M_ADD, "click:a.badge:has-text('Tout le monde')", False,
       "everyone is already ticked"),
    _m("choose a payer", M_ADD, "select:2", True, "the payer changes from the empty choice to Mathieu",
       setup=("click:#payer",)),
    _m("choose the empty payer, already chosen", M_ADD, "select:0", False,
       "the empty choice is what the form starts with: nothing changes",
       setup=("click:#payer",)),
    _m("submit a valid bill", M_ADD, M_VALIDER, True, "the bill is saved and the list says so",
       setup=_bill("Courses Lidl", "23.40")),
    _m("submit a bill with a calculation", M_ADD, "click:form:has(#what) input#submit2", True,
       "'12+8' is computed, the bill saved and the add-bill modal opens again for the next one",
       setup=_bill("Cinéma Pathé", "12+8")),
    # --- participants ---
    _m("add a participant with no name", M_BILLS, M_ADD_MEMBER, False,
       "the name is required: the browser stops it", setup=M_MEMBER),
    _m("add a participant who is already there", M_BILLS, M_ADD_MEMBER, False,
       "'Camille' is already a participant: refused, the form comes back with an error", setup=(*M_MEMBER, "type:Camille")),
    _m("add a new participant", M_BILLS, M_ADD_MEMBER, True, "Lucie joins the balance table",
       setup=(*M_MEMBER, "type:Lucie")),
    # --- project settings, new project, settlement (last: it changes the balances) ---
    _m("scroll down the project settings", M_EDIT, "scroll:down", True,
       "the settings page (edit, delete, import, export) is taller than the window"),
    _m("save settings without the current code", M_EDIT, "click:button:has-text('Sauvegarder les modifications')",
       False, "the browser stops it: the current private code is required"),
    _m("tick 'Activer l'historique de projet'", M_EDIT, "click:#project_history", True,
       "the checkbox changes state (not saved yet)"),
    _m("save a new project name with the code", M_EDIT, "click:button:has-text('Sauvegarder les modifications')",
       True, "the new name is saved and the page confirms it",
       setup=("click:#name", "type: 2027", "click:#current_password", "type:Rhone-2026-clef")),
    _m("create a project with nothing filled in", "/create", "click:form button[type=submit]", False,
       "the browser stops it: the identifier is required"),
    _m("create a project whose identifier is taken", "/create", "click:form button[type=submit]", False,
       "'coloc-lyon' exists: the form comes back with an error",
       setup=("click:#id", "type:coloc-lyon", "click:#name", "type:Autre coloc", "click:#password",
              "type:secret-42", "click:#contact_email", "type:autre@example.org")),
    _m("create a new project", "/create", "click:form button[type=submit]", True,
       "the project is made and its (empty) bill list opens",
       setup=("click:#id", "type:colloc-test", "click:#name", "type:Colloc test", "click:#password",
              "type:secret-42", "click:#contact_email", "type:test@example.org")),
    _m("record a reimbursement", M_SETTLE, "click:button:has-text('Enregistrer le remboursement') >> nth=0", True,
       "the reimbursement is recorded as a bill and the page says so"),
    _m("click the settlement table header", M_SETTLE, "click:table th >> nth=0", False, "a plain header cell"),
    # --- NiceGUI workshop desk: navigation and plain content ---
    _n("Tickets link on the tickets page", "/", "click:header a:text-is('Tickets')", False,
       "a link to the page already shown"),
    _n("Parts link", "/", "click:header a:text-is('Parts')", True, "the parts page opens"),
    _n("Handbook link", "/", "click:header a:text-is('Handbook')", True, "the handbook opens"),
    _n("Settings link on the parts page", "/parts", "click:header a:text-is('Settings')", True,
       "the settings page opens"),
    _n("click the header title", "/", "click:header div:text-is('Spoke & Chain workshop')", False,
       "the workshop name is a plain label"),
    _n("click the page title", "/", "click:div.text-h5:text-is('Repair tickets')", False, "a plain heading"),
    _n("click a cell of the ticket table", "/", "click:.q-table tbody tr >> nth=1 >> td >> nth=2", False,
       "table rows are not clickable"),
    _n("type with nothing focused", "/", "type:hello", False, "no field has focus"),
    _n("scroll down the tickets page", "/", "scroll:down", False, "the page fits in the window"),
    # --- table: search, filter, sort, pagination ---
    _n("type into the ticket search", "/", "type:Road", True, "the table narrows to the road bikes",
       setup=(N_SEARCH,)),
    _n("search with no match", "/", "type:Tandem", True, "the table empties and says there is no data",
       setup=(N_SEARCH,)),
    _n("press Enter after searching", "/", "enter", False,
       "the table already filtered while typing; Enter does nothing more", setup=(N_SEARCH, "type:Road")),
    _n("open the status filter", "/", N_STATUS, True, "the status options drop down"),
    _n("choose status Done", "/", "click:.q-menu .q-item:has-text('Done')", True, "only the three done tickets remain",
       setup=(N_STATUS,)),
    _n("choose status All, already chosen", "/", "click:.q-menu .q-item:has-text('All')", False,
       "'All' is already the filter: the menu closes, the table stays", setup=(N_STATUS,)),
    _n("sort customers descending", "/", "click:th:has-text('Customer')", True,
       "a second click on the header reverses the order: Luca Moretti comes first",
       setup=("click:th:has-text('Customer')",)),
    _n("sort by due date", "/", "click:th:has-text('Due')", True, "the rows are sorted by due date"),
    _n("click the unsortable Bike header", "/", "click:th:has-text('Bike')", False,
       "the Bike column is not sortable"),
    _n("next page", "/", N_PAGER.format("Next page"), True, "tickets 6-10 are shown"),
    _n("last page", "/", N_PAGER.format("Last page"), True, "tickets 11-12 are shown"),
    _n("previous page on the first page", "/", N_PAGER.format("Previous page"), False,
       "disabled on the first page"),
    _n("first page on the first page", "/", N_PAGER.format("First page"), False, "disabled on the first page"),
    _n("next page on the last page", "/", N_PAGER.format("Next page"), False, "disabled on the last page",
       setup=(N_PAGER.format("Last page"),)),
    _n("previous page on the last page", "/", N_PAGER.format("Previous page"), True, "tickets 6-10 are shown",
       setup=(N_PAGER.format("Last page"),)),
    # --- buttons, the slow check, the dialog ---
    _n("click the disabled Export button", "/", "click:button:has-text('Export')", False, "the button is disabled"),
    _n("check supplier delivery (slow)", "/", "click:button:has-text('Check supplier delivery')", True,
       "after 2.5 s the supplier's answer appears"),
    _n("open the new-ticket dialog", "/", N_NEW, True, "the dialog opens"),
    _n("click the dialog title", "/", "click:.q-dialog div.text-h6", False, "a plain heading", setup=(N_NEW,)),
    _n("cancel the dialog", "/", "click:.q-dialog button:has-text('Cancel')", True, "the dialog closes",
       setup=(N_NEW,)),
    _n("save a ticket with no name", "/", N_SAVE, False,
       "'Customer name is required' shows under the field; nothing is saved", setup=(N_NEW,)),
    _n("save a ticket with letters in the phone", "/", N_SAVE, False,
       "'Phone must be digits only' shows; nothing is saved",
       setup=(N_NEW, N_NAME, "type:Mona Nilsen", N_PHONE, "type:call me")),
    _n("save a duplicate open ticket", "/", N_SAVE, False,
       "Anna Berg already has an open City bike ticket: refused with a warning, the dialog stays",
       setup=(N_NEW, N_NAME, "type:Anna Berg")),
    _n("save a valid ticket", "/", N_SAVE, True, "the ticket is added, the dialog closes and a notice confirms",
       setup=(N_NEW, N_NAME, "type:Mona Nilsen", N_PHONE, "type:0301 555 12")),
    _n("press Enter in the name field", "/", "enter", False, "the dialog has no form: Enter does nothing",
       setup=(N_NEW, N_NAME, "type:Mona Nilsen")),
    _n("choose Urgent", "/", "click:.q-dialog [role=radio]:has-text('Urgent')", True, "Urgent becomes selected",
       setup=(N_NEW,)),
    _n("choose Normal, already chosen", "/", "click:.q-dialog [role=radio]:has-text('Normal')", False,
       "Normal is already selected", setup=(N_NEW,)),
    _n("tick 'Loan bike needed'", "/", "click:.q-dialog [role=checkbox]", True, "the checkbox becomes ticked",
       setup=(N_NEW,)),
    _n("choose another bike type", "/", "click:.q-menu .q-item:has-text('E-bike')", True,
       "the bike type changes to E-bike", setup=(N_NEW, "click:.q-dialog input[aria-label='Bike type']")),
    # --- parts page ---
    _n("Reorder tab", "/parts", N_REORDER, True, "the reorder form is shown"),
    _n("Stock tab, already selected", "/parts", "click:[role=tab]:has-text('Stock')", False,
       "the Stock tab is already shown"),
    _n("switch 'Show only low stock' on", "/parts", "click:[role=switch]", True,
       "the list keeps only the parts below the threshold"),
    _n("open the storage expansion", "/parts", "click:.q-expansion-item .q-item", True,
       "the storage note unfolds"),
    _n("click the slider near its maximum", "/parts", "click:.q-slider__track-container >> nth=0", True,
       "the threshold moves from 5 to about 10; the low-stock marks change"),
    _n("type into the read-only supplier field", "/parts", "type:Other", False, "the field is read-only",
       setup=(N_REORDER, "click:input[aria-label='Supplier']")),
    _n("type past a note's 20-character limit", "/parts", "type:please", False,
       "the note is already 20 characters long; no more fit",
       setup=(N_REORDER, "click:input[aria-label='Note for the supplier']", "type:Deliver before noon!")),
    _n("type letters into the quantity", "/parts", "type:ab", False, "a number field takes no letters",
       setup=(N_REORDER, "click:input[aria-label='Quantity']")),
    _n("send a reorder", "/parts", "click:button:has-text('Send reorder')", True, "a notice confirms the reorder",
       setup=(N_REORDER,)),
    # --- settings and handbook ---
    _n("type into the read-only workshop name", "/settings", "type:Bikes", False, "the field is read-only",
       setup=("click:input[aria-label='Workshop name']",)),
    _n("choose Metric, already chosen", "/settings", "click:[role=radio]:has-text('Metric')", False,
       "Metric is already selected"),
    _n("choose Imperial", "/settings", "click:[role=radio]:has-text('Imperial')", True, "Imperial becomes selected"),
    _n("switch SMS reminders off", "/settings", "click:[role=switch]", True, "the toggle turns off"),
    _n("save settings", "/settings", "click:button:has-text('Save settings')", True,
       "a line confirms the saved settings"),
    _n("scroll up on the short settings page", "/settings", "scroll:up", False, "nothing above; the page fits"),
    _n("scroll down the handbook", "/handbook", "scroll:down", True, "the handbook is much taller than the window"),
    _n("scroll up at the top of the handbook", "/handbook", "scroll:up", False, "already at the top"),
    _n("scroll down at the end of the handbook", "/handbook", "scroll:down", False, "already at the end",
       setup=("bottom",)),
    _n("click a handbook heading", "/handbook", "click:div.text-h6:text-is('Quotes')", False, "a plain heading"),
    _n("click the handbook image", "/handbook", "click:img", False, "a picture, not a link"),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.ihatemoney.app import Server as IHateMoney
    from practice.realapps.niceguiapp.app import Server as NiceGUIApp

    return {"ihatemoney": IHateMoney, "niceguiapp": NiceGUIApp}


async def sign_in(env, app: str, server) -> None:
    """I Hate Money: sign in to the project with its private code, then pick French with the app's
    own language link (not judged). The NiceGUI desk has no sign-in: open it once."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "ihatemoney":
        await env.goto(base + "/authenticate")
        await page.fill("input[name=id]", server.username)
        await page.fill("input[name=password]", server.password)
        await page.press("input[name=password]", "Enter")
        await page.wait_for_selector("#navbarProjectsLinks")
        await env.goto(base + "/lang/fr")
        await env.goto(base + f"/{server.username}/")
        await page.wait_for_selector("text=Factures")
    elif app == "niceguiapp":
        await env.goto(base + "/")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
