"""A second independent labelled set for the step evaluator (holdout 2): actions on Wagtail 7.0's
admin (client-side behaviour: a collapsible sidebar, flyouts, tabs, dropdowns, live search,
modals) and a MoinMoin 2 wiki (mostly server-rendered), real third-party applications nobody
here wrote, served from their own virtualenvs under .local/holdout-apps
(practice/realapps/wagtail, practice/realapps/moin; not installed in CI). Used by
benchmarks/step_evaluator_holdout.py; docs/datasets.md says who wrote it, how, and the result.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour (tried by hand in a browser) before the evaluator was run on any case; `why` says so in
one line. The cases were committed before the one scoring run and were not changed after it.
The harness is tests/helpers/effect_cases_thirdparty.py's (`judge_case`: open `path` fresh, run
`setup` unjudged, judge `action` with `workers.evaluator.watch_effect`), with the same specs
(`click:<css>`, `dblclick:<css>`, `type:<text>`, `scroll:down|up`, `enter`, `select:<n>`, and
the setup-only `bottom`); the browser signs in once per app (`sign_in`, unjudged)."""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("wagtail", "moin")


def _w(*args, **kw) -> Case:
    return Case("wagtail", *args, **kw)


def _m(*args, **kw) -> Case:
    return Case("moin", *args, **kw)


W_ADD_PAGE = "/admin/pages/add/home/homepage/3/"
W_EDIT = "/admin/pages/4/edit/"
W_NEW_USER = "/admin/users/new/"
W_CREATE = "button.button-longrunning[type=submit]"
W_SAVE_DRAFT = "button.action-save"
NEW_USER = ("click:#id_email", "type:nora@example.com", "click:#id_first_name", "type:Nora",
            "click:#id_last_name", "type:Quist")
M_OK = "button.moin-button:has-text('OK')"  # the editor's toolbar, outside its form
M_MACROS = "/help-en/MoinWikiMacros"
M_TO_404 = "click:a.moin-nonexistent[href='/users/admin']"  # the user's own page, not made yet: a 404 page

