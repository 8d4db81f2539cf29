"""A dry run of a labelled set without the evaluator: each app of the set is served by its `Server`,
and every case's setup and action are done in order with plain Playwright in Chromium, as
`judge_case` does them. Checks that each click target exists, is visible and is what the browser
hits at its centre (a target with `pointer-events: none`, such as a disabled Bootstrap button, is
only checked for visibility), and prints, per case, what changed around its action (address,
scroll, focus, field and ARIA state, text), for labelling by hand. Exits non-zero when a case fails.

    .venv/bin/python -m tests.helpers.effect_cases_dryrun tests.helpers.effect_cases_holdout6 [app]
"""

from __future__ import annotations

import asyncio
import importlib
import sys

SNAPSHOT = """() => ({url: location.href,
  y: [window, ...document.querySelectorAll('article, main')].map(e => Math.round(e.scrollY ?? e.scrollTop)).join(','),
  text: document.body.innerText,
  focus: document.activeElement ? `${document.activeElement.tagName}#${document.activeElement.id}` : '',
  fields: [...document.querySelectorAll('input, select, textarea')]
    .map(e => e.type === 'checkbox' || e.type === 'radio' ? String(e.checked) : e.value).join('|'),
  aria: [...document.querySelectorAll('[aria-expanded], [aria-selected], [aria-checked]')]
    .map(e => ['aria-expanded', 'aria-selected', 'aria-checked'].map(a => e.getAttribute(a)).join()).join('|')})"""

HITS = """(e, p) => { const h = document.elementFromPoint(p[0], p[1]);
  return !!h && (e === h || e.contains(h) || [...(e.labels || [])].some(l => l.contains(h))); }"""

SELECT = """n => { const e = document.activeElement;
  if (!e || e.tagName !== 'SELECT') return false;
  e.selectedIndex = n;
  e.dispatchEvent(new Event('input', {bubbles: true}));
  e.dispatchEvent(new Event('change', {bubbles: true}));
  return true; }"""


async def _centre(page, selector: str, *, check: bool) -> tuple[float, float]:
    target = page.locator(selector).first
    if await target.count() == 0:
        raise LookupError(f"no element {selector}")
    await target.scroll_into_view_if_needed(timeout=5000)
    await page.wait_for_timeout(300)
    box = await target.bounding_box()
    if box is None or not await target.is_visible():
        raise LookupError(f"not visible: {selector}")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if check and await target.evaluate("e => getComputedStyle(e).pointerEvents") != "none":
        if not await target.evaluate(HITS, [x, y]):
            raise LookupError(f"the centre of {selector} hits another element")
    return x, y


async def do(page, spec: str, *, check: bool = False) -> None:
    """One spec of the labelled sets, done with plain Playwright."""
    kind, _, arg = spec.partition(":")
    if spec == "bottom":
        await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    elif kind in ("click", "dblclick"):
        x, y = await _centre(page, arg, check=check)
        await (page.mouse.click if kind == "click" else page.mouse.dblclick)(x, y)
    elif kind == "type":
        await page.keyboard.type(arg, delay=20)
    elif kind == "scroll":
        await page.mouse.move(500, 500)
        await page.mouse.wheel(0, 600 if arg == "down" else -600)
    elif kind == "select":
        if not await page.evaluate(SELECT, int(arg)):
            raise LookupError("select with no focused <select>")
    elif spec == "enter":
        await page.keyboard.press("Enter")
    else:
        raise ValueError(f"unknown spec {spec!r}")
    await page.wait_for_timeout(1200)


def changes(before: dict, after: dict) -> str:
    """What differs between two snapshots, in a few words."""
    said = [key for key in ("url", "y", "focus", "fields", "aria") if before[key] != after[key]]
    if before["text"] != after["text"]:
        old, new = set(before["text"].splitlines()), set(after["text"].splitlines())
        said.append(f"text +{sorted(new - old)[:3]} -{sorted(old - new)[:3]}")
    return "; ".join(said) or "nothing"


async def dry_run(cases, app: str, base: str) -> int:
    """Every case of `app`, in order, in one browser; the number that failed."""
    from playwright.async_api import async_playwright

    failed = 0
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium")
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        for n, case in enumerate(c for c in cases if c.app == app):
            label = "effective" if case.effective else "ineffective"
            try:
                await page.goto(base.rstrip("/") + case.path)
                await page.wait_for_timeout(1500)
                for spec in case.setup:
                    await do(page, spec)
                before = await page.evaluate(SNAPSHOT)
                await do(page, case.action, check=True)
                if "report" in case.action:  # the slow report answers after three seconds
                    await page.wait_for_timeout(3500)
                print(f"{app} {n:3} {label:11} {case.name}: {changes(before, await page.evaluate(SNAPSHOT))}",
                      flush=True)
            except Exception as exc:  # noqa: BLE001 - every failure is reported, the run goes on
                failed += 1
                print(f"{app} {n:3} FAILED {case.name}: {str(exc)[:300]}", flush=True)
        await browser.close()
    return failed


def main(argv: list[str]) -> int:
    module = importlib.import_module(argv[0])
    apps = argv[1:] or list(module.APPS)
    failed = 0
    for app in apps:
        with module.servers()[app]() as server:
            failed += asyncio.run(dry_run(module.CASES, app, server.base_url))
    print(f"failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
