"""A normalised view of one ActionContext, computed once per decision and shared by the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from workers.gates.safety.context import ActionContext, TargetInfo
from workers.gates.safety.policy import SafetyPolicy
from workers.gates.safety.text import hint_words, norm
from workers.gates.safety.urls import host_of

OBSERVE = {"scroll", "swipe", "wait", "screenshot", "get_url", "take_note", "extract", "assert", "hover", "finished", "answer"}
_TERMINAL_WINDOW = re.compile(r"terminal|powershell|command prompt|cmd\.exe|\bbash\b|\bzsh\b|\bconsole\b|\bpsql\b|\bmysql\b|"
                              r"sqlplus|iterm|konsole|xterm|命令提示符|终端|^\S+@[\w.-]+(?::|\s)|"
                              # "Command Prompt" and "Terminal" as localised Windows, macOS and Linux desktops title them
                              r"명령 프롬프트|터미널|コマンド ?プロンプト|ターミナル|終端機|命令提示字元|eingabeaufforderung|"
                              r"invite de commandes|s[ií]mbolo del sistema|prompt dei comandi|prompt de comando|opdrachtprompt|"
                              r"wiersz polecenia|командная строка|командний рядок|komut istemi|kommandotolken|příkazový řádek|"
                              r"kommandoprompt|komentokehote|parancssor|linie de comand[aă]|γραμμή εντολών|موجه الأوامر|שורת הפקודה|"
                              r"कमांड प्रॉम्प्ट|prompt perintah|dấu nhắc lệnh|พรอมต์คำสั่ง|gesaan arahan|терминал|termin[aá]l")
_CHAT_WINDOW = re.compile(r"钉钉|微信|wechat|slack|teams|telegram|whatsapp|discord|\bqq\b|飞书|lark|messenger|signal|skype|企业微信")
_ROLE_KIND = {
    "button": "button", "push button": "button", "menuitem": "button", "menu item": "button", "option": "button",
    "terminal": "terminal", "console": "terminal", "tab": "tab", "page tab": "tab", "treeitem": "tab", "tree item": "tab",
    "link": "link", "hyperlink": "link",
    "checkbox": "toggle", "check box": "toggle", "switch": "toggle", "toggle button": "toggle", "radio": "toggle",
    "radio button": "toggle", "menuitemcheckbox": "toggle", "menuitemradio": "toggle",
    "textbox": "field", "searchbox": "field", "combobox": "field", "edit": "field", "entry": "field", "spinbutton": "field",
    "textarea": "field", "password text": "field", "text": "field",
    "heading": "content", "paragraph": "content", "statictext": "content", "static text": "content", "label": "content",
    "cell": "content", "gridcell": "content", "row": "content", "listitem": "content", "list item": "content",
    "article": "content", "document": "content", "list": "content",
}
_CLASS_KIND = [("edittext", "field"), ("autocompletetextview", "field"), ("checkbox", "toggle"), ("switch", "toggle"),
               ("togglebutton", "toggle"), ("radiobutton", "toggle"), ("imagebutton", "button"), ("button", "button"),
               ("textview", "generic"), ("imageview", "generic"), ("view", "generic"), ("layout", "generic")]
_LABEL_ATTRS = ("title", "alt", "aria-label", "data-tooltip", "aria-description")
_HINT_ATTRS = ("id", "name", "class", "data-testid", "data-test", "data-icon", "data-action")


def target_kind(t: TargetInfo | None) -> str:
    """button | link | tab | toggle | field | terminal | content | generic | none."""
    if t is None:
        return "none"
    role = norm(t.role)
    if role in _ROLE_KIND:
        return _ROLE_KIND[role]
    cls = t.class_name.lower()
    for marker, kind in _CLASS_KIND:
        if marker in cls:
            return kind
    tag, itype = t.tag.lower(), (t.input_type or t.attributes.get("type", "")).lower()
    if tag == "textarea" or (tag == "input" and itype not in ("submit", "button", "checkbox", "radio", "image", "reset")):
        return "field"
    if tag == "a":
        return "link"
    return "button"


@dataclass
class View:
    """What the rules read: normalised labels of the target, surroundings, host and scope."""

    ctx: ActionContext
    policy: SafetyPolicy
    kind: str = ""
    labels: list[tuple[str, str]] = field(default_factory=list)  # (source, normalised label)
    hints: str = ""
    host: str = ""
    allowed: list[str] = field(default_factory=list)
    allowed_apps: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, ctx: ActionContext, policy: SafetyPolicy) -> "View":
        t = ctx.target
        view = cls(ctx=ctx, policy=policy, kind=target_kind(t), host=host_of(ctx.url),
                   allowed=[*ctx.allowed_domains, *policy.allowed_domains],
                   allowed_apps=[*ctx.allowed_apps, *policy.allowed_apps])
        if t is not None:
            view.labels = _labels(t, view.kind, ctx.surface)
            view.hints = " ".join(filter(None, [hint_words(t.resource_id), *(hint_words(t.attributes.get(a)) for a in _HINT_ATTRS)]))
        return view

    @cached_property
    def dialog(self) -> str:
        return _unquote_names(norm(self.ctx.dialog_text))

    @cached_property
    def nearby(self) -> str:
        return _unquote_names(" | ".join(norm(x) for x in self.ctx.nearby_text[:6] if x))

    @cached_property
    def page_text_head(self) -> str:
        return norm(self.ctx.page_text[:3000])

    @cached_property
    def titles(self) -> str:
        return " | ".join(filter(None, [norm(self.ctx.page_title), norm(self.ctx.window_title)]))

    @cached_property
    def around(self) -> str:
        """Everything near the action, for pre-approval phrases."""
        parts = [label for _, label in self.labels]
        parts += [self.dialog, self.nearby, self.titles, norm(self.ctx.typed_text), norm(self.ctx.file_name),
                  norm(self.ctx.option), norm(self.ctx.form_submit)]
        return " | ".join(p for p in parts if p)

    @cached_property
    def terminal(self) -> bool:
        return self.kind == "terminal" or any(_TERMINAL_WINDOW.search(norm(x)) for x in (self.ctx.window_title, self.ctx.app_name)) \
            or "termux" in norm(self.ctx.app_package)

    @cached_property
    def chat_window(self) -> bool:
        return any(_CHAT_WINDOW.search(norm(x)) for x in (self.ctx.window_title, self.ctx.app_name))

    @property
    def label(self) -> str:
        """The first readable label (for reasons)."""
        return self.labels[0][1] if self.labels else ""


def _labels(t: TargetInfo, kind: str, surface: str) -> list[tuple[str, str]]:
    raw = [("target.aria_label", t.aria_label), ("target.name", t.name), ("target.content_desc", t.content_desc)]
    # Android fields hold their value in `text`; elsewhere text is what the control shows.
    if not (kind == "field" and surface == "android"):
        raw.append(("target.text", t.text))
    if t.input_type.lower() in ("submit", "button") or kind == "button":
        raw.append(("target.value", t.value))
    raw += [(f"target.attributes.{a}", t.attributes.get(a, "")) for a in _LABEL_ATTRS]
    seen: set[str] = set()
    out = []
    for source, value in raw:
        label = norm(value)
        if label and label not in seen:
            seen.add(label)
            out.append((source, label))
    return out


_QUOTED = re.compile(r'"[^"]{1,40}"')


def _unquote_names(text: str) -> str:
    # Quoted spans in dialogs are names (an app, a file, a document): their words are not the subject.
    return _QUOTED.sub('"…"', text)
