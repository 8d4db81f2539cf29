"""The step evaluator's labelled set: actions on the practice site's /lab/effects page that do or
do not have their intended effect (a click on a disabled button, a decoy that does nothing, a
fill a maxlength cuts short, a number field refusing letters...). Used by
tests/runtime/test_step_evaluator.py and benchmarks/replay.py (`step_evaluator`).

Each case starts on a fresh page; `setup` actions run first (unjudged), then `action` is judged
by `workers.evaluator.watch_effect` exactly as the agent loop does. `effective` is the label.
Targets are CSS selectors; their centres are measured on the page and sent in the model's 0–999
space, as a model would."""

from __future__ import annotations

from dataclasses import dataclass

from workers import actions as A
from workers.envs.browser import VIEWPORT
from workers.evaluator import Effect, watch_effect

PAGE = "/lab/effects"


@dataclass(frozen=True)
class Case:
    name: str
    action: str  # "click:<selector>", "dblclick:<selector>", "type:<text>", "scroll:down|up", "enter", "select:<n>"
    effective: bool
    setup: tuple[str, ...] = ()


CASES: tuple[Case, ...] = (
    Case("click a working button", "click:#save-draft", True),
    Case("click a disabled button", "click:#submit-disabled", False),
    Case("click an aria-disabled button with no handler", "click:#archive-disabled", False),
    Case("click a decoy button that does nothing", "click:#decoy", False),
    Case("click a decoy link-looking span", "click:#decoy-link", False),
    Case("click a button whose effect lands 400 ms later", "click:#load-later", True),
    Case("click a link", "click:#next-page", True),
    Case("click a disclosure", "click:#more", True),
    Case("click a checkbox", "click:#subscribe", True),
    Case("click a checkbox's label text", "click:label:has(#subscribe)", True),
    Case("click a heading", "click:h1", False),
    Case("click the subtitle text", "click:.subtitle", False),
    Case("click an unfocused field", "click:#notes", True),
    Case("click the field that already has focus", "click:#notes", False, setup=("click:#notes",)),
    Case("click a select", "click:#colour", True),
    Case("double-click a paragraph", "dblclick:#fields-heading", False),
    Case("type a 4-digit code into a maxlength-4 field", "type:1234", True, setup=("click:#code",)),
    Case("type 6 digits into a maxlength-4 field", "type:123456", False, setup=("click:#code",)),
    Case("type into a text field", "type:Taxi from the airport", True, setup=("click:#notes",)),
    Case("type letters into a number field", "type:abc", False, setup=("click:#quantity",)),
    Case("type digits into a number field", "type:12", True, setup=("click:#quantity",)),
    Case("type into a read-only field", "type:X", False, setup=("click:#reference",)),
    Case("type with no field focused", "type:hello", False),
    Case("check a bad code: an error appears", "click:#check-code", False),
    Case("check a good code", "click:#check-code", True, setup=("click:#code", "type:1234")),
    Case("scroll down a long page", "scroll:down", True),
    Case("scroll up at the top", "scroll:up", False),
    Case("choose another option", "select:2", True, setup=("click:#colour",)),
    Case("press Enter in a field outside any form", "enter", False, setup=("click:#notes",)),
    Case("click a button twice-saved (no change the second time)", "click:#save-draft", False,
         setup=("click:#save-draft",)),
    # Answers the server gives a second later; a link to the page already shown (its render time differs).
    Case("a check the server answers a second later with an error", "click:#verify-remote", False),
    Case("a load the server answers a second later", "click:#load-remote", True),
    Case("follow a link to the page already shown", "click:#this-page", False),
    Case("click a disabled button whose tooltip shows on hover", "click:#export-disabled", False),
    Case("pick the size already chosen", "click:#sizes [role=option]:has-text('Medium')", False, setup=("click:#size",)),
    Case("flip a switch drawn by script", "click:#reminders", True),
    Case("a success said in an alert", "click:#send-reminder", True),
    Case("pick another size", "click:#sizes [role=option]:has-text('Large')", True, setup=("click:#size",)),
    Case("publish: done, with a warning beside the success", "click:#publish", True),
    Case("open a view the server refuses (routed by script)", "click:#open-archive", False),
    Case("choose a grid cell marked by its class alone", "click:#grid td:nth-child(2)", True),
    Case("archive: '0 expenses archived.'", "click:#archive-none", False),
    Case("a report the page says it is busy with for 3.5 s", "click:#slow-report", True),
    Case("fold an answer right after it unfolded (a transition)", "click:#faq-q", True, setup=("click:#faq-q",)),
    Case("pick the owner already chosen in a widget's drop-down", "click:#owners .option.selected", False),
    Case("scroll down at the end after four scrolls", "scroll:down", False,
         setup=("scroll:down", "scroll:down", "scroll:down", "scroll:down")),
    Case("request a refund with no amount: refused in red beside the field", "click:#request-refund", False),
    Case("request a refund of 20", "click:#request-refund", True, setup=("click:#refund", "type:20")),
    Case("sync: only a screen-reader line says 'Syncing', then nothing", "click:#sync-now", False),
)


