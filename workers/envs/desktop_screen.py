"""What a desktop run can know about its screen without a model: targets found by AT-SPI
accessibility names first, then by offline OCR, and the safety gate's probes.

- `find(target)` -> `Found` list: an explicit step's target (`workers.steps.Target`, or a plain
  text) on the current screen. Strategy 1: AT-SPI names (role mapped from ARIA names), exact
  before prefix. Strategy 2: OCR (`workers.ocr.find_text`), whole lines before parts of lines.
  CSS selectors do not exist on a desktop and are refused with a clear error.
- `probe_step` / `probe_action` -> `workers.gates.context.Probe`: the element at the point or
  the focused one (AT-SPI role and name, the OCR text under it), the OCR text near it, the
  window title and the screen's text, so "Move to Trash" or "Delete" is classified like the same
  words on a web page. Enter goes to the focused element, and while a window is still opening
  nothing may hold the focus yet: for an action the rules judge as an Enter
  (`keys.presses_enter`) the probe reads again for up to `FOCUS_SETTLE_S` before the gate is
  told the field is unknown (which holds it for review).
OCR of one screenshot is cached (a probe and the step that follows it read it once).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass
from typing import Any

from workers import ocr
from workers import actions_desktop as D
from workers.envs import atspi
from workers.errors import StepError
from workers.gates.context import PAGE_TEXT_CHARS, Probe
from workers.gates.safety.context import action_fields
from workers.gates.safety.keys import presses_enter

NEAR_PX = 120
FOCUS_SETTLE_S = 3.0


@dataclass
class Found:
    """A target on the screen: its box in screen pixels and how it was found."""

    box: ocr.Box
    strategy: str  # "accessibility" | "ocr"
    role: str = ""
    name: str = ""
    text: str = ""

    @property
    def point(self) -> tuple[int, int]:
        return self.box.center

    def record(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "role": self.role, "name": self.name[:200],
                "box": self.box.as_dict(), "point": list(self.point)}


class ScreenReader:
    """Reads one desktop environment's screen (see the module docstring)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self._ocr_key = ""
        self._ocr_lines: list[ocr.TextBox] = []

    async def snapshot(self) -> tuple[bytes, list[ocr.TextBox], list[atspi.Accessible]]:
        png = await self.env.x(self.env.grab_png)
        lines = await self.env.x(self._lines, png)
        tree = await self.env.x(atspi.read_tree, self.env.session.env())
        return png, lines, tree

    def _lines(self, png: bytes) -> list[ocr.TextBox]:
        key = hashlib.sha1(png, usedforsecurity=False).hexdigest()
        if key != self._ocr_key:
            self._ocr_lines, self._ocr_key = ocr.read_text(png), key
        return self._ocr_lines

    async def find(self, target: Any) -> list[Found]:
        """Every match of `target` on the current screen, best first."""
        if isinstance(target, str):
            name, role = target, None
        else:
            if target.css:
                raise StepError("CSS selectors do not exist on a desktop: name the target by its text, label or role")
            name, role = target.name or target.text or target.label or target.placeholder or "", target.role
        if not name:
            raise StepError("a desktop target needs a name or text to look for")
        tree = await self.env.x(atspi.read_tree, self.env.session.env())
        found = [Found(item.box, "accessibility", item.role, item.name)
                 for item in atspi.find(tree, name, role=role, screen=(self.env.width, self.env.height))]
        if not found:
            png = await self.env.x(self.env.grab_png)
            lines = await self.env.x(self._lines, png)
            found = [Found(box, "ocr", role or "", name, name) for box in ocr.find_text(png, name, lines=lines)]
        return found

    async def locate(self, target: Any, *, timeout_s: float) -> Found:
        """The target (its `nth` match), waiting up to `timeout_s` for it to appear."""
        import asyncio
        import time

        deadline = time.monotonic() + timeout_s
        nth = getattr(target, "nth", None) or 0
        while True:
            found = await self.find(target)
            if len(found) > nth:
                return found[nth]
            if time.monotonic() >= deadline:
                what = target if isinstance(target, str) else target.describe()
                raise StepError(f"target {what!r} not found on the screen ({self.env.location()}) "
                                f"after {timeout_s:g}s (accessibility names and OCR)")
            await asyncio.sleep(0.3)

    async def lines_at(self, found: Found, *, every: bool = False) -> list[str]:
        """The OCR text of the line(s) the target sits on (every such line with `every`)."""
        png = await self.env.x(self.env.grab_png)
        lines = await self.env.x(self._lines, png)
        top, bottom = found.box.y, found.box.y + found.box.height
        hits = [line for line in lines if top <= line.box.center[1] <= bottom
                and line.box.x + line.box.width >= found.box.x]
        hits.sort(key=lambda line: line.box.x)
        return [line.text for line in hits] if every else [" ".join(line.text for line in hits)] if hits else []

    async def all_text(self) -> str:
        png = await self.env.x(self.env.grab_png)
        return "\n".join(line.text for line in await self.env.x(self._lines, png))

    # -- the safety gate's view -------------------------------------------------------------
    async def probe_point(self, point: tuple[int, int] | None, *, focus: bool = False, settle: bool = False) -> Probe:
        _, lines, tree = await self.snapshot()
        element = atspi.focused(tree) if focus else (atspi.at_point(tree, *point) if point else None)
        deadline = time.monotonic() + FOCUS_SETTLE_S
        while settle and focus and element is None and time.monotonic() < deadline:
            await asyncio.sleep(0.3)  # a window still opening: its focus lands a moment later
            _, lines, tree = await self.snapshot()
            element = atspi.focused(tree)
        text_line = _line_at(lines, point) if point else None
        target = None
        if element is not None or text_line is not None:
            box = element.box if element is not None else text_line.box
            target = {"role": _aria(element.role) if element else "", "name": element.name[:200] if element else "",
                      "text": text_line.text[:200] if text_line else "", "class_name": element.role if element else "",
                      "rect": [box.x, box.y, box.width, box.height]}
        if target is not None and element is not None and not target.get("name") and element.editable:
            target["name"] = _label_of(element.box, lines)  # a field's label: the text left of it or above it
        submit = atspi.default_button(tree, element.window) if element is not None and element.editable else None
        centre = point or (target and (target["rect"][0], target["rect"][1])) or None
        return Probe(url=self.env.location(), title=self.env.window_title, target=target,
                     nearby=_near(lines, centre) if centre else [], dialog=_dialog(tree, self.env),
                     form_submit=submit.name if submit is not None else "",
                     page_text=" ".join(line.text for line in lines)[:PAGE_TEXT_CHARS],
                     surface="desktop", window_title=self.env.window_title)

    async def probe_step(self, step: Any, found: Any) -> Probe:
        if step.kind == "goto" or found is None:
            return await self.probe_point(None, focus=step.kind != "goto", settle=presses_enter(action_fields(step)))
        probe = await self.probe_point(found.point)
        if isinstance(found, Found) and found.strategy == "accessibility" and not found.name:
            return probe  # an unnamed field (the focused one): the probe named it by its label
        if isinstance(found, Found):  # what grounding found is the target, whatever lies on top of it
            probe.target = {**(probe.target or {}), "rect": [found.box.x, found.box.y, found.box.width, found.box.height]}
            if found.strategy == "accessibility":
                probe.target.update(role=_aria(found.role), name=found.name[:200], class_name=found.role)
            else:
                probe.target.setdefault("text", found.text)
                probe.target["text"] = probe.target.get("text") or found.text
        return probe

    async def probe_action(self, action: Any) -> tuple[Probe, tuple[int, int] | None]:
        box = getattr(action, "box", None) or getattr(action, "start", None)
        if isinstance(action, D.Drag) and box is None:
            box = None
        if box is not None:
            point = self.env.px(box)
            return await self.probe_point(point), point
        if isinstance(action, (D.Type, D.Hotkey, D.KeyDown)):
            return await self.probe_point(None, focus=True, settle=presses_enter(action_fields(action))), None
        if isinstance(action, (D.Click, D.DoubleClick, D.TripleClick, D.RightClick, D.MiddleClick, D.MouseUp)):
            return await self.probe_point(self.env.cursor), self.env.cursor
        return Probe(url=self.env.location(), title=self.env.window_title, surface="desktop",
                     window_title=self.env.window_title), None


