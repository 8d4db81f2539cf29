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

TODO cases: written after the freeze.
"""

from __future__ import annotations

from tests.helpers.effect_cases_thirdparty import Case

APPS = ("fietsbalie", "zabory")

CASES: tuple[Case, ...] = ()


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