async def _point(page, selector: str) -> tuple[int, int]:
    await page.locator(selector).first.scroll_into_view_if_needed()  # as an agent scrolls to what it clicks
    box = await page.locator(selector).first.bounding_box()
    # the centre of the part in view: an element taller or wider than the window (an editor) is
    # clicked where it shows, as a person would
    left, top = max(box["x"], 0), max(box["y"], 0)
    right = min(box["x"] + box["width"], VIEWPORT["width"])
    bottom = min(box["y"] + box["height"], VIEWPORT["height"])
    x, y = (left + right) / 2, (top + bottom) / 2
    return round(x / VIEWPORT["width"] * 1000), round(y / VIEWPORT["height"] * 1000)


async def build_action(page, spec: str) -> A.ActionModel:
    kind, _, arg = spec.partition(":")
    if kind in ("click", "dblclick"):
        point = await _point(page, arg)
        return A.Click(point=point) if kind == "click" else A.DoubleClick(point=point)
    if kind == "type":
        return A.Type(content=arg)
    if kind == "scroll":
        return A.Scroll(point=(500, 500), direction=arg)
    if kind == "select":
        return A.SelectOption(index=int(arg))
    return A.PressEnter()


async def _do(env, action: A.ActionModel):
    ready = getattr(env, "ready", None)
    if ready is not None:  # as a run looks at the page before each action
        await ready()
    outcome = await env.execute(action)
    await env.settle()
    return outcome


async def judge_case(env, base_url: str, case: Case) -> Effect | None:
    """Open the page fresh, run the case's setup, then judge its action."""
    await env.goto(base_url + PAGE)
    for spec in case.setup:
        await _do(env, await build_action(env.page, spec))
    action = await build_action(env.page, case.action)
    _, effect = await watch_effect(env, action, lambda: _do(env, action))
    return effect


def scores(labelled: list[tuple[Case, Effect | None]]) -> dict[str, float | int]:
    """Precision and recall of flagging ineffective actions (the positive class), and of calling
    effective ones effective; an action with no verdict counts as a miss for both."""
    tp = sum(1 for c, e in labelled if not c.effective and e and not e.effective)
    fp = sum(1 for c, e in labelled if c.effective and e and not e.effective)
    fn = sum(1 for c, e in labelled if not c.effective and not (e and not e.effective))
    tp_e = sum(1 for c, e in labelled if c.effective and e and e.effective)
    fp_e = sum(1 for c, e in labelled if not c.effective and e and e.effective)
    fn_e = sum(1 for c, e in labelled if c.effective and not (e and e.effective))
    return {"cases": len(labelled), "ineffective_cases": tp + fn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else 0.0,
            "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0,
            "effective_precision": round(tp_e / (tp_e + fp_e), 3) if tp_e + fp_e else 0.0,
            "effective_recall": round(tp_e / (tp_e + fn_e), 3) if tp_e + fn_e else 0.0}
