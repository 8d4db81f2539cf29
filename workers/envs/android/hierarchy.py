"""The Android UI hierarchy (`uiautomator dump` XML) as nodes, and explicit-step targets found in it.

A node carries what uiautomator writes: text, resource-id, content-desc, class, package, hint,
bounds (device pixels) and the clickable / focused / password / scrollable flags. Matching is
what a person reading the screen would do: a target's text matches a node's text or its
content description (exactly first, then as a case-insensitive substring of a short label);
a `resource_id` matches `package:id/name` or the bare `name`; a label finds the field after the
text that labels it (or whose content description / hint is the label).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # noqa: S405 -- parses the device's own dump; no entities are expanded
from dataclasses import dataclass, field

from workers.errors import StepError

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
FIELD_CLASSES = ("EditText", "AutoCompleteTextView")
ROLE_CLASSES = {  # explicit-step roles -> widget class name endings
    "button": ("Button", "ImageButton"), "textbox": FIELD_CLASSES, "searchbox": FIELD_CLASSES,
    "checkbox": ("CheckBox",), "switch": ("Switch",), "radio": ("RadioButton",), "img": ("ImageView",),
    "link": ("TextView", "Button"), "heading": ("TextView",), "tab": ("TabView", "TextView"),
}


@dataclass
class Node:
    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    class_name: str = ""
    package: str = ""
    hint: str = ""
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)  # x1, y1, x2, y2 in device pixels
    clickable: bool = False
    focused: bool = False
    password: bool = False
    scrollable: bool = False
    enabled: bool = True
    parent: "Node | None" = field(default=None, repr=False)

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def rect(self) -> dict[str, float]:
        x1, y1, x2, y2 = self.bounds
        return {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}

    @property
    def is_field(self) -> bool:
        return self.class_name.endswith(FIELD_CLASSES)

    @property
    def label(self) -> str:
        """What a person would call it: content description, text, hint or the id's name."""
        return self.content_desc or (self.text if not self.password else "") or self.hint or \
            self.resource_id.rpartition("/")[2]

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2

    def record(self, strategy: str) -> dict:
        """How the target was found, for the step record (no field value: it may be a secret)."""
        return {"strategy": strategy, "class": self.class_name, "resource_id": self.resource_id,
                "content_desc": self.content_desc[:200], "text": "" if self.is_field else self.text[:200],
                "box": self.rect, "point": list(self.center)}


