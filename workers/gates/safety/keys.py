"""Typing and keys: typed values (cards, one-time codes, passwords, secrets, vault placeholders),
keyboard commits (Enter in a chat or a login form, Ctrl+Enter in mail, a command line ending in
a newline) and destructive keys (Shift+Delete, Select all then Delete)."""

from __future__ import annotations

import re

from workers.gates.safety import cues, values
from workers.gates.safety.fields import field_kind
from workers.gates.safety.rules import ev, finding, judge_label
from workers.gates.safety.shell import judge_command
from workers.gates.safety.text import norm
from workers.gates.safety.urls import in_scope
from workers.gates.safety.verdict import MEANING, Finding
from workers.gates.safety.view import View

_FAKE_CHECK = re.compile(r"verify|verification|human|robot|captcha|cloudflare|验证|人机")
_PASTE_STEPS = re.compile(r"win(?:dows)?(?: key| button| logo key)?\s*\+\s*r|⊞\s*\+\s*r|ctrl\s*\+\s*v|paste|powershell|run dialog|"
                          r"粘贴|按下?\s*win|运行窗口")
_FILE_MANAGER = re.compile(r"file explorer|explorer|finder|\bfiles\b|nautilus|dolphin|文件资源管理器|此电脑|访达|recycle bin|回收站|documents|文档")
_SELECT_ALL = re.compile(r"ctrl\+a|cmd\+a|select all|全选")
_MAIL = re.compile(r"mail|outlook|thunderbird|compose|邮件|邮箱|写信")
_RUN_DIALOG = re.compile(r"^(?:run|运行)$")
# A field a page names as a command box ("Run dialog", "Terminal"): what is typed there is a command line.
_COMMAND_BOX = re.compile(r"\b(?:run dialog|run box|terminal|command line|command prompt|powershell|console)\b|运行窗口|终端|命令行")


def fake_captcha(v: View) -> bool:
    """A page that asks a 'human check' to be passed by pasting a command (ClickFix)."""
    text = " ".join([*(norm(x) for x in (v.ctx.page_text, v.ctx.dialog_text, v.ctx.hidden_text)), v.titles, v.nearby])
    return bool(_FAKE_CHECK.search(text) and _PASTE_STEPS.search(text))


def judge_type(v: View) -> list[Finding]:
    text = v.ctx.typed_text
    kind = field_kind(v)
    if kind == "terminal" or _RUN_DIALOG.match(norm(v.ctx.window_title)):
        return [judge_shell(v, text)]
    named = " ".join(label for _, label in v.labels)
    if _COMMAND_BOX.search(named) or (fake_captcha(v) and (judged := judge_command(text)) is not None and judged.known):
        return [judge_shell(v, text)]  # a command typed where a fake "human check" or the field's name says it runs
    out: list[Finding] = []
    placeholder = values.has_placeholder(text)
    if placeholder:
        out.append(_placement(v))
    cards = values.card_numbers(text)
    if cards:
        out.append(finding("PAY", 3, "Types a payment card number; payment details are entered by a person.",
                           ev("value.card_number", "typed_text", values.mask_card(cards[0]))))
    elif kind == "card" and text.strip() and not placeholder:
        out.append(finding("PAY", 3, "Types payment card details; a person enters those.", ev("field.card", "target", "card field")))
    if kind == "pay_pin" and text.strip():
        out.append(finding("PAY", 3, "Types a payment password, which authorises a payment.", ev("field.pay_pin", "target", "payment PIN")))
    for kind_name, masked in values.secrets_in(text):
        out.append(finding("SHARE", 3, f"Types a secret ({kind_name}) into the page, where it leaves this run.",
                           ev(f"value.{kind_name}", "typed_text", masked)))
    if kind == "password" and text.strip() and not placeholder:
        out.append(finding("AUTH", 3, "Types a password directly instead of a vault placeholder; sign-in is a person's step.",
                           ev("field.password", "target", "password field")))
    if kind == "otp" and (values.looks_like_otp(text) or values.OTP_PLACEHOLDER.fullmatch(text.strip())):
        out.append(finding("AUTH", 3, "Types a one-time code, completing a sign-in or verification.", ev("field.otp", "target", "one-time code field")))
    if kind == "confirm_text":
        cue = cues.find_cue(v.dialog) or cues.find_cue(v.nearby)
        category = cue.category if cue and cue.category in ("DEL", "ACCT", "SHARE", "SEC") else "DEL"
        out.append(finding(category, 3, f"Types the confirmation text of an action that {MEANING[category]}.",
                           ev("field.type_to_confirm", "nearby_text", v.nearby or v.dialog)))
    if text.endswith("\n"):
        out += judge_enter(v, kind)
    if not out:
        what = "a search" if kind == "search" else "text into a field"
        out.append(finding("NONE", 1, f"Types {what}; nothing is sent until a commit."))
    return out


