"""Grounding explicit steps on the DOM, without a model.

A target is looked up in tiers, most specific first (label, accessible name, the field's name
attribute, the heading, summary or legend a lone field sits under ("Add Comment" over a text
area), an unlabelled sign-in field ("Password": the masked input; "Username": the account field
by its autocomplete, name or id), visible text, tooltip, then names that start with or contain
the words); the first tier with a usable match decides. Usable means:

- it fits the action: `fill` needs an editable element, `select` a select, listbox or combobox,
  `check` a checkbox, radio or switch, `click` something actionable (a click with nothing
  actionable falls back to whatever matches); an explicit role or CSS target is taken as given;
- it lies in the target's scope: `within` a region (heading section, legend, landmark, dialog,
  form label, or a box titled by a bold first line), and the nearest to the `near` text (in its
  table row or list item first, then in its row or column on screen: "the pencil next to About
  us" in a tree);
- several links to one destination (a product's image and its title) count once.

Words are compared as people read them (case, whitespace and quote style ignored; see
`workers.targeting`). The grounder keeps looking until the page holds still (its DOM unchanged,
or the same answer twice, for 150 ms) and the match is unique, or the step's timeout passes: a
panel still drawing is not called ambiguous, and a loose match (words that only start or appear
in a longer name) is held for a second in case the exact one is still being drawn. One match: act
on it. Several at the timeout: an error that describes each one as a person sees it and proposes
the scoped target that picks it (`workers.ambiguity`). None: "not found", with why, or with the
names on the page closest to the words ("Did you mean 'Submit expense'?", `workers.did_you_mean`).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError, Locator, Page

from workers.ambiguity import ambiguous_message, describe, not_found_hint
from workers.did_you_mean import did_you_mean
from workers.errors import StepError
from workers.steps import Target
from workers.targeting import PROBE_JSON_JS, ROLES, Purpose, name_pattern, normalise

POLL_S = 0.1
MIN_POLL_S = 0.02
STABLE_S = 0.15  # the same answer this far apart counts as a page holding still
# A loose match (the words start or appear in a longer name) waits longer: a panel still drawing
# may be about to show the exact one (apps draw 300-800 ms after the page loads).
LOOSE_STABLE_S = 1.0
# Milliseconds since the page's DOM last changed. The browser pool installs the observer when each
# document starts (`QUIET_WATCH_SCRIPT`), so the parser's own insertions count and a page that has
# held still since it loaded is known to; elsewhere it is installed on first use (and that use
# then reads 0). A unique exact match on a page that has not changed for STABLE_S is taken at once.
QUIET_INSTALL = """const key = Symbol.for('venus.quiet');
  if (!window[key]) {
    const state = window[key] = {last: performance.now()};
    new MutationObserver(() => { state.last = performance.now(); })
      .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }"""
QUIET_WATCH_SCRIPT = f"(() => {{ {QUIET_INSTALL} }})();\n"
# Whether a loaded document cannot change itself: no script, no inline `on...` handler, no frame or
# plugin, no meta refresh, every image decoded (a server-rendered page draws nothing more until it is
# acted on).
INERT_EXPR = ("document.readyState === 'complete' && document.scripts.length === 0 &&"
              " !document.querySelector('iframe,frame,object,embed,meta[http-equiv=refresh i]') &&"
              " Array.from(document.images).every(i => i.complete) &&"
              " !document.evaluate(\"//@*[starts-with(name(), 'on')]\", document, null,"
              " XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue")
# Milliseconds since the DOM last changed; an inert document has held still for ever.
QUIET_JS = (f"() => {{ {QUIET_INSTALL}\n  return ({INERT_EXPR}) ? 1e9 : performance.now() - window[key].last;\n}}")
TOOLTIP_CSS = ("[title], [data-tooltip], [data-title], [data-original-title], [data-bs-original-title], "
               "[aria-description], [aria-describedby], :has(> svg > title)")
# An app's own tooltip attribute (`data-cms-tooltip`, `data-ui-tooltip`): CSS cannot match an
# attribute by its name's ending, XPath can.
TOOLTIP_XPATH = ("xpath=//*[@*[starts-with(name(), 'data-') "
                 "and substring(name(), string-length(name()) - 7) = '-tooltip']]")
NAMED_FIELDS_CSS = "input[name], select[name], textarea[name], input[id], select[id], textarea[id]"
FIELDS_CSS = "input, select, textarea, [contenteditable=''], [contenteditable=true], [role=textbox], [role=combobox]"


@dataclass
class Grounded:
    locator: Locator
    strategy: str
    box: dict | None = None

    def record(self) -> dict:
        return {"strategy": self.strategy, "box": self.box}


@dataclass
class Tier:
    strategy: str
    locator: Locator
    match: str | None = None  # a check only the probe can do (see targeting.PROBE_JS)
    fitted: bool = True  # whether the action's fit applies (not to explicit role or CSS targets)
    loose: bool = False  # the words only start or appear in the name


@dataclass
class Found:
    strategy: str
    locator: Locator  # the tier's visible elements; `picked` indexes into it
    picked: list[int]
    infos: list[dict]
    loose: bool = False

    @property
    def signature(self) -> tuple:
        return self.strategy, tuple(self.picked), len(self.infos)


@dataclass
class Misses:
    """Why nothing was usable, for the "not found" message."""

    unfit: list[dict] = field(default_factory=list)
    out_of_scope: list[dict] = field(default_factory=list)
    near_missing: bool = False


def _roles_union(page: Page, roles: tuple[str, ...], name) -> Locator:
    locator = page.get_by_role(roles[0], name=name)
    for role in roles[1:]:
        locator = locator.or_(page.get_by_role(role, name=name))
    return locator


def _text_tiers(page: Page, text: str, purpose: Purpose) -> list[Tier]:
    roles = ROLES.get(purpose, ROLES["any"])
    tiers: list[Tier] = []
    for how, mark in (("exact", ""), ("prefix", "^"), ("contains", "~")):
        pattern = name_pattern(text, how)
        loose = how != "exact"
        labelled = Tier(f"label {mark}{text!r}", page.get_by_label(pattern).or_(page.get_by_placeholder(pattern)),
                        loose=loose)
        named = Tier(f"{'control' if purpose in ('click', 'any') else 'input'} named {mark}{text!r}",
                     _roles_union(page, roles, pattern), loose=loose)
        tiers += [named, labelled] if purpose in ("click", "any") else [labelled, named]
        if how == "exact" and purpose in ("fill", "select", "check", "input"):
            tiers.append(Tier(f"field name {text!r}", page.locator(NAMED_FIELDS_CSS), match="name_attr"))
            tiers.append(Tier(f"field under {text!r}", page.locator(FIELDS_CSS), match="region"))
            if purpose in ("fill", "input"):
                tiers.append(Tier(f"sign-in field {text!r}", page.locator("input"), match="signin"))
        if how != "prefix":
            tiers.append(Tier(f"text {mark}{text!r}", page.get_by_text(pattern), loose=loose))
            tiers.append(Tier(f"tooltip {mark}{text!r}", page.locator(TOOLTIP_CSS).or_(page.locator(TOOLTIP_XPATH)),
                              match="tooltip" if how == "exact" else "tooltip~", loose=loose))
    return tiers


def _tiers(page: Page, target: Target, purpose: Purpose) -> list[Tier]:
    """Candidate locators in order of preference."""
    if target.css:
        return [Tier(f"css {target.css!r}", page.locator(target.css), fitted=False)]
    if target.role:
        if not target.name:
            return [Tier(f"role {target.role}", page.get_by_role(target.role), fitted=False)]
        return [Tier(f"role {target.role} {mark}{target.name!r}",
                     page.get_by_role(target.role, name=name_pattern(target.name, how)), fitted=False,
                     loose=how != "exact")
                for how, mark in (("exact", ""), ("prefix", "^"), ("contains", "~"))]
    if target.label:
        return [Tier(f"label {mark}{target.label!r}", page.get_by_label(name_pattern(target.label, how)),
                     loose=how != "exact")
                for how, mark in (("exact", ""), ("prefix", "^"), ("contains", "~"))]
    if target.placeholder:
        return [Tier(f"placeholder {mark}{target.placeholder!r}",
                     page.get_by_placeholder(name_pattern(target.placeholder, how)), loose=how != "exact")
                for how, mark in (("exact", ""), ("contains", "~"))]
    return _text_tiers(page, target.text or "", purpose)


def _in_scope(info: dict, within: str | None, *, exact: bool = False) -> bool:
    if not within:
        return True
    wanted = normalise(within)
    return any(normalise(region) == wanted for region in info["regions"]) or \
        (not exact and any(wanted in normalise(region) for region in info["regions"]))


def _one_per_destination(picked: list[int], infos: list[dict]) -> list[int]:
    """Links to the same address are one target: keep the one with text (else the first)."""
    by_href: dict[str, list[int]] = {}
    for i in picked:
        if infos[i]["href"]:
            by_href.setdefault(infos[i]["href"], []).append(i)
    keep = {group[0] if not any(infos[j]["has_text"] for j in group)
            else next(j for j in group if infos[j]["has_text"]) for group in by_href.values()}
    return [i for i in picked if not infos[i]["href"] or i in keep]


def _pick(infos: list[dict], target: Target, fitted: bool, misses: Misses, collapse: bool) -> list[int]:
    picked = [i for i, info in enumerate(infos) if info["matches"]]
    if fitted:
        misses.unfit += [infos[i] for i in picked if not infos[i]["fits"]]
        picked = [i for i in picked if infos[i]["fits"]]
    if picked and "rank" in infos[picked[0]]:  # a field under a heading: the nearest heading's fields
        nearest = min(infos[i]["rank"] for i in picked)
        picked = [i for i in picked if infos[i]["rank"] == nearest]
    # A region named exactly ("Issues") wins over one that only holds the words ("List of issues").
    scoped = [i for i in picked if _in_scope(infos[i], target.within, exact=True)] or \
        [i for i in picked if _in_scope(infos[i], target.within)]
    misses.out_of_scope += [infos[i] for i in picked if i not in scoped]
    picked = scoped
    if target.near and picked:
        if not infos[picked[0]]["near_found"]:
            misses.near_missing = True
            return []
        if any(infos[i]["same_row"] for i in picked):  # in the near text's table row or list item
            picked = [i for i in picked if infos[i]["same_row"]]
        elif any(infos[i]["aligned"] for i in picked):  # else the same row or column on screen
            picked = [i for i in picked if infos[i]["aligned"]]
        nearest = min(infos[i]["distance"] for i in picked)
        picked = [i for i in picked if infos[i]["distance"] <= nearest + 1]
    return _one_per_destination(picked, infos) if collapse else picked


async def _scan(page: Page, target: Target, purpose: Purpose, misses: Misses, *, strict: bool,
                collapse: bool) -> Found | None:
    args = {"purpose": purpose, "text": normalise(target.text or ""),
            "near": normalise(target.near) if target.near else None, "match": None}
    for tier in _tiers(page, target, purpose):
        locator = tier.locator.filter(visible=True)
        infos = json.loads(await locator.evaluate_all(PROBE_JSON_JS, {**args, "match": tier.match}))
        if not infos:
            continue
        picked = _pick(infos, target, tier.fitted and strict, misses, collapse)
        if picked:
            return Found(tier.strategy, locator, picked, infos, tier.loose)
    return None


async def _find(page: Page, target: Target, purpose: Purpose, misses: Misses, collapse: bool) -> Found | None:
    found = await _scan(page, target, purpose, misses, strict=True, collapse=collapse)
    if found is None and purpose == "click":  # nothing actionable: a click on plain text still works
        found = await _scan(page, target, purpose, Misses(), strict=False, collapse=collapse)
    return found


async def find_now(page: Page, target: Target, *, purpose: Purpose) -> Found | None:
    """One look, no waiting: what the grounder would take on the page as it is (links to one
    address counted once), or None. The step picker verifies its targets with it."""
    return await _find(page, target, purpose, Misses(), True)


async def _resolve(page: Page, target: Target, purpose: Purpose, timeout_s: float, *, every: bool = False,
                   suggest: bool = True) -> Found:
    """Poll until the answer is usable (unique, or nth exists; with `every`, any match) and held
    still, or the time is up. With `every`, links to one address are each kept (an extract of
    every link); otherwise they are one target. Not found: a StepError that says why, or (with
    `suggest`) what the page has that comes closest (`workers.did_you_mean`)."""
    collapse = not every
    deadline = time.monotonic() + timeout_s
    last: tuple | None = None
    since = 0.0
    while True:
        misses = Misses()
        quiet_ms = await _quiet_ms(page)
        found = await _find(page, target, purpose, misses, collapse)
        now = time.monotonic()
        usable = found is not None and (every or (len(found.picked) > target.nth if target.nth is not None
                                                  else len(found.picked) == 1))
        signature = found.signature if found else None
        if usable and not found.loose and quiet_ms >= STABLE_S * 1000:
            return found
        if signature != last:
            last, since = signature, now
        elif usable and now - since >= (LOOSE_STABLE_S if found.loose else STABLE_S):
            return found
        if now >= deadline:
            if found is not None:
                return found
            hint = not_found_hint(target, purpose, misses.unfit, misses.out_of_scope, misses.near_missing)
            if not hint and suggest:  # the words match nothing: what the page has instead
                hint = await did_you_mean(page, target, purpose)
            raise StepError(f"target {target.describe()} not found on {page.url} after {timeout_s:g}s{hint}")
        pause = POLL_S
        if usable and not found.loose:  # look again when the page will have held still long enough
            pause = min(POLL_S, max(MIN_POLL_S, STABLE_S - quiet_ms / 1000))
        await asyncio.sleep(min(pause, max(0.0, deadline - now)))


async def _quiet_ms(page: Page) -> float:
    try:
        return float(await page.evaluate(QUIET_JS))
    except PlaywrightError:  # a navigation replaced the document: nothing has held still yet
        return 0.0


def _picked_locator(found: Found) -> Locator:
    if len(found.picked) == len(found.infos):
        return found.locator
    locator = found.locator.nth(found.picked[0])
    for i in found.picked[1:]:
        locator = locator.or_(found.locator.nth(i))
    return locator


async def locate_all(page: Page, target: Target, *, purpose: Purpose, timeout_s: float) -> tuple[str, Locator, int]:
    """Every usable match of the first tier that has one: (strategy, locator, count), waiting up to
    timeout_s for one to appear and the page to hold still."""
    found = await _resolve(page, target, purpose, timeout_s, every=True)
    return found.strategy, _picked_locator(found), len(found.picked)


async def locate(page: Page, target: Target, *, purpose: Purpose, timeout_s: float, with_box: bool = True,
                 suggest: bool = True) -> Grounded:
    """Find exactly one visible element for target, waiting up to timeout_s for it to appear.
    `suggest=False`: a "not found" that nobody reads (a check that the target is gone) skips
    reading the page for suggestions."""
    found = await _resolve(page, target, purpose, timeout_s, suggest=suggest)
    count = len(found.picked)
    if target.nth is not None:
        if target.nth >= count:
            raise StepError(f"target {target.describe()} has {count} matches; nth={target.nth} does not exist "
                            f"({'; '.join(describe(found.infos[i]) for i in found.picked)})")
        return await _grounded(found.locator.nth(found.picked[target.nth]), f"{found.strategy} #{target.nth}", with_box)
    if count > 1:
        raise StepError(ambiguous_message(target, [found.infos[i] for i in found.picked]))
    return await _grounded(found.locator.nth(found.picked[0]), found.strategy, with_box)


async def _grounded(locator: Locator, strategy: str, with_box: bool) -> Grounded:
    box = await locator.bounding_box() if with_box else None
    if box is not None:
        box = {k: round(v, 1) for k, v in box.items()}
    return Grounded(locator=locator, strategy=strategy, box=box)
