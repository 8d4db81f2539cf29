"""An independent labelled set for the step evaluator: actions on real third-party applications
(practice/realapps: Trac, Roundup, django CMS), not on a page written by the evaluator's authors.
Used by tests/runtime/test_step_evaluator_thirdparty.py and benchmarks/replay.py
(`step_evaluator_thirdparty`). docs/datasets.md says who wrote it and how.

Each label is what a careful person expects the action to achieve, decided from the app's own
behaviour before the evaluator was run on it; `why` says so in one line. Each case opens its
`path` fresh in a browser already signed in to the app (the sign-in is done once per app, outside
the judged actions), runs its `setup` actions (unjudged), then its `action` is judged by
`workers.evaluator.watch_effect` as the agent loop does. Specs are those of
tests/helpers/effect_cases.py (`click:<css>`, `dblclick:<css>`, `type:<text>`, `scroll:down|up`,
`enter`, `select:<n>`), plus the setup-only `bottom` (scroll the page to its end); a click target
below the fold is scrolled into view before its point is measured."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from tests.helpers.effect_cases import _do, build_action
from workers.evaluator import Effect, watch_effect

APPS = ("trac", "roundup", "djangocms")


@dataclass(frozen=True)
class Case:
    app: str
    name: str
    path: str
    action: str
    effective: bool
    why: str
    setup: tuple[str, ...] = ()


def _t(*args, **kw) -> Case:
    return Case("trac", *args, **kw)


def _r(*args, **kw) -> Case:
    return Case("roundup", *args, **kw)


def _d(*args, **kw) -> Case:
    return Case("djangocms", *args, **kw)


TICKET_SUBMIT = "#propertyform input[name=submit]"
DJ_SAVE = "input[name=_save]"

CASES: tuple[Case, ...] = (
    # -- Trac 1.6 ---------------------------------------------------------------------------------
    _t("create a ticket with the summary empty", "/newticket", f"click:{TICKET_SUBMIT}", False,
       "Trac refuses it: 'Tickets must contain a summary' and no ticket is made"),
    _t("create a ticket with a summary", "/newticket", f"click:{TICKET_SUBMIT}", True,
       "the ticket is created and its page opens",
       setup=("click:#field-summary", "type:Projector in room 4 flickers")),
    _t("preview a new ticket", "/newticket", "click:#propertyform input[name=preview]", True,
       "a preview of the ticket appears above the form",
       setup=("click:#field-summary", "type:Badge reader offline")),
    _t("type into the autofocused summary", "/newticket", "type:Coffee machine leaks", True,
       "the summary field has focus on load, so the text lands in it"),
    _t("type into the keywords field", "/newticket", "type:kitchen", True,
       "the clicked field takes the text", setup=("click:#field-keywords",)),
    _t("click the page heading", "/newticket", "click:#content > h1", False,
       "'Create New Ticket' is a plain heading"),
    _t("click the disabled owner field", "/newticket", "click:#action_create_and_assign_reassign_owner", False,
       "the owner field stays disabled until 'create and assign' is chosen"),
    _t("choose the 'create and assign' radio", "/newticket", "click:#action_create_and_assign", True,
       "the radio becomes selected and enables the owner field"),
    _t("click the radio that is already selected", "/newticket", "click:#action_create", False,
       "'create' is already the chosen action"),
    _t("open the priority select", "/newticket", "click:#field-priority", True,
       "the select takes focus and opens its list"),
    _t("choose another priority", "/newticket", "select:0", True,
       "priority changes from major to blocker", setup=("click:#field-priority",)),
    _t("scroll down at the end of the new-ticket form", "/newticket", "scroll:down", False,
       "the page is already at its end", setup=("bottom",)),
    _t("open the Modify Ticket disclosure", "/ticket/1", "click:#propertyform h3.foldable a", True,
       "the folded ticket editor unfolds"),
    _t("click the 'Reported by' header cell", "/ticket/1", "click:th#h_reporter", False,
       "a table header in the ticket box, not a control"),
    _t("click the ticket title", "/ticket/1", "click:#trac-ticket-title", False,
       "the summary heading is plain text"),
    _t("type with nothing focused on a ticket", "/ticket/1", "type:hello", False,
       "no field has focus; the keys go nowhere"),
    _t("submit a comment", "/ticket/1", f"click:{TICKET_SUBMIT}", True,
       "the comment is added to the ticket's history",
       setup=("click:#comment", "type:Still jamming after the service visit.")),
    _t("reply to the description", "/ticket/1", "click:#addreply input[name=reply]", True,
       "the comment box opens with the description quoted"),
    _t("search from the header box with Enter", "/", "enter", True,
       "the search results page opens", setup=("click:#proj-search", "type:printer")),
    _t("press Enter in an empty search box", "/search", "enter", False,
       "an empty query searches nothing; the same empty search form comes back",
       setup=("click:#q",)),
    _t("untick a search filter checkbox", "/search", "click:#changeset", True,
       "the 'Changesets' filter becomes unticked"),
    _t("preview a wiki edit", "/wiki/WikiStart?action=edit", "click:#edit input[name=preview]", True,
       "the rendered preview of the edited page appears",
       setup=("click:#text", "type:Updated by the help desk.")),
    _t("tick 'Edit side-by-side'", "/wiki/WikiStart?action=edit", "click:#sidebyside", True,
       "the checkbox becomes ticked (and the editor lays out beside the preview)"),
    _t("click the disabled 'Remove selected items'", "/admin/ticket/milestones",
       "click:#milestone_table input[name=remove]", False, "disabled until a milestone is ticked"),
    _t("add a milestone with no name", "/admin/ticket/milestones", "click:#addmilestone input[name=add]", False,
       "Trac refuses an empty milestone name"),
    _t("add a named milestone", "/admin/ticket/milestones", "click:#addmilestone input[name=add]", True,
       "the milestone appears in the table", setup=("click:#addmilestone #name", "type:Autumn review")),
    _t("follow the 'View Tickets' link", "/", "click:#mainnav a[href$='/report']", True,
       "the reports page opens"),
    _t("scroll down a long wiki page", "/wiki/WikiFormatting", "scroll:down", True,
       "the page is much taller than the window"),
    _t("scroll up at the top of a wiki page", "/wiki/WikiFormatting", "scroll:up", False,
       "already at the top"),
    # -- Roundup 2.6 ------------------------------------------------------------------------------
    _r("submit a new issue without a title", "/issue?@template=item", "click:#submit_button", False,
       "Roundup refuses it: the title is required"),
    _r("submit a new issue with a title", "/issue?@template=item", "click:#submit_button", False,
       "Roundup refuses it: 'Required issue property priority not supplied', no issue is made (label "
       "corrected 4 Dec 2026, see docs/datasets.md: it first said the issue is created)",
       setup=("click:#title", "type:Badge reader at the back door is offline")),
    _r("choose a priority for a new issue", "/issue?@template=item", "select:1", True,
       "the priority select changes from '- no selection -'", setup=("click:select[name=priority]",)),
    _r("search with Enter", "/", "enter", True, "the matching issues are listed",
       setup=("click:#search-text", "type:printer")),
    _r("show an issue by number with Enter", "/", "enter", True, "issue 1 opens",
       setup=("click:input[name='@number']", "type:1")),
    _r("show an issue that does not exist", "/", "click:input[value='Show issue:']", False,
       "there is no issue 999: an error, not an issue",
       setup=("click:input[name='@number']", "type:999")),
    _r("open an issue from the list", "/", "click:table.list a[href='issue1']", True, "the issue page opens"),
    _r("click a date cell in the issue list", "/", "click:table.list td.date", False,
       "a plain table cell, not a link"),
    _r("tick the 'descending' sort checkbox", "/", "click:input[name='@sortdir1']", True,
       "the checkbox becomes ticked"),
    _r("type with nothing focused on the index", "/", "type:hello", False, "no field has focus"),
    _r("scroll down a page that fits the window", "/", "scroll:down", False,
       "the issue index fits in the window; there is nothing below"),
    _r("double-click the page title", "/issue1", "dblclick:#body-title h2", False,
       "the 'Issue1 Editing' title is plain text"),
    _r("change an issue's status and submit", "/issue1", "click:#submit_button", True,
       "the status change is saved and confirmed",
       setup=("click:select[name=status]", "select:3")),
    # -- django CMS 3.11 (Django admin, signed in with a one-time code) ---------------------------
    _d("save a new user with every field empty", "/admin/auth/user/add/", f"click:{DJ_SAVE}", False,
       "the form comes back with 'This field is required' errors"),
    _d("save a new user with mismatched passwords", "/admin/auth/user/add/", f"click:{DJ_SAVE}", False,
       "the two password fields didn't match: an error, no user",
       setup=("click:#id_username", "type:carol", "click:#id_password1", "type:Tr0ub4dor-x9Q!",
              "click:#id_password2", "type:Tr0ub4dor-x9Q?")),
    _d("save a valid new user", "/admin/auth/user/add/", f"click:{DJ_SAVE}", True,
       "the user is created and its change page opens",
       setup=("click:#id_username", "type:dave", "click:#id_password1", "type:Tr0ub4dor-x9Q!",
              "click:#id_password2", "type:Tr0ub4dor-x9Q!")),
    _d("save a new group with no name", "/admin/auth/group/add/", f"click:{DJ_SAVE}", False,
       "the name is required: an error, no group"),
    _d("save a named group", "/admin/auth/group/add/", f"click:{DJ_SAVE}", True,
       "the group is created and the list says so", setup=("click:#id_name", "type:Editors")),
    _d("type into the permission filter", "/admin/auth/group/add/", "type:page", True,
       "the available permissions list narrows", setup=("click:#id_permissions_input",)),
    _d("double-click the page heading", "/admin/auth/group/add/", "dblclick:#content h1", False,
       "'Add group' is a plain heading"),
    _d("run an action with nothing selected", "/admin/auth/user/", "click:#changelist-form button[name=index]",
       False, "Django says items must be selected / no action chosen; nothing changes"),
    _d("tick the select-all checkbox", "/admin/auth/user/", "click:#action-toggle", True,
       "every user row becomes selected"),
    _d("choose a bulk action", "/admin/auth/user/", "select:1", True,
       "the action select changes to 'Delete selected users' (nothing is run yet)",
       setup=("click:#changelist-form select[name=action]",)),
    _d("search users with Enter", "/admin/auth/user/", "enter", True, "the list is filtered by the query",
       setup=("click:#searchbar", "type:admin")),
    _d("press Enter in the sidebar filter", "/admin/auth/user/", "enter", False,
       "the sidebar filter is not in a form; Enter does nothing more than the typing did",
       setup=("click:#nav-filter", "type:user")),
    _d("open a user from the list", "/admin/auth/user/", "click:#result_list th.field-username a", True,
       "the user's change page opens"),
    _d("collapse the navigation sidebar", "/admin/auth/user/", "click:#toggle-nav-sidebar", True,
       "the sidebar hides"),
    _d("click the site heading", "/admin/", "click:#content h1", False,
       "'Site administration' is a plain heading"),
    _d("type with nothing focused on the admin index", "/admin/", "type:hello", False, "no field has focus"),
    _d("follow the Users link", "/admin/", "click:#content-main th a[href='/admin/auth/user/']", True,
       "the user list opens"),
    _d("click the read-only password summary", "/admin/auth/user/1/change/", "click:#id_password", False,
       "the password hash summary is read-only text"),
    _d("click a field's help text", "/admin/auth/user/1/change/", "click:#id_is_active_helptext", False,
       "help text under a checkbox is not part of its label"),
    _d("untick 'Staff status'", "/admin/auth/user/1/change/", "click:#id_is_staff", True,
       "the checkbox becomes unticked (not saved yet)"),
    _d("scroll down the user form", "/admin/auth/user/1/change/", "scroll:down", True,
       "the form is much taller than the window"),
    _d("scroll down at the end of the user form", "/admin/auth/user/1/change/", "scroll:down", False,
       "already at the end", setup=("bottom",)),
    _d("save a new CMS page with no title", "/admin/cms/page/add/", "click:#page_form input[name=_save]", False,
       "the title and slug are required: errors, no page"),
)


async def sign_in(env, app: str, server) -> None:
    """Sign the browser in to `app` once, before its cases (not judged). django CMS asks for a
    one-time code; each is accepted once, so the session is kept for all its cases."""
    page, base = env.page, server.base_url.rstrip("/")
    if app == "trac":
        await env.goto(base + "/login")
        await page.fill("#acctmgr_loginform input[name=username], input[name=user]", server.username)
        await page.fill("input[type=password]", server.password)
        await page.press("input[type=password]", "Enter")
        await page.wait_for_selector("text=logged in as")
    elif app == "roundup":
        await env.goto(base + "/")
        await page.fill("input[name=__login_name]", server.username)
        await page.fill("input[name=__login_password]", server.password)
        await page.press("input[name=__login_password]", "Enter")
        await page.wait_for_selector("text=Hello, admin")
    elif app == "djangocms":
        import pyotp

        await env.goto(base + "/admin/")
        await page.fill("input[name$=username]", server.username)
        await page.fill("input[name$=password]", server.password)
        await page.press("input[name$=password]", "Enter")
        await page.wait_for_selector("input[name$=otp_token]")
        await page.fill("input[name$=otp_token]", pyotp.TOTP(server.totp_secret).now())
        await page.press("input[name$=otp_token]", "Enter")
        await page.wait_for_selector("text=Site administration")
    else:
        raise ValueError(f"unknown app {app!r}")
    await env.settle()


async def _build(env, spec: str):
    """The action for `spec`; a click target below the fold is first scrolled into view (unjudged,
    as an agent scrolls to what it means to click), so its centre lies in the screenshot."""
    kind, _, selector = spec.partition(":")
    if kind in ("click", "dblclick"):
        await env.page.locator(selector).first.scroll_into_view_if_needed()
        await env.settle()
    return await build_action(env.page, spec)


async def _open(env, url: str) -> None:
    """Open url; once more if the page's own late navigation (the previous case's) aborted it."""
    try:
        await env.goto(url)
    except Exception:
        await env.settle()
        await env.goto(url)


async def judge_case(env, base_url: str, case: Case) -> Effect | None:
    """Open the case's path on the app at base_url fresh, run its setup, then judge its action.
    A case whose page, setup or target cannot be had gets no verdict (None, a miss for both
    classes in `scores`) instead of stopping the set."""
    try:
        return await _judge_case(env, base_url, case)
    except Exception as exc:
        print(f"no verdict: {case.app}: {case.name}: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
        return None


async def _judge_case(env, base_url: str, case: Case) -> Effect | None:
    await _open(env, base_url.rstrip("/") + case.path)
    for spec in case.setup:
        if spec == "bottom":  # once the page holds still, as every other setup action
            await env.ready()
            await env.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
            await env.settle()
            continue
        await _do(env, await _build(env, spec))
    action = await _build(env, case.action)
    _, effect = await watch_effect(env, action, lambda: _do(env, action))
    return effect


def servers():
    """The Server class of each app, by name."""
    from practice.realapps.djangocms.app import Server as DjangoCMS
    from practice.realapps.roundup.app import Server as Roundup
    from practice.realapps.trac.app import Server as Trac

    return {"trac": Trac, "roundup": Roundup, "djangocms": DjangoCMS}


async def judge_all(host, app: str, server, *, secrets=None, cases: tuple[Case, ...] = CASES,
                    signs_in=sign_in) -> list[tuple[Case, Effect | None]]:
    """Every case of `app` in `cases`, judged in one fresh environment of `host` (a BrowserPool),
    signed in first by `signs_in` (another labelled set passes its own cases and sign-in)."""
    env = await host.new_environment(allowed_domains=["127.0.0.1"], secrets=secrets)
    try:
        await signs_in(env, app, server)
        return [(case, await judge_case(env, server.base_url, case)) for case in cases if case.app == app]
    finally:
        await env.close()


def measure(label: str, apps: tuple[str, ...], app_servers: dict, *, cases: tuple[Case, ...] = CASES,
            signs_in=sign_in) -> dict:
    """The figures of a labelled set (benchmarks): each app served by its Server class, its cases
    judged in a fresh BrowserPool, then `scores`, the wrong cases, cases without a verdict, per app."""
    import asyncio

    from tests.helpers.effect_cases import scores
    from tests.helpers.runtime import local_secrets
    from workers.envs.browser import BrowserConfig
    from workers.envs.pool import BrowserPool

    async def go(app: str, server):
        host = BrowserPool(BrowserConfig(egress_allow_private=("127.0.0.1",)))
        try:
            return await judge_all(host, app, server, secrets=local_secrets(), cases=cases, signs_in=signs_in)
        finally:
            await host.close()

    labelled = []
    for app in apps:
        with app_servers[app]() as server:
            labelled += asyncio.run(go(app, server))
    figures = {"set": label, **scores(labelled)}
    figures["wrong"] = [f"{c.app}: {c.name}" for c, e in labelled if e is None or e.effective != c.effective]
    figures["no_verdict"] = sum(1 for _, e in labelled if e is None)
    figures["per_app"] = per_app(labelled)
    return figures


def per_app(labelled: list[tuple[Case, Effect | None]]) -> dict[str, dict[str, int]]:
    """Per app: cases, ineffective cases, and how many verdicts matched the label."""
    out: dict[str, dict[str, int]] = {}
    for case, effect in labelled:
        row = out.setdefault(case.app, {"cases": 0, "ineffective_cases": 0, "correct": 0})
        row["cases"] += 1
        row["ineffective_cases"] += not case.effective
        row["correct"] += bool(effect is not None and effect.effective == case.effective)
    return out
