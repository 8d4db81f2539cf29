"""What a browser would post for a form in a rendered page: every named, enabled input (checked
boxes only), select (its selected option, else the first) and textarea, in document order."""

from __future__ import annotations

from html.parser import HTMLParser


class _Fields(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside, self.disabled_depth = form_id, False, 0
        self.fields: list[tuple[str, str]] = []
        self._select: tuple[str, list[tuple[str, bool]]] | None = None
        self._option: list[str] | None = None
        self._textarea: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.inside = True
        if not self.inside:
            return
        if tag == "fieldset" and "disabled" in a:
            self.disabled_depth += 1
        if self.disabled_depth or "disabled" in a or not a.get("name") and tag != "option":
            return
        if tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind not in ("submit", "button", "file"):
                self.fields.append((a["name"], a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select":
            self._select = (a["name"], [])
        elif tag == "option" and self._select is not None:
            self._option = [a.get("value") if "value" in a else None, "selected" in a]
            self._select[1].append(self._option)
        elif tag == "textarea":
            self._textarea = (a["name"], [])

    def handle_data(self, data):
        if self._option is not None and self._option[0] is None:
            self._option[0] = data.strip()
        if self._textarea is not None:
            self._textarea[1].append(data)

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "fieldset" and self.disabled_depth:
            self.disabled_depth -= 1
        elif tag == "option":
            self._option = None
        elif tag == "select" and self._select is not None:
            name, options = self._select
            chosen = next((o for o in options if o[1]), options[0] if options else None)
            if chosen is not None:
                self.fields.append((name, chosen[0] or ""))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._textarea[1])
            self.fields.append((self._textarea[0], text[1:] if text.startswith("\n") else text))
            self._textarea = None


def form_fields(html: str, form_id: str) -> list[tuple[str, str]]:
    parser = _Fields(form_id)
    parser.feed(html)
    return parser.fields


def form_data(html: str, form_id: str) -> dict[str, list[str]]:
    """The same fields as the test client posts them: each name with its values in order."""
    data: dict[str, list[str]] = {}
    for name, value in form_fields(html, form_id):
        data.setdefault(name, []).append(value)
    return data