def _placement(v: View) -> Finding:
    """A vault placeholder may only be typed on its credential's domains (reference §3 rule 5)."""
    domains = v.ctx.credential_domains or v.allowed
    said = ev("value.credential_placeholder", "typed_text", "{{credentials.…}}")
    if not domains:
        return finding("AUTH", 3, "Cannot check where this credential may be typed: it has no domains.", said)
    if not in_scope(v.host, domains):
        return finding("AUTH", 4, f"Types a stored credential on {v.host or 'an unknown site'}, not on its domains "
                       f"({', '.join(domains)}).", said, ev("url.credential_domain", "url", v.ctx.url))
    return finding("NONE", 1, "Types a vault placeholder on its own domain; the executor substitutes the secret.", said)


def judge_shell(v: View, command: str) -> Finding:
    """A command line typed into a terminal or the Run dialog, or run over adb."""
    if fake_captcha(v):
        return finding("INSTALL", 4, "Runs a command that a fake 'verify you are human' page asked for.",
                       ev("injection.fake_captcha", "page_text", "paste-a-command check"))
    judged = judge_command(command)
    if judged is None:
        return finding("NONE", 1, "Types nothing into the terminal.")
    if judged.level <= 1:
        return finding("NONE", 1, f"Runs a read-only command '{judged.segment}'.", ev("shell.read_only", "typed_text", judged.segment))
    what = "is not recognised, so it cannot be judged" if not judged.known else MEANING[judged.category]
    verb = "Runs" if judged.level < 4 else "Prohibited: runs"
    return finding(judged.category, judged.level, f"{verb} '{judged.segment}', which {what}.",
                   ev(f"shell.{judged.category}", "typed_text", judged.segment))


def judge_enter(v: View, kind: str | None = None) -> list[Finding]:
    """Enter in the focused field: what it submits."""
    kind = kind or field_kind(v)
    t = v.ctx.target
    if kind == "terminal" or _RUN_DIALOG.match(norm(v.ctx.window_title)):
        command = (t.value if t else "") or v.ctx.typed_text
        if not command.strip():
            return [finding("SYS", 3, "Presses Enter in a terminal whose command is not visible.", ev("fail_closed.terminal", "target", "terminal"))]
        return [judge_shell(v, command)]
    if kind == "search":
        return [finding("NONE", 0, "Enter runs a search.", ev("key.search", "target", "search field"))]
    if kind == "composer":
        return [finding("SEND", 3, "Enter sends the message in this composer.", ev("key.commit", "key", "Enter"))]
    if v.ctx.form_submit:
        result = judge_label(v, norm(v.ctx.form_submit), "form_submit", verb="Enter submits the form:")
        if result.level >= 2:
            return [result]
    if kind in ("password", "otp"):
        return [finding("AUTH", 3, "Enter submits the sign-in form.", ev("key.commit", "key", "Enter"))]
    if kind in ("card", "pay_pin"):
        return [finding("PAY", 3, "Enter submits the payment form.", ev("key.commit", "key", "Enter"))]
    if kind == "confirm_text":
        return [finding("DEL", 3, "Enter confirms a destructive action.", ev("key.commit", "key", "Enter"))]
    if t is not None and (t.tag.lower() == "textarea" or t.attributes.get("aria-multiline") == "true"):
        return [finding("NONE", 1, "Enter adds a line in a multi-line field.")]
    for source, cue in (("dialog_text", cues.find_cue(v.dialog)), ("nearby_text", cues.find_cue(v.nearby, strong_only=True)),
                        ("url", cues.url_cue(v.ctx.url))):
        if cue:
            return [finding(cue.category, 3, f"Enter submits a form that {MEANING[cue.category]} ('{cue.text}').",
                            ev(f"cue.{cue.category}", source, cue.text))]
    if v.labels or (t is not None and (t.placeholder or t.resource_id)):
        return [finding("NONE", 1, "Enter in an ordinary field with nothing consequential around it.")]
    return [finding("UNKNOWN", 3, "Cannot judge what Enter submits: the focused field is unknown.", ev("fail_closed.key", "key", "Enter"))]