@dataclass
class Hierarchy:
    nodes: list[Node]  # document order
    package: str = ""

    @classmethod
    def parse(cls, xml: str) -> "Hierarchy":
        start = xml.find("<?xml")
        start = start if start >= 0 else xml.find("<hierarchy")
        end = xml.rfind("</hierarchy>")
        if start < 0 or end < 0:
            raise StepError("the device gave no UI hierarchy (uiautomator dump failed)")
        try:
            root = ET.fromstring(xml[start:end + len("</hierarchy>")])  # noqa: S314 -- see the import
        except ET.ParseError as exc:
            raise StepError(f"the device's UI hierarchy could not be read: {exc}") from None
        nodes: list[Node] = []

        def walk(element, parent: Node | None) -> None:
            for child in element:
                if child.tag != "node":
                    continue
                node = _node(child.attrib, parent)
                nodes.append(node)
                walk(child, node)

        walk(root, None)
        package = next((n.package for n in nodes if n.package), "")
        return cls(nodes, package)

    # -- reading ---------------------------------------------------------------------------
    def visible_text(self) -> list[str]:
        """Every text and content description on screen, in reading order (password text left out)."""
        seen: list[str] = []
        for node in self.nodes:
            for value in (node.content_desc, "" if node.password or node.is_field else node.text):
                if value and value not in seen:
                    seen.append(value)
        return seen

    def shows(self, text: str) -> bool:
        wanted = _norm(text)
        return any(wanted in _norm(value) for value in self.visible_text())

    def at(self, x: float, y: float) -> Node | None:
        """The smallest node under a point, preferring a clickable or field ancestor's identity."""
        hits = [n for n in self.nodes if n.contains(x, y)]
        if not hits:
            return None
        smallest = min(hits, key=lambda n: (n.rect["width"] * n.rect["height"]))
        node = smallest
        while node is not None and not (node.clickable or node.is_field):
            node = node.parent
        return node or smallest

    def focused(self) -> Node | None:
        return next((n for n in self.nodes if n.focused), None)

    def near(self, node: Node, limit: int = 6) -> list[str]:
        """Text around `node` as a person reads it, nearest first: on its row, then above it (a
        field's label, the card a button sits in, the screen's title); never text below it,
        which belongs to the next control."""
        x1, top, x2, bottom = node.bounds
        others = [n for n in self.nodes if n is not node and n.text and not n.is_field and not n.password
                  and n.bounds[1] < bottom and (n.bounds[3] <= top + 10 or n.bounds[1] >= top - 10)]
        others.sort(key=lambda n: (max(top - n.bounds[3], 0), abs(n.center[0] - (x1 + x2) // 2)))
        return [n.text[:200] for n in others[:limit]]

    # -- finding targets -------------------------------------------------------------------
    def find(self, target, *, purpose: str) -> list[tuple[Node, str]]:
        """Nodes matching an explicit step's target (`workers.steps.Target`), with the strategy
        that found them; for `purpose="input"` only fields (a label's field counts)."""
        found: list[tuple[Node, str]] = []
        if getattr(target, "resource_id", None):
            found = [(n, "resource-id") for n in self.nodes if _id_matches(n.resource_id, target.resource_id)]
        elif target.css:
            wanted = target.css.lstrip("#")
            found = [(n, "resource-id") for n in self.nodes if _id_matches(n.resource_id, wanted)]
        elif target.role:
            classes = ROLE_CLASSES.get(target.role, ())
            found = [(n, "class and name") for n in self.nodes if n.class_name.endswith(classes) and
                     (not target.name or _same(n.label, target.name) or _same(n.text, target.name))]
        elif target.placeholder:
            found = [(n, "hint") for n in self.nodes if n.is_field and _same(n.hint, target.placeholder)]
        elif target.label:
            found = self._labelled(target.label)
        elif target.text:
            found = self._by_text(target.text)
        if purpose == "input":
            found = [(self._field_for(n) or n, s) for n, s in found]
            found = [(n, s) for n, s in found if n.is_field]
        if target.nth is not None:
            return [found[target.nth]] if target.nth < len(found) else []
        unique: list[tuple[Node, str]] = []
        for node, strategy in found:
            if all(node is not other for other, _ in unique):
                unique.append((node, strategy))
        return unique

    def _by_text(self, text: str) -> list[tuple[Node, str]]:
        exact = [(n, "text") for n in self.nodes if _same(n.text, text) and not n.is_field] + \
                [(n, "content-desc") for n in self.nodes if _same(n.content_desc, text)]
        if exact:
            return [(self._actionable(n), s) for n, s in exact]
        wanted = _norm(text)
        partial = [(n, "text contains") for n in self.nodes
                   if not n.is_field and n.text and wanted in _norm(n.text) and len(n.text) <= 4 * len(text) + 20]
        partial += [(n, "hint") for n in self.nodes if n.is_field and _same(n.hint, text)]
        return [(self._actionable(n), s) for n, s in partial]

    def _labelled(self, label: str) -> list[tuple[Node, str]]:
        direct = [(n, "content-desc") for n in self.nodes if _same(n.content_desc, label)]
        direct += [(n, "hint") for n in self.nodes if n.is_field and _same(n.hint, label)]
        if direct:
            return direct
        labels = [n for n in self.nodes if not n.is_field and _same(n.text, label)]
        return [(self._field_for(n) or n, "label") for n in labels]

    def _field_for(self, node: Node) -> Node | None:
        """The field a label names: the node itself, or the first field after it (below it)."""
        if node.is_field:
            return node
        after = self.nodes[self.nodes.index(node) + 1:] if node in self.nodes else []
        return next((n for n in after if n.is_field and n.bounds[1] >= node.bounds[1]), None)

    @staticmethod
    def _actionable(node: Node) -> Node:
        """A text inside a clickable row acts through the row."""
        current: Node | None = node
        while current is not None and not (current.clickable or current.is_field):
            current = current.parent
        return current or node


def locate(hierarchy: Hierarchy, target, *, purpose: str) -> tuple[Node, str]:
    """Exactly one node for the target, or a StepError saying what was found."""
    matches = hierarchy.find(target, purpose=purpose)
    if not matches:
        raise StepError(f"target {target.describe()} not found on the screen ({hierarchy.package or 'unknown app'})")
    if len(matches) > 1:
        names = ", ".join(repr(n.label) for n, _ in matches[:5])
        raise StepError(f"target {target.describe()} is ambiguous: {len(matches)} matches ({names}); "
                        "narrow it or set nth")
    return matches[0]


def _node(attrib: dict[str, str], parent: Node | None) -> Node:
    match = _BOUNDS.match(attrib.get("bounds", ""))
    bounds = tuple(int(v) for v in match.groups()) if match else (0, 0, 0, 0)
    flag = lambda name: attrib.get(name) == "true"  # noqa: E731
    return Node(text=attrib.get("text", ""), resource_id=attrib.get("resource-id", ""),
                content_desc=attrib.get("content-desc", ""), class_name=attrib.get("class", ""),
                package=attrib.get("package", ""), hint=attrib.get("hint", ""), bounds=bounds,  # type: ignore[arg-type]
                clickable=flag("clickable"), focused=flag("focused"), password=flag("password"),
                scrollable=flag("scrollable"), enabled=attrib.get("enabled", "true") != "false", parent=parent)


def _norm(value: str) -> str:
    return " ".join(value.split()).casefold()


def _same(a: str, b: str) -> bool:
    return bool(a) and _norm(a) == _norm(b)


def _id_matches(resource_id: str, wanted: str) -> bool:
    return bool(resource_id) and (resource_id == wanted or resource_id.rpartition(":id/")[2] == wanted)
