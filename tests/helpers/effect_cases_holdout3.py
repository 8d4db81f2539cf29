"""The third independent labelled set for the step evaluator (holdout 3): actions on a small
contacts site built on Flask-AppBuilder (server-rendered CRUD: FAB's own forms, validation, list
views, Bootstrap menus, modals, tabs, collapsible panels, select2) and on Datasette (tables, facets,
filters, full-text search, column cog menus, a CodeMirror SQL editor, canned queries), real
third-party applications nobody here wrote, served from their own virtualenvs under
.local/holdout-apps (practice/realapps/flaskappbuilder, practice/realapps/datasette; not in CI).
Measured by `benchmarks/step_evaluator_holdout.py --set 3`.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (each case's setup and action tried by hand through plain Playwright in Chromium, in this
order, on freshly seeded apps) before the evaluator was run on any case; `why` says so in one line.
The cases were committed before the one scoring run. The harness is
tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open `path` fresh, run `setup`, judge
`action`; specs `click:<css>`, `dblclick:<css>`, `type:<text>`, `scroll:down|up`, `enter`,
`select:<n>`, the setup-only `bottom`); the browser signs in once per app (`sign_in`, unjudged).

Order matters within an app: the cases run in one browser, in order, on one server. Some add rows
(a contact, a department, a user, a category: each name used once), and Flask-AppBuilder keeps the
last opened tab and collapsible panel in localStorage, so the tab already selected is tried before
the other tab is opened, and only one case opens the list's search panel.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("flaskappbuilder", "datasette")


def _f(*args, **kw) -> Case:
    return Case("flaskappbuilder", *args, **kw)


def _d(*args, **kw) -> Case:
    return Case("datasette", *args, **kw)


F_LIST = "/contactmodelview/list/"
F_ADD = "/contactmodelview/add"
F_DEP_ADD = "/departmentmodelview/add"
F_DEP_SHOW = "/departmentmodelview/show/2"
F_FEEDBACK = "/feedbackview/form"
F_USER_ADD = "/users/add"
F_SAVE = "click:button.btn-primary[type=submit]"
F_PAGER = "ul.pagination li"
F_CONTACTS_MENU = "click:a.dropdown-toggle:has-text('Contacts')"
F_DELETE_5 = "click:a[id='btn-delete-/contactmodelview/delete/5']"
FEEDBACK_TEXT = ("click:#message", "type:The printer jams on every second page.")
NEW_USER = ("click:#first_name", "type:Nora", "click:#last_name", "type:Novak", "click:#email",
            "type:nora@example.com")

D_PRODUCTS = "/shop/products"
D_QUERY = "/shop?sql=select+name%2C+aisle+from+categories"
D_ADD_CATEGORY = "/shop/add_category"
D_CHEAP = "/shop/cheap_products"
D_RUN = "click:input[type=submit][value='Run SQL']"
D_APPLY = "click:input[type=submit][value=Apply]"
D_PRICE_COG = "click:th.col-price svg.dropdown-menu-icon"

CASES: tuple[Case, ...] = (
    # Flask-AppBuilder: the contacts list (24 contacts, 20 a page)
    _f("open the add form", F_LIST, "click:a.btn-primary[href='/contactmodelview/add']", True,
       "the Add button opens the Add Contact form"),
    _f("first-page arrow on the first page", F_LIST, f"click:{F_PAGER}:nth-child(1) a", False,
       "'«' is disabled on page 1: the same rows stay"),
    _f("previous-page arrow on the first page", F_LIST, f"click:{F_PAGER}:nth-child(2) a", False,
       "'<' is disabled on page 1: nothing changes"),
    _f("current page number", F_LIST, f"click:{F_PAGER}.active a", False,
       "page 1 is already shown; its number links nowhere"),
    _f("second page", F_LIST, f"click:{F_PAGER}:nth-child(4) a", True,
       "page 2 lists the last four contacts"),
    _f("sort by Active", F_LIST, "click:th a[href*='_oc_ContactModelView=active']", True,
       "the list is reordered with the inactive contacts first"),
    _f("click the Department header (not sortable)", F_LIST, "click:th:has-text('Department')", False,
       "the Department header is plain text: no sort, nothing happens"),
    _f("open the page-size menu", F_LIST, "click:button.dropdown-toggle:has-text('Page size')", True,
       "the dropdown with 25/50/75/100 opens"),
    _f("click an e-mail cell", F_LIST, "click:td:has-text('chloe@acme.example')", False,
       "a table cell is plain text"),
    _f("click the panel title", F_LIST, "click:h4.panel-title:has-text('List Contact')", False,
       "the 'List Contact' heading does nothing"),
    _f("delete asks for confirmation", F_LIST, F_DELETE_5, True,
       "Delete opens the 'Are you sure you want to delete this item?' dialog"),
    _f("cancel the delete dialog", F_LIST, "click:#modal-confirm button:has-text('Cancel')", True,
       "Cancel closes the confirmation dialog (nothing deleted)", setup=(F_DELETE_5,)),
    _f("scroll down the long list", F_LIST, "scroll:down", True, "the 20-row list scrolls down"),
    _f("scroll down at the end of the list", F_LIST, "scroll:down", False,
       "already at the bottom: the page does not move", setup=("bottom",)),
    _f("scroll up at the top", F_LIST, "scroll:up", False, "already at the top: nothing moves"),
    _f("open the Contacts menu", F_LIST, F_CONTACTS_MENU, True,
       "the navbar dropdown opens with List Contacts and Departments"),
    _f("menu link to the page already shown", F_LIST, "click:.dropdown-menu a[href='/contactmodelview/list/']",
       False, "List Contacts reloads the same list: the user is where they were",
       setup=(F_CONTACTS_MENU,)),
    _f("menu link to Departments", F_LIST, "click:.dropdown-menu a[href='/departmentmodelview/list/']", True,
       "the Departments list opens", setup=(F_CONTACTS_MENU,)),
    _f("open the user menu", F_LIST, "click:a.dropdown-toggle:has-text('Ada Admin')", True,
       "the dropdown with Profile and Logout opens"),
    _f("open the profile", F_LIST, "click:a[href*='userinfo']", True, "the user's info page opens",
       setup=("click:a.dropdown-toggle:has-text('Ada Admin')",)),
    _f("open the search panel", F_LIST, "click:a[href='#accordion1_href']", True,
       "the collapsed Search panel opens with its Add Filter button"),
    _f("scroll the short departments list", "/departmentmodelview/list/", "scroll:down", False,
       "four departments fit the window: nothing to scroll"),
    # Flask-AppBuilder: the add-contact form
    _f("save with the name empty", F_ADD, F_SAVE, False,
       "the browser's required-field check stops the submit; nothing is saved"),
    _f("save a duplicate name", F_ADD, F_SAVE, False, "the server answers 'Already exists.'; no row added",
       setup=("click:#name", "type:Alice Archer")),
    _f("save a malformed e-mail", F_ADD, F_SAVE, False, "the server answers 'Invalid email address.'",
       setup=("click:#name", "type:Yara Young", "click:#email", "type:yara-at-acme")),
    _f("click the form title", F_ADD, "click:h4.panel-title", False, "the 'Add Contact' title does nothing"),
    _f("type with nothing focused", F_ADD, "type:Yara Young", False, "no field has focus: the text goes nowhere"),
    _f("type into the focused name", F_ADD, "type:Yara Young", True, "the Name field fills",
       setup=("click:#name",)),
    _f("untick Active", F_ADD, "click:#active", True, "the ticked Active checkbox is cleared"),
    _f("open the department picker", F_ADD, "click:.select2-selection", True,
       "the select2 list of the four departments opens"),
    _f("save a valid contact", F_ADD, F_SAVE, True, "'Added Row': the contact is created",
       setup=("click:#name", "type:Yara Young", "click:#email", "type:yara@acme.example")),
    # Flask-AppBuilder: departments
    _f("the tab already selected", F_DEP_SHOW, "click:a[href='#Home']", False,
       "Detail is the open tab already"),
    _f("open the related contacts tab", F_DEP_SHOW, "click:a[href='#ContactModelView']", True,
       "the tab lists Engineering's contacts"),
    _f("add a duplicate department", F_DEP_ADD, F_SAVE, False, "'Already exists.': Sales is taken",
       setup=("click:#name", "type:Sales")),
    _f("add a department with a word for its floor", F_DEP_ADD, F_SAVE, False,
       "'Not a valid integer value.'", setup=("click:#name", "type:Legal", "click:#floor", "type:second")),
    _f("add a department", F_DEP_ADD, F_SAVE, True, "'Added Row': Legal is created",
       setup=("click:#name", "type:Legal", "click:#floor", "type:4")),
    # Flask-AppBuilder: a contact's page
    _f("expand the collapsed Personal panel", "/contactmodelview/show/3", "click:a[href='#2_href']", True,
       "birthday, active and notes appear"),
    _f("click a field name", "/contactmodelview/show/3", "click:th:has-text('Phone')", False,
       "a row header is plain text"),
    # Flask-AppBuilder: the feedback form (a SimpleFormView)
    _f("send valid feedback", F_FEEDBACK, F_SAVE, True, "the thank-you message is shown",
       setup=("click:#subject", "type:Printer on floor 2", *FEEDBACK_TEXT)),
    _f("send a message under 10 characters", F_FEEDBACK, F_SAVE, False,
       "the browser's minimum-length check stops the submit",
       setup=("click:#subject", "type:Printer", "click:#message", "type:Jams.")),
    _f("send without a subject", F_FEEDBACK, F_SAVE, False, "the required Subject stops the submit",
       setup=FEEDBACK_TEXT),
    _f("choose another topic", F_FEEDBACK, "select:2", True, "the Topic changes from General to Idea",
       setup=("click:#topic",)),
    _f("choose the topic already chosen", F_FEEDBACK, "select:0", False, "General was already selected",
       setup=("click:#topic",)),
    # Flask-AppBuilder: the security views' add-user form
    _f("add a user with mismatched passwords", F_USER_ADD, F_SAVE, False,
       "'Passwords must match' (and no role): no user is added",
       setup=(*NEW_USER, "click:#username", "type:nora", "click:#password", "type:Sunny-Day-42",
              "click:#conf_password", "type:Sunny-Day-24")),
    _f("add a user with a taken user name", F_USER_ADD, F_SAVE, False, "'Already exists.' for mike",
       setup=("click:#first_name", "type:Mike", "click:#last_name", "type:Moss", "click:#email",
              "type:moss@example.com", "click:#username", "type:mike", "click:#password", "type:Sunny-Day-42",
              "click:#conf_password", "type:Sunny-Day-42", "click:.select2-search__field", "type:Publ", "enter")),
    _f("add a valid user", F_USER_ADD, F_SAVE, True, "'Added Row': nora is created with the Public role",
       setup=(*NEW_USER, "click:#username", "type:nora", "click:#password", "type:Sunny-Day-42",
              "click:#conf_password", "type:Sunny-Day-42", "click:.select2-search__field", "type:Publ", "enter")),
    # Datasette: the products table (120 rows, 100 a page)
    _d("next page", D_PRODUCTS, "click:a:has-text('Next page')", True, "rows 101-120 are shown"),
    _d("scroll down the long table", D_PRODUCTS, "scroll:down", True, "the table scrolls"),
    _d("scroll down at the end", D_PRODUCTS, "scroll:down", False, "already at the bottom",
       setup=("bottom",)),
    _d("scroll up at the top", D_PRODUCTS, "scroll:up", False, "already at the top"),
    _d("sort by name", D_PRODUCTS, "click:th.col-name a", True, "rows re-sorted by name"),
    _d("open a column's cog menu", D_PRODUCTS, D_PRICE_COG, True, "the menu with Sort, Facet, Hide opens"),
    _d("sort descending from the cog menu", D_PRODUCTS, "click:.dropdown-menu a.dropdown-sort-desc", True,
       "rows sorted by price, highest first", setup=(D_PRICE_COG,)),
    _d("hide a column from the cog menu", D_PRODUCTS, "click:.dropdown-menu a.dropdown-hide-column", True,
       "the colour column disappears", setup=("click:th.col-colour svg.dropdown-menu-icon",)),
    _d("click the table title", D_PRODUCTS, "click:h1", False, "the heading is plain text"),
    _d("click the row count", D_PRODUCTS, "click:h3:has-text('120 rows')", False, "plain text"),
    _d("click a price cell", D_PRODUCTS, "click:tbody tr:nth-child(3) td.col-price", False,
       "a plain cell does nothing"),
    _d("open a row", D_PRODUCTS, "click:tbody tr:nth-child(3) td.col-id a", True, "row 3's page opens"),
    _d("follow a category link", D_PRODUCTS, "click:tbody tr:nth-child(2) td.col-category_id a", True,
       "the Toys category row opens"),
    _d("facet by colour", D_PRODUCTS, "click:a[href*='_facet=colour']", True,
       "the colour facet with its counts appears"),
    _d("search with a query", D_PRODUCTS, "enter", True, "8 rows matching 'kettle'",
       setup=("click:#_search", "type:kettle")),
    _d("search with an empty box", D_PRODUCTS, "enter", False, "the same 120 rows come back",
       setup=("click:#_search",)),
    _d("type with nothing focused", D_PRODUCTS, "type:kettle", False, "the text goes nowhere"),
    _d("apply a filter", D_PRODUCTS, D_APPLY, True, "24 green rows",
       setup=("click:select[name=_filter_column]", "select:6", "click:input[name=_filter_value]", "type:green")),
    _d("apply with no filter set", D_PRODUCTS, D_APPLY, False, "the same 120 rows are shown again"),
    _d("jump to the export options", D_PRODUCTS, "click:a[href='#export']", True,
       "the page jumps to Advanced export"),
    _d("open the SQL editor", D_PRODUCTS, "click:a:has-text('View and edit SQL')", True,
       "the query page opens with the table's SQL"),
    _d("home link", D_PRODUCTS, "click:a[href='/']", True, "the site's home page opens"),
    _d("scroll a table that fits", "/shop/categories", "scroll:down", False, "five rows fit the window"),
    # Datasette: the SQL editor
    _d("run broken SQL", D_QUERY, D_RUN, False, "'near \"aisle\": syntax error', no results",
       setup=("click:.CodeMirror", "type: wher aisle")),
    _d("run an edited query", D_QUERY, D_RUN, True, "3 rows where aisle > 11",
       setup=("click:.CodeMirror", "type: where aisle > 11")),
    _d("run the query unchanged", D_QUERY, D_RUN, False, "the same five rows again"),
    _d("hide the SQL", D_QUERY, "click:a:has-text('hide')", True, "the editor is hidden"),
    _d("format the SQL", D_QUERY, "click:#sql-format", True, "the query is laid out over several lines"),
    _d("click a result header", D_QUERY, "click:th.col-name", False, "result headers are plain text"),
    # Datasette: canned queries
    _d("add a duplicate category", D_ADD_CATEGORY, D_RUN, False, "'UNIQUE constraint failed'",
       setup=("click:#qp1", "type:Garden", "click:#qp2", "type:20")),
    _d("add a category without a name", D_ADD_CATEGORY, D_RUN, False, "'CHECK constraint failed'",
       setup=("click:#qp2", "type:21")),
    _d("add a category", D_ADD_CATEGORY, D_RUN, True, "'Category added'",
       setup=("click:#qp1", "type:Books", "click:#qp2", "type:16")),
    _d("run a parameterised query", D_CHEAP, D_RUN, True, "6 products under 5",
       setup=("click:input[name=max_price]", "type:5")),
    _d("Enter in a query parameter", D_CHEAP, "enter", True, "4 products under 4",
       setup=("click:input[name=max_price]", "type:4")),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.datasette.app import Server as Datasette
    from practice.realapps.flaskappbuilder.app import Server as FlaskAppBuilder

    return {"flaskappbuilder": FlaskAppBuilder, "datasette": Datasette}


async def sign_in(env, app: str, server) -> None:
    """Sign the browser in to `app` once, before its cases (not judged); Datasette needs none."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "flaskappbuilder":
        await env.goto(base + "/login/")
        await page.fill("input[name=username]", server.username)
        await page.fill("input[name=password]", server.password)
        await page.press("input[name=password]", "Enter")
        await page.wait_for_selector("a.dropdown-toggle:has-text('Ada Admin')")
    elif app == "datasette":
        await env.goto(base + "/")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