def _chord(key: str) -> tuple[set[str], str]:
    parts = [p.strip() for p in re.split(r"[+\s]+", key.lower()) if p.strip()]
    names = {"control": "ctrl", "command": "cmd", "meta": "cmd", "super": "win", "windows": "win", "return": "enter",
             "esc": "escape", "del": "delete", "numpadenter": "enter", "option": "alt"}
    parts = [names.get(p, p) for p in parts] or [""]
    return set(parts[:-1]), parts[-1]


def presses_enter(fields: dict) -> bool:
    """Whether the action these fields describe (`context.action_fields`) is judged as an Enter:
    typing that ends in a newline, or a key whose main key is Enter without Shift (a key action
    with no key is Enter). Its verdict then depends on the focused field (`judge_enter`)."""
    kind = fields.get("action_type")
    if kind == "type":
        return str(fields.get("typed_text") or "").endswith("\n")
    if kind not in ("press_key", "hotkey"):
        return False
    mods, main = _chord(fields.get("key") or "enter")
    return main == "enter" and "shift" not in mods


def judge_key(v: View) -> list[Finding]:
    mods, main = _chord(v.ctx.key or "enter")
    if main == "enter":
        if "shift" in mods:
            return [finding("NONE", 1, "Shift+Enter adds a line.")]
        if mods & {"ctrl", "cmd"} and (field_kind(v) == "composer" or _MAIL.search(" ".join([norm(v.ctx.url), norm(v.ctx.window_title)]))):
            return [finding("SEND", 3, "Ctrl+Enter sends the message being composed.", ev("key.commit", "key", v.ctx.key))]
        return judge_enter(v)
    if fake_captcha(v) and (("win" in mods and main == "r") or (mods & {"ctrl", "cmd"} and main == "v")):
        return [finding("INSTALL", 4, "Follows a fake 'verify you are human' page that asks to paste and run a command.",
                        ev("injection.fake_captcha", "page_text", "paste-a-command check"), ev("key", "key", v.ctx.key))]
    if main in ("backspace", "delete"):
        return [_delete_key(v, mods)]
    if mods & {"ctrl", "cmd"} and main == "v" and v.terminal:
        return [finding("SYS", 3, "Pastes into a terminal; what runs is not visible.", ev("fail_closed.paste", "key", v.ctx.key))]
    return [finding("NONE", 1 if mods else 0, f"Presses {v.ctx.key or main}.", ev("key", "key", v.ctx.key))]


def _delete_key(v: View, mods: set[str]) -> Finding:
    if v.kind == "field":
        return finding("NONE", 1, "Deletes characters in a field.", ev("key.edit", "key", v.ctx.key))
    said = ev("key.delete", "key", v.ctx.key)
    if "shift" in mods:
        return finding("DEL", 3, "Shift+Delete deletes the selection permanently, skipping the Recycle Bin.", said)
    if any(_SELECT_ALL.search(a.lower()) for a in v.ctx.recent_actions[-3:]):
        return finding("SYS", 3, "Delete right after Select all removes everything selected.", said,
                       ev("recent.select_all", "recent_actions", "select all"))
    if v.ctx.surface == "desktop" and not _FILE_MANAGER.search(norm(v.ctx.window_title)):
        return finding("DEL", 3, "Delete outside a text field removes the selection; what is selected is unknown.", said)
    return finding("DEL", 2, "Delete moves the selection to the trash, which can be restored.", said)