def _line_at(lines: list[ocr.TextBox], point: tuple[int, int]) -> ocr.TextBox | None:
    x, y = point
    hits = [line for line in lines if line.box.x - 4 <= x <= line.box.x + line.box.width + 4
            and line.box.y - 4 <= y <= line.box.y + line.box.height + 4]
    return min(hits, key=lambda line: line.box.width, default=None)


def _label_of(box: ocr.Box, lines: list[ocr.TextBox]) -> str:
    """The text a person reads as a field's label: on its row to its left, else just above it."""
    top, bottom = box.y, box.y + box.height
    left = [line for line in lines if top <= line.box.center[1] <= bottom and line.box.x + line.box.width <= box.x + 6]
    if left:
        return max(left, key=lambda line: line.box.x).text.strip(" :")[:120]
    above = [line for line in lines if 0 <= box.y - (line.box.y + line.box.height) <= 30
             and line.box.x < box.x + box.width and line.box.x + line.box.width > box.x]
    return above[0].text.strip(" :")[:120] if above else ""


def _near(lines: list[ocr.TextBox], point) -> list[str]:
    x, y = point

    def distance(line: ocr.TextBox) -> float:
        cx, cy = line.box.center
        return abs(cx - x) + abs(cy - y) * 2

    close = sorted((line for line in lines if distance(line) < NEAR_PX * 3), key=distance)
    return [line.text[:120] for line in close[:8]]


def _dialog(tree: list[atspi.Accessible], env: Any) -> str:
    """The title of a dialog window in front (a confirmation, a file chooser), if any."""
    for item in tree:
        if item.role in ("dialog", "alert", "file chooser") and item.name:
            return item.name[:300]
    return ""


_ARIA = {"push button": "button", "toggle button": "button", "menu item": "menuitem", "check box": "checkbox",
         "radio button": "radio", "page tab": "tab", "text": "textbox", "entry": "textbox", "password text": "textbox",
         "combo box": "combobox", "table cell": "cell", "list item": "option", "icon": "img", "image": "img"}


def _aria(role: str) -> str:
    return _ARIA.get(role, role)
