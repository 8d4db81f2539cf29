"""The sixth independent labelled set for the step evaluator (holdout 6): actions on a small
warehouse order desk built on Plotly Dash 4.4.1 with dash-bootstrap-components 2.0.4 (React
components drawn client-side, every change a JSON POST to `/_dash-update-component`: tabs, a
sortable and paginated DataTable, a search box and Dash's own drop-down filter, a new-order form
checked by its callback, a native select, a radio group, checkboxes, a slider, read-only,
`maxlength`, number and textarea fields, a customer dialog that refuses duplicates, a slow report,
an accordion, a long and a short page) and on Fava 1.30.16 (the web interface of the Beancount
ledger, a Svelte front end over a Flask JSON API with its own client-side router) in its Spanish
translation, showing a bakery's books; real third-party frameworks nobody here wrote, served from
their own virtualenvs under .local/holdout-apps (practice/realapps/dashapp, practice/realapps/fava;
not in CI). Measured by `benchmarks/step_evaluator_holdout.py --set 6`.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (each case's setup and action tried by hand through plain Playwright in Chromium, in this
order, on freshly started apps) before the evaluator was run on any case, and written without
reading the evaluator's code or rules; `why` says so in one line. The cases were committed before
the one scoring run. The harness is tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open
`path` fresh, run `setup`, judge `action`; specs `click:<css>`, `dblclick:<css>`, `type:<text>`,
`scroll:down|up`, `enter`, `select:<n>`, the setup-only `bottom`).

Order matters within an app: the cases run in one browser, in order, on one server. The Dash desk
keeps its orders and customers in each page load, so each of its cases starts from the 23 seeded
orders, the five customers and the Orders tab. Fava remembers in the browser which journal entry
types are shown, how the journal is sorted and which chart type is drawn, so a case that hides the
transactions is followed by one that shows them again, and the tree map is clicked before the
sunburst. Fava reads and writes one ledger file: three cases near the end change it (two
transactions saved from the "+" dialog, one of them empty and one unbalanced, which Fava then counts
as an error; the ledger saved from the editor with a comment added), after every case that reads
the books. tests/helpers/effect_cases_dryrun.py does every case's setup and action in this order
without the evaluator and checks each click target is there, visible and hit at its centre.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("dashapp", "fava")


def _w(*args, **kw) -> Case:
    return Case("dashapp", *args, **kw)


def _f(*args, **kw) -> Case:
    return Case("fava", *args, **kw)


W_TAB = "click:#tabs .tab:nth-child({})"
W_NEW = (W_TAB.format(2),)
W_CUST = (W_TAB.format(3),)
W_STATUS = "click:#status-filter"
W_OPTION = "click:[role=listbox] [data-option-index='{}']"
W_PAGER = "click:.previous-next-container button.{}"
W_CUSTOMER = ("click:#no-customer", "click:[role=listbox] [data-option-index='1']", "click:#no-qty", "type:4")
W_PLACE = "click:#no-submit"
W_ADD = ("click:#open-add",)

F = "/panader%C3%ADa-la-espiga"
F_IS, F_BS, F_TB, F_JOURNAL = f"{F}/income_statement/", f"{F}/balance_sheet/", f"{F}/trial_balance/", f"{F}/journal/"
F_QUERY, F_OPTIONS, F_IMPORT, F_EDITOR = f"{F}/query/", f"{F}/options/", f"{F}/import/", f"{F}/editor/"
F_NAV = "click:aside a[href$='/{}/']"
F_TIME, F_ACCOUNT = "click:header input[placeholder=Hora]", "click:header input[placeholder=Cuenta]"
F_FILTER = "click:header input[placeholder^=Filtro]"

CASES: tuple[Case, ...] = (
    # -- Dash 4.4.1 warehouse desk (English) -------------------------------------------------------
    _w("open the New order tab", "/", W_TAB.format(2), True, "the new-order form replaces the order table"),
    _w("click the Orders tab that is already open", "/", W_TAB.format(1), False,
       "Orders is the selected tab; the same table stays"),
    _w("click the page heading", "/", "click:h1", False, "'Warehouse desk' is a plain heading"),
    _w("click the logo", "/", "click:#logo", False, "the logo is an image, not a link"),
    _w("double-click the subtitle", "/", "dblclick:#subtitle", False, "'North depot · shift A' is plain text"),
    _w("type with nothing focused", "/", "type:pallet", False, "no field has focus; the keys go nowhere"),
    _w("type into the search box", "/", "type:Acme", True, "the clicked box takes the text",
       setup=("click:#search",)),
    _w("search with the button", "/", "click:#search-btn", True,
       "the table is narrowed to Acme Foods' orders and a count appears",
       setup=("click:#search", "type:Acme")),
    _w("search with Enter", "/", "enter", True, "Enter in the box runs the search; the table narrows",
       setup=("click:#search", "type:film")),
    _w("search with the box empty", "/", "click:#search-btn", False,
       "nothing to search for: all 23 orders stay listed, the same first page"),
    _w("press Enter in the empty search box", "/", "enter", False, "an empty search changes nothing",
       setup=("click:#search",)),
    _w("search for something no order has", "/", "click:#search-btn", True,
       "the search runs: the table empties and says no orders match",
       setup=("click:#search", "type:forklift")),
    _w("run the same search again", "/", "click:#search-btn", False,
       "the table already shows exactly this search's results",
       setup=("click:#search", "type:Acme", "click:#search-btn")),
    _w("sort by quantity", "/", "click:th[data-dash-column=qty] .column-header--sort", True,
       "the rows are reordered by quantity"),
    _w("go to the next page", "/", W_PAGER.format("next-page"), True, "orders 1008-1015 replace the first page"),
    _w("go to the last page", "/", W_PAGER.format("last-page"), True, "the third page with the last orders opens"),
    _w("go to the first page from the first page", "/", W_PAGER.format("first-page"), False,
       "already on page 1; the button is disabled"),
    _w("go to the previous page from the first page", "/", W_PAGER.format("previous-page"), False,
       "already on page 1; the button is disabled"),
    _w("go to the next page from the last page", "/", W_PAGER.format("next-page"), False,
       "already on the last page; the button is disabled", setup=(W_PAGER.format("last-page"),)),
    _w("go back to the first page from the last", "/", W_PAGER.format("first-page"), True,
       "page 1 comes back", setup=(W_PAGER.format("last-page"),)),
    _w("click the disabled 'Export to PDF'", "/", "click:#export-pdf", False, "the button is disabled"),
    _w("build the weekly report (slow)", "/", "click:#report-btn", True,
       "after about three seconds the report summary appears below the buttons"),
    _w("click the 'Export' heading", "/", "click:h5", False, "a plain section heading"),
    _w("open the status filter", "/", W_STATUS, True, "the list of statuses drops down"),
    _w("filter by status 'Open'", "/", W_OPTION.format(1), True, "only open orders are listed",
       setup=(W_STATUS,)),
    _w("choose the status already chosen", "/", W_OPTION.format(0), False,
       "'All' is already the filter; the list just closes on the same table", setup=(W_STATUS,)),
    _w("click a plain order cell", "/", "click:.dash-spreadsheet tbody tr:nth-child(3) td[data-dash-column=customer]",
       True, "the DataTable selects the clicked cell (order 1001's customer turns highlighted)"),
    _w("scroll down the order page", "/", "scroll:down", False, "the Orders tab fits in the window"),
    # New order tab
    _w("place an order with no customer", "/", W_PLACE, False,
       "refused by the desk: a red alert asks for a customer and a quantity, no order", setup=W_NEW),
    _w("place a complete order", "/", W_PLACE, True, "a green 'Order placed' confirmation appears",
       setup=(*W_NEW, *W_CUSTOMER)),
    _w("place an order for zero pieces", "/", W_PLACE, False,
       "refused: 'Quantity must be between 1 and 500.', no order",
       setup=(*W_NEW, "click:#no-customer", "click:[role=listbox] [data-option-index='1']",
              "click:#no-qty", "type:0")),
    _w("pick a customer", "/", W_OPTION.format(2), True, "'Coastal Tiles' becomes the order's customer",
       setup=(*W_NEW, "click:#no-customer")),
    _w("type into the read-only warehouse field", "/", "type:South", False,
       "the warehouse field is read-only; its text stays 'North depot'", setup=(*W_NEW, "click:#no-warehouse")),
    _w("type past the reference's 8 characters", "/", "type:9", False,
       "the reference is full (maxlength 8); the key is dropped",
       setup=(*W_NEW, "click:#no-ref", "type:PO-77120")),
    _w("type a reference", "/", "type:PO-12", True, "the clicked field takes the text",
       setup=(*W_NEW, "click:#no-ref")),
    _w("type letters into the quantity", "/", "type:abc", False,
       "a number field ignores letters; the quantity stays empty", setup=(*W_NEW, "click:#no-qty")),
    _w("type digits into the quantity", "/", "type:12", True, "the quantity becomes 12",
       setup=(*W_NEW, "click:#no-qty")),
    _w("press Enter in the reference field", "/", "enter", False,
       "the form has no submit on Enter; nothing happens", setup=(*W_NEW, "click:#no-ref", "type:PO-9")),
    _w("press Enter in the delivery address", "/", "enter", True, "a new line starts in the address box",
       setup=(*W_NEW, "click:#no-address", "type:Harbour Road 4")),
    _w("choose Express shipping", "/", "click:label[for=_dbcprivate_radioitems_no-shipping_input_Express]", True,
       "the Express radio becomes chosen", setup=W_NEW),
    _w("click the Standard radio already chosen", "/",
       "click:label[for=_dbcprivate_radioitems_no-shipping_input_Standard]", False,
       "Standard is already the chosen shipping", setup=W_NEW),
    _w("tick 'Fragile'", "/", "click:label[for=_dbcprivate_checklist_no-flags_input_fragile]", True,
       "the checkbox becomes ticked", setup=W_NEW),
    _w("untick 'Fragile'", "/", "click:label[for=_dbcprivate_checklist_no-flags_input_fragile]", True,
       "the checkbox becomes unticked again",
       setup=(*W_NEW, "click:label[for=_dbcprivate_checklist_no-flags_input_fragile]")),
    _w("click the middle of the discount slider", "/", "click:#no-discount .dash-slider-track", True,
       "the discount moves from 0 to 10 % and the line below says so", setup=W_NEW),
    _w("choose another product", "/", "select:3", True, "the product changes from Pallet jack to another one",
       setup=(*W_NEW, "click:#no-product")),
    _w("scroll down the new-order form", "/", "scroll:down", True, "the form is taller than the window",
       setup=W_NEW),
    _w("scroll down at the end of the new-order form", "/", "scroll:down", False, "already at the end",
       setup=(*W_NEW, "bottom")),
    # Customers tab
    _w("open the Add customer dialog", "/", "click:#open-add", True, "the dialog opens", setup=W_CUST),
    _w("cancel the Add customer dialog", "/", "click:#cust-cancel", True, "the dialog closes",
       setup=(*W_CUST, *W_ADD)),
    _w("save a customer with no name", "/", "click:#cust-save", False,
       "refused: 'Enter a company name.', the dialog stays", setup=(*W_CUST, *W_ADD)),
    _w("save a customer that already exists", "/", "click:#cust-save", False,
       "refused: 'Acme Foods is already a customer.'",
       setup=(*W_CUST, *W_ADD, "click:#cust-name", "type:Acme Foods")),
    _w("save a new customer", "/", "click:#cust-save", True, "the dialog closes and the customer is listed",
       setup=(*W_CUST, *W_ADD, "click:#cust-name", "type:Granite Works")),
    _w("click the dialog's title", "/", "click:.modal-title", False, "'Add customer' is a plain title",
       setup=(*W_CUST, *W_ADD)),
    _w("click a customer in the list", "/", "click:#customer-list li:nth-child(2)", False,
       "the customer list is plain text", setup=W_CUST),
    _w("open an FAQ item", "/", "click:#faq .accordion-item:nth-child(1) .accordion-button", True,
       "the answer unfolds", setup=W_CUST),
    _w("close the open FAQ item", "/", "click:#faq .accordion-item:nth-child(1) .accordion-button", True,
       "the answer folds away again",
       setup=(*W_CUST, "click:#faq .accordion-item:nth-child(1) .accordion-button")),
    _w("scroll down the Customers tab", "/", "scroll:down", True, "the notes make the page long", setup=W_CUST),
    _w("scroll up at the top of the Customers tab", "/", "scroll:up", False, "already at the top",
       setup=W_CUST),
    _w("scroll down at the end of the Customers tab", "/", "scroll:down", False, "already at the end",
       setup=(*W_CUST, "bottom")),
    _w("double-click the Help heading", "/", "dblclick:h4:nth-of-type(2)", False,
       "'Help' is a plain heading", setup=W_CUST),
    # -- Fava 1.30.16 in Spanish: a bakery's books --------------------------------------------------
    _f("open the balance sheet from the sidebar", F_IS, F_NAV.format("balance_sheet"), True,
       "'Hoja de balance' replaces the income statement"),
    _f("click the sidebar link of the page already shown", F_IS, F_NAV.format("income_statement"), False,
       "'Declaración de Ingresos' is the page already shown"),
    _f("open the journal from the sidebar", F_IS, F_NAV.format("journal"), True, "the journal ('Diario') opens"),
    _f("click the page name in the header", F_JOURNAL, "click:header h1 strong", False,
       "'Diario' in the header is plain text"),
    _f("click the ledger title in the header", F_JOURNAL, "click:header h1", False,
       "'Panadería La Espiga' is a plain title, not a link"),
    _f("type with nothing focused on the journal", F_JOURNAL, "type:1234", False,
       "no field has focus; digits are no shortcut"),
    _f("hide the transactions in the journal", F_JOURNAL, "click:button[data-key='s t']", True,
       "the 'Transaction' toggle turns off and the transactions leave the list"),
    _f("show the transactions again", F_JOURNAL, "click:button[data-key='s t']", True,
       "Fava remembered the hidden transactions; the toggle turns on and they come back"),
    _f("show the Open entries in the journal", F_JOURNAL, "click:button[data-key='s o']", True,
       "the 'Open' toggle turns on and the account openings join the list"),
    _f("hide the Open entries again", F_JOURNAL, "click:button[data-key='s o']", True,
       "Fava remembered the shown openings; the toggle turns off and they leave the list"),
    _f("sort the journal by date", F_JOURNAL, "click:.journal .head button.datecell", True,
       "the journal flips to oldest first"),
    _f("sort the journal by payee", F_JOURNAL, "click:.journal .head button.description", True,
       "the entries are reordered by payee"),
    _f("click an entry's payee and narration", F_JOURNAL, "click:.journal li.transaction .description",
       False, "the description is plain text; the entry stays folded"),
    _f("unfold an entry with its posting dots", F_JOURNAL, "click:.journal li.transaction .indicators",
       True, "the entry unfolds to show its two postings"),
    _f("scroll down the journal", F_JOURNAL, "scroll:down", True, "sixty entries make a long page"),
    _f("scroll up at the top of the journal", F_JOURNAL, "scroll:up", False, "already at the top"),
    _f("filter the journal by a month with Enter", F_JOURNAL, "enter", True,
       "only March's entries remain and the filter is applied",
       setup=(F_TIME, "type:2025-03")),
    _f("press Enter in the empty time filter", F_JOURNAL, "enter", False, "no time given: nothing to filter",
       setup=(F_TIME,)),
    _f("filter by a time Fava cannot read", F_JOURNAL, "enter", False,
       "'marzo pasado' is no time Fava understands: an error, the journal stays unfiltered",
       setup=(F_TIME, "type:marzo pasado")),
    _f("filter the journal by payee with Enter", F_JOURNAL, "enter", True, "only Iberdrola's bills remain",
       setup=(F_FILTER, "type:Iberdrola")),
    _f("filter the journal by a word no entry has", F_JOURNAL, "enter", True,
       "the filter is applied and the journal empties", setup=(F_FILTER, "type:Mercadona")),
    _f("filter by account with Enter", F_IS, "enter", True, "the reports narrow to the flour account",
       setup=(F_ACCOUNT, "type:Gastos:Harina")),
    _f("type into the time filter", F_JOURNAL, "type:2025", True, "the clicked box takes the text",
       setup=(F_TIME,)),
    _f("click the chart type already chosen", F_TB, "click:label.button:has(input[value=treemap])", False,
       "'Árbol' (tree map) is already the chart shown"),
    _f("show the chart as a sunburst", F_TB, "click:label.button:has(input[value=sunburst])", True,
       "the chart switches from tree map to sunburst (Fava remembers the choice)"),
    _f("open the interval menu", F_IS, "click:button[aria-controls][role=combobox]:text('Mensualmente')", True,
       "the list of intervals drops down"),
    _f("choose the interval already chosen", F_IS, "click:[role=listbox] li.current:text('Mensualmente')", False,
       "monthly is already the interval; the menu closes on the same chart",
       setup=("click:button[role=combobox]:text('Mensualmente')",)),
    _f("choose a yearly interval", F_IS, "click:[role=listbox] li:text('Anualmente')", True,
       "the chart and its tab switch to yearly",
       setup=("click:button[role=combobox]:text('Mensualmente')",)),
    _f("open an account from the balance sheet", F_BS, "click:article a[href*='account/Activos:Caja']", True,
       "the cash account's page opens"),
    _f("go to an account from the sidebar box", F_IS, "enter", True, "the flour account's page opens",
       setup=("click:aside input[placeholder='Ir a cuenta']", "type:Gastos:Harina")),
    _f("open the keyboard-shortcut overlay", F_IS, "click:aside button[data-key='?']", True,
       "the shortcuts are shown over the page"),
    _f("run a query", F_QUERY, "click:article form button[type=submit]", True, "the result table appears",
       setup=("click:article .cm-content", "type:SELECT account, sum(position) GROUP BY account")),
    _f("run a query that is not BQL", F_QUERY, "click:article form button[type=submit]", False,
       "Fava refuses it with a syntax error; no result",
       setup=("click:article .cm-content", "type:muéstrame las ventas")),
    _f("run an empty query", F_QUERY, "click:article form button[type=submit]", False,
       "nothing was typed; there is no query to run"),
    _f("click a heading on the options page", F_OPTIONS, "click:article h2", False,
       "'Esquema de color' is a plain heading"),
    _f("scroll down a page that fits the window", F_IMPORT, "scroll:down", False,
       "the import page has nothing below the window"),
    _f("double-click an amount in the income table", F_IS, "dblclick:article .tree-table-new li:not(.head) span.num", False,
       "the amounts are plain numbers"),
    _f("click the 'Otro' column header", F_IS, "click:article .tree-table-new li.head span.num.other", False,
       "a plain column header; the tree table does not sort by it"),
    _f("click the journal link while on the journal", F_JOURNAL, F_NAV.format("journal"), False,
       "'Diario' is the page already shown"),
    _f("press Enter in the empty tag and payee filter", F_JOURNAL, "enter", False,
       "no filter text: the journal stays as it is", setup=(F_FILTER,)),
    _f("choose the conversion already chosen", F_IS, "click:[role=listbox] li.current:text('Al Costo')", False,
       "'Al Costo' is already the conversion; the menu closes on the same report",
       setup=("click:button[role=combobox]:text('Al Costo')",)),
    _f("scroll down at the end of the journal", F_JOURNAL, "scroll:down", False,
       "two scrolls already reached the last entry", setup=("scroll:down", "scroll:down")),
    _f("type with nothing focused on the options page", F_OPTIONS, "type:1234", False,
       "no field has focus; digits are no shortcut"),
    _f("fold an account in the income statement", F_IS, "click:article .tree-table-new li:not(.head) button", True,
       "the 'Ingresos' branch folds and its sub-accounts disappear"),
    _f("open the add-transaction dialog", F_JOURNAL, "click:aside a.add-transaction", True,
       "the 'Agregar Transacción' dialog opens"),
    _f("close the add-transaction dialog", F_JOURNAL, "click:dialog button.close", True, "the dialog closes",
       setup=("click:aside a.add-transaction",)),
    _f("save the dialog with only its default date and flag", F_JOURNAL, "click:dialog button[type=submit]", True,
       "Fava stores it: 'Stored 1 entries.', an empty transaction is written and the dialog closes",
       setup=("click:aside a.add-transaction",)),
    _f("tick 'continuar' in the dialog", F_JOURNAL, "click:dialog input[type=checkbox]", True,
       "the checkbox becomes ticked", setup=("click:aside a.add-transaction",)),
    _f("save a transaction with payee, account and amount", F_JOURNAL, "click:dialog button[type=submit]", True,
       "Fava writes it ('Stored 1 entries.'); with one posting it is unbalanced, so 'Errores 1' appears",
       setup=("click:aside a.add-transaction", "click:dialog input[placeholder=Beneficiario]", "type:Molinos del Sur",
              "click:dialog input[placeholder=Narración]", "type:Levadura",
              "click:dialog input[placeholder=Cuenta]", "type:Gastos:Harina",
              "click:dialog input[placeholder=Cantidad]", "type:42.00 EUR")),
    _f("save the unchanged ledger in the editor", F_EDITOR, "click:article button[type=submit]", False,
       "nothing was changed; the save button is disabled"),
    _f("save an edited ledger", F_EDITOR, "click:article button[type=submit]", True,
       "the change is written and the save button greys out again",
       setup=("click:article .cm-content", "type:; revisado")),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.dashapp.app import Server as DashApp
    from practice.realapps.fava.app import Server as Fava

    return {"dashapp": DashApp, "fava": Fava}


async def sign_in(env, app: str, server) -> None:
    """Neither app has a sign-in: open it once (not judged). Fava's language comes from the ledger's
    own `fava-option`, so the pages are Spanish from the start."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "dashapp":
        await env.goto(base + "/")
        await page.wait_for_selector("#tabs")
    elif app == "fava":
        await env.goto(base + "/")
        await page.wait_for_selector("aside a[href$='/journal/']")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