CASES: tuple[Case, ...] = (
    # ---- Wagtail: server-side validation on submit vs submits that succeed ------------------------
    _w("new page: save draft with no title", W_ADD_PAGE, f"click:{W_SAVE_DRAFT}", False,
       "the title is required: the server answers the same form with a validation error, no page is made"),
    _w("new page: save draft with a title but no slug", W_ADD_PAGE, f"click:{W_SAVE_DRAFT}", False,
       "typing the title leaves the slug (Promote tab) empty here; the server refuses with 'This field is required'",
       setup=("click:#id_title", "type:Spring sale")),
    _w("new page: save draft with title and slug", W_ADD_PAGE, f"click:{W_SAVE_DRAFT}", True,
       "the draft page 'Spring sale' is created and its edit view opens",
       setup=("click:#id_title", "type:Spring sale", "click:#tab-label-promote", "click:#id_slug", "type:spring-sale")),
    _w("new user: create with the form empty", W_NEW_USER, f"click:{W_CREATE}", False,
       "every required field is empty: the form comes back with errors, no user is made"),
    _w("new user: create with a username already taken", W_NEW_USER, f"click:{W_CREATE}", False,
       "'editor' exists: the server refuses the duplicate username",
       setup=("click:#id_username", "type:editor", *NEW_USER, "click:#id_password1", "type:Ok-pass-9931",
              "click:#id_password2", "type:Ok-pass-9931")),
    _w("new user: create with passwords that differ", W_NEW_USER, f"click:{W_CREATE}", False,
       "the two passwords do not match: the server refuses the form",
       setup=("click:#id_username", "type:nora", *NEW_USER, "click:#id_password1", "type:Ok-pass-9931",
              "click:#id_password2", "type:Other-pass-4417")),
    _w("new user: create with a complete form", W_NEW_USER, f"click:{W_CREATE}", True,
       "a new user 'nora' is created and the users list shows it",
       setup=("click:#id_username", "type:nora", *NEW_USER, "click:#id_password1", "type:Ok-pass-9931",
              "click:#id_password2", "type:Ok-pass-9931")),
    _w("new collection: create with no name", "/admin/collections/add/", f"click:{W_CREATE}", False,
       "the name is required: the form comes back with an error"),
    _w("new collection: create with a name but no parent", "/admin/collections/add/", f"click:{W_CREATE}", False,
       "the parent select is left at '---------': the server refuses ('This field is required')",
       setup=("click:#id_name", "type:Press kit")),
    _w("new collection: create with a name and a parent", "/admin/collections/add/", f"click:{W_CREATE}", True,
       "the collection 'Press kit' is created under Root and listed",
       setup=("click:#id_name", "type:Press kit", "click:#id_parent", "select:1")),
    _w("new group: create with no name", "/admin/groups/new/", f"click:{W_CREATE}", False,
       "a group needs a name: the form comes back with an error"),
    _w("new redirect: create with no 'from' path", "/admin/redirects/add/", f"click:{W_CREATE}", False,
       "'Redirect from' is required: nothing is created"),
    _w("new redirect: create with a path and a target URL", "/admin/redirects/add/", f"click:{W_CREATE}", True,
       "the redirect /old-about is created and listed",
       setup=("click:#id_old_path", "type:/old-about", "click:#id_redirect_link", "type:https://example.com/about")),
    _w("new redirect: target URL that is not a URL", "/admin/redirects/add/", f"click:{W_CREATE}", False,
       "'not a url' is not a valid URL: the submit is refused",
       setup=("click:#id_old_path", "type:/old-team", "click:#id_redirect_link", "type:not a url")),
    # ---- Wagtail: clicks on controls vs on inert things -------------------------------------------
    _w("redirect form: 'Choose a page' opens the chooser", "/admin/redirects/add/",
       "click:button:has-text('Choose a page')", True,
       "a modal page chooser opens"),
    _w("redirect form: tick 'Permanent'", "/admin/redirects/add/", "click:#id_is_permanent", True,
       "the checkbox changes state"),
    _w("redirect form: choose the site already chosen", "/admin/redirects/add/", "select:0", False,
       "'All sites' is already the selected option; choosing it again changes nothing",
       setup=("click:#id_site",)),
    _w("redirect form: choose another site", "/admin/redirects/add/", "select:1", True,
       "the 'From site' select changes to localhost", setup=("click:#id_site",)),
    _w("edit page: open the Promote tab", W_EDIT, "click:#tab-label-promote", True,
       "the Promote tab's fields (slug, SEO title, menus) replace the Content tab"),
    _w("edit page: click the Content tab already shown", W_EDIT, "click:#tab-label-content", False,
       "the Content tab is already the active one"),
    _w("edit page: open 'More actions'", W_EDIT, "click:footer button.w-dropdown__toggle, .footer button.w-dropdown__toggle",
       True, "the publish/more-actions dropdown menu opens"),
    _w("edit page: type into the title", W_EDIT, "type: team", True,
       "the title field gains text (the header title follows)", setup=("click:#id_title",)),
    _w("edit page: type with nothing focused", W_EDIT, "type:hello", False,
       "no field has focus: the keystrokes go nowhere"),
    _w("edit page: tick 'Show in menus' on Promote", W_EDIT, "click:#id_show_in_menus", True,
       "the checkbox changes state", setup=("click:#tab-label-promote",)),
    _w("new user: open the Roles tab", W_NEW_USER, "click:#tab-label-roles", True,
       "the Roles tab (administrator, groups) is shown"),
    _w("explorer: open a child page", "/admin/pages/3/", "click:td.title a[href$='/4/edit/']", True,
       "the 'About us' edit view opens"),
    _w("explorer: sort by title", "/admin/pages/3/", "click:th.title a", True,
       "the listing is reloaded ordered by title"),
    _w("explorer: tick select-all", "/admin/pages/3/", "click:th.bulk-actions-filter-checkbox input", True,
       "both rows are selected and the bulk-actions bar appears"),
    _w("explorer: click a page type cell", "/admin/pages/3/", "click:tbody tr:first-child td:nth-child(5)", False,
       "the 'Home page' type cell is plain text"),
    _w("explorer: type in the listing search", "/admin/pages/3/", "type:Contact", True,
       "the search filters the listing to the matching page", setup=("click:#id_q",)),
    _w("users: Enter in the empty search box", "/admin/users/", "enter", False,
       "an empty search just shows the same list of users", setup=("click:#id_q",)),
    _w("users: click a username cell", "/admin/users/", "click:td.username", False,
       "the username cell is plain text"),
    _w("users: click 'Add a user'", "/admin/users/", "click:a[href='/admin/users/new/']", True,
       "the new-user form opens"),
    _w("dashboard: search all pages", "/admin/", "enter", True,
       "the search results page for 'About' opens", setup=("click:#id_q", "type:About")),
    _w("dashboard: click the site-name heading", "/admin/", "click:h1", False,
       "the dashboard heading is not interactive"),
    _w("sidebar: open the Settings menu", "/admin/", "click:button.sidebar-menu-item__link:has-text('Settings')", True,
       "the Settings submenu (users, groups, sites…) slides out"),
    _w("sidebar: open the Pages explorer", "/admin/", "click:button.sidebar-menu-item__link:has-text('Pages')", True,
       "the page explorer flyout opens"),
    _w("sidebar: collapse the sidebar", "/admin/", "click:button.sidebar__collapse-toggle", True,
       "the sidebar shrinks to icons"),
    _w("breadcrumb: click the current, unlinked crumb", "/admin/collections/add/",
       "click:nav[aria-label='Breadcrumb'] li:last-child a, .w-breadcrumbs li:last-child a", False,
       "'New: Collection' is the page itself and has no link"),
    _w("explorer: search with Enter", "/admin/pages/3/", "enter", True,
       "the listing is narrowed to the page 'Contact' (?q=Contact)", setup=("click:#id_q", "type:Contact")),
    _w("new user: scroll down the long form", W_NEW_USER, "scroll:down", True,
       "the form is longer than the window; the password fields come into view"),
    _w("new user: scroll up at the top", W_NEW_USER, "scroll:up", False,
       "the page is already at its top"),
    # ---- MoinMoin 2: navigation, links to other pages vs to the page itself --------------------
    _m("home: open Index", "/Home", "click:#moin-navibar a[href='/+index/'], a[href='/+index/']", True,
       "the item index opens"),
    _m("home: click the 'Home' navigation link on Home", "/Home", "click:a.current-link[href='/Home']", False,
       "the link leads to the page already shown"),
    _m("home: open the item's History", "/Home", "click:a[href='/+history/Home']", True,
       "the revision history of Home opens"),
    _m("home: click the Congratulations heading", "/Home", "click:h2#Congratulations", False,
       "the heading text is not interactive"),
    _m("home: type with nothing focused", "/Home", "type:hello", False,
       "no field has focus on a page being read"),
    _m("home: double-click a word of the text", "/Home", "dblclick:#moin-content p", False,
       "double-clicking body text only selects a word; nothing happens"),
    _m("home: click the 'Page Trail' heading", "/Home", "click:text=Page Trail", False,
       "the sidebar heading is a label, not a control"),
    _m("home: open the Admin page", "/Home", "click:a[href='/+admin/superuser']", True,
       "the superuser admin page opens"),
    _m("search: Enter after a query", "/Home", "enter", True,
       "the search results for 'macro' are shown", setup=("click:#f_q", "type:macro")),
    _m("search: Enter in the empty search box", "/Home", "enter", False,
       "an empty query searches for nothing", setup=("click:#f_q",)),
    _m("search: type into the search box", "/Home", "type:welcome", True,
       "the query appears in the focused search box", setup=("click:#f_q",)),
    # ---- MoinMoin 2: editing --------------------------------------------------------------------
    _m("modify: type into the text", "/+modify/Home", "type:\nA new line.", True,
       "the text gains a line", setup=("click:#f_content_form_data_text",)),
    _m("modify: OK with nothing changed", "/+modify/Home", f"click:{M_OK}", False,
       "moin saves nothing when the content is unchanged and says so"),
    _m("modify: OK after an edit", "/+modify/Home", f"click:{M_OK}", True,
       "a new revision of Home is saved and shown",
       setup=("click:#f_content_form_data_text", "type:\nEdited by the holdout set.")),
    _m("modify: Preview after an edit", "/+modify/Home", "click:button.moin-button:has-text('Preview')", True,
       "the rendered preview of the edited text is shown",
       setup=("click:#f_content_form_data_text", "type:\nPreview me.")),
    _m("modify: Cancel", "/+modify/Home", "click:button.moin-button:has-text('Cancel')", True,
       "the editor closes and the item is shown"),
    _m("modify: click the 'Comment' label", "/+modify/Home", "click:label[for=f_comment]", True,
       "the label focuses its comment field"),
    _m("new item: save a new wiki page", "/+modify/HoldoutNotes?itemtype=default&contenttype=text/x.moin.wiki;charset%3Dutf-8",
       f"click:{M_OK}", True,
       "the new item HoldoutNotes is created", setup=("click:#f_content_form_data_text", "type:Notes for the team.")),
    _m("rename: to a namespace's name", "/+rename/Home", "click:#moin-content input[type=submit]", False,
       "moin refuses item names that clash with the help-en namespace; nothing is renamed",
       setup=("dblclick:#f_target", "type:help-en/Home")),
    # ---- MoinMoin 2: user settings (client-side tabs, server-side validation) --------------------
    _m("settings: open the Change Password tab", "/+usersettings", "click:a[href='#password']", True,
       "the password form replaces the appearance form"),
    _m("settings: click the Appearance tab already shown", "/+usersettings", "click:a[href='#ui']", False,
       "Appearance is the tab already shown"),
    _m("settings: pick the Basic theme", "/+usersettings", "click:#f_theme_name_basic", True,
       "the Basic theme radio becomes selected"),
    _m("settings: click the Focus theme's label", "/+usersettings", "click:label[for=f_theme_name_focus]", True,
       "the label selects its radio"),
    _m("settings: wrong current password", "/+usersettings", "click:#password input[type=submit]", False,
       "the current password is wrong: the password is not changed",
       setup=("click:a[href='#password']", "click:#f_password_current", "type:not-my-password",
              "click:#f_password1", "type:New-pass-5521",
              "click:#f_password2", "type:New-pass-5521")),
    _m("settings: new passwords that differ", "/+usersettings", "click:#password input[type=submit]", False,
       "the new password and its repetition differ: nothing changes",
       setup=("click:a[href='#password']", "click:#f_password_current", "type:Wq5-Hs2n-Xc8j",
              "click:#f_password1", "type:New-pass-5521",
              "click:#f_password2", "type:New-pass-9999")),
    _m("settings: save an e-mail that is not one", "/+usersettings", "click:#notification input[type=submit]", False,
       "'nobody-at-all' is not an e-mail address: the e-mail field refuses the submit",
       setup=("click:a[href='#notification']", "dblclick:#f_email", "type:nobody-at-all")),
    _m("settings: save a display name", "/+usersettings", "click:#personal input[type=submit]", True,
       "the display name is saved and moin confirms it",
       setup=("click:a[href='#personal']", "click:#f_display_name", "type:Ada")),
    # ---- MoinMoin 2: 404, tables, scrolling, in-page links ------------------------------------
    _m("missing item (404): pick the MoinMoin markup to create it", "/Home",
       "click:a[href*='contenttype=text/x.moin.wiki']", True, "the editor for the new user page opens",
       setup=(M_TO_404,)),
    _m("missing item (404): click a table header", "/Home", "click:th >> nth=0", False,
       "'Markup Text Items' is a header cell", setup=(M_TO_404,)),
    _m("missing item (404): scroll down a page that fits", "/Home", "scroll:down", False,
       "the 404 page fits the window", setup=(M_TO_404,)),
    _m("missing item (404): click the 'create new item' heading", "/Home", "click:h1", False,
       "the heading is text", setup=(M_TO_404,)),
    _m("history: click a timestamp cell", "/+history/Home", "click:tbody tr:first-child td:nth-child(3)", False,
       "the timestamp cell is plain text"),
    _m("help: scroll down a long page", M_MACROS, "scroll:down", True, "the long help page moves down"),
    _m("help: scroll up at the top", M_MACROS, "scroll:up", False, "the page is already at its top"),
    _m("help: scroll down at the end", M_MACROS, "scroll:down", False, "the page is already at its end",
       setup=("bottom",)),
    _m("help: collapse the table of contents", M_MACROS, "click:a.moin-showhide >> nth=0", True,
       "the table of contents folds"),
    _m("help: follow a contents link", M_MACROS, "click:a[href='#Include']", True,
       "the page jumps to the Include section"),
    # last: it changes the theme every later page would be drawn with
    _m("settings: save a theme", "/+usersettings", "click:#ui input[type=submit]", True,
       "the Basic theme is saved and the page is drawn with it", setup=("click:#f_theme_name_basic",)),
)


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.moin.app import Server as Moin
    from practice.realapps.wagtail.app import Server as Wagtail

    return {"wagtail": Wagtail, "moin": Moin}


async def sign_in(env, app: str, server) -> None:
    """Sign the browser in to `app` once, before its cases (not judged)."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "wagtail":
        await env.goto(base + "/admin/login/")
        await page.fill("input[name=username]", server.username)
        await page.fill("input[name=password]", server.password)
        await page.press("input[name=password]", "Enter")
        await page.wait_for_selector("h1:has-text('acme')")
    elif app == "moin":
        await env.goto(base + "/+login")
        await page.fill("input[name=login_username]", server.username)
        await page.fill("input[name=login_password]", server.password)
        await page.press("input[name=login_password]", "Enter")
        await page.wait_for_selector("a[href*='+logout']")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()
