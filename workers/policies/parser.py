"""Reading UI-Venus-2 answers: thought + typed actions, or a `ParseError` to re-ask with.

Contract (reference/ui-venus-protocol.md §6):
- The thought comes from `reasoning_content` when the server split it out, else from the text
  before the first `</think>` (the opening tag is usually missing: the chat template opened it).
  Behaviour does not depend on the server's reasoning-parser setting.
- Exactly one `<action>…</action>` block; a bare call without tags is accepted. Zero or several
  blocks, or an answer cut off by the token limit, is a `ParseError`.
- The action text is parsed as a Python expression tree and walked, never evaluated: only calls
  named in the surface's action set, keyword arguments only, literal values (numbers, strings,
  tuples/lists of them). Calls nest only inside desktop `Sequence(actions=[...])`; a top-level
  comma list holds several actions where the surface allows it (browser, mobile, CAPTCHA).
- `point` and `box` are aliases everywhere (normalised to the surface's name); coordinates may be
  lists or tuples, floats are rounded, a 4-number box becomes its centre, and anything outside
  0-1000 is rejected. Limits and enums are the action models' (`workers.actions*`).

Every `ParseError` message is short and addressed to the model, so the caller can send it back.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from workers.actions import ActionModel, ActionSpace, action_space

MAX_ACTION_CHARS = 100_000
COORD_FIELDS = ("point", "box", "start", "end")
_ACTION_BLOCK = re.compile(r"<action>(.*?)</action>", re.S)
_THINK_TAG = re.compile(r"</?think>")
_BARE_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")
# Warning filters are process-global; the lock keeps our own parses from interleaving their
# save/restore of them.
_WARNINGS_LOCK = threading.Lock()


class ParseError(ValueError):
    """The model's answer cannot be used; `message` says why, in words fit for the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ParsedAnswer:
    """One accepted answer. `raw` is `content` exactly as received; `action_text` is the text
    inside the action block as the model wrote it; `actions` are the validated actions in order."""

    thought: str
    action_text: str
    actions: list[ActionModel]
    raw: str

    def canonical(self) -> str:
        """The form stored in history and replayed to the model (§5.1)."""
        return f"<think>{self.thought}</think>\n<action>{self.action_text}</action>"


def parse_answer(
    content: str, reasoning: str | None = None, *, surface: str, finish_reason: str | None = None
) -> ParsedAnswer:
    """Parse one chat completion of a navigation or CAPTCHA call for `surface`."""
    space = action_space(surface)
    if finish_reason == "length":
        raise ParseError(
            "Your answer was cut off by the length limit before a complete action. "
            "Think more briefly and end with exactly one <action>…</action>."
        )
    content = content or ""
    thought, body = _split_thought(content, reasoning)
    action_text = _action_text(body, space)
    return ParsedAnswer(thought=thought, action_text=action_text, actions=_parse_actions(action_text, space), raw=content)


def _split_thought(content: str, reasoning: str | None) -> tuple[str, str]:
    """(thought, the rest of the answer), think tags removed from the thought.

    Only a `</think>` before the first `<action>` ends the thought, so typed text that happens to
    contain the tag is left alone.
    """
    start = content.find("<action>")
    head = content if start < 0 else content[:start]
    closed = "</think>" in head
    before, _, after = content.partition("</think>") if closed else ("", "", content)
    if reasoning and reasoning.strip():
        thought, body = f"{reasoning.strip()}\n{before}", after
    elif closed:
        thought, body = before, after
    else:
        thought, body = (content[:start], content[start:]) if start >= 0 else ("", content)
    return _THINK_TAG.sub("", thought).strip(), body


def _action_text(body: str, space: ActionSpace) -> str:
    blocks = _ACTION_BLOCK.findall(body)
    if len(blocks) > 1:
        extra = " (all CAPTCHA steps go comma-separated inside one block)" if space.surface == "captcha" else ""
        raise ParseError(f"Found {len(blocks)} <action> blocks; write exactly one <action>…</action>{extra}.")
    if blocks:
        text = blocks[0].strip().strip("`").strip()
    elif "<action>" in body or "</action>" in body:
        raise ParseError("The <action> block is not closed properly; write <action>…</action>.")
    else:
        text = _THINK_TAG.sub("", body).strip()
        if not _BARE_CALL.match(text):
            raise ParseError(
                "No <action>…</action> block found. End your answer with exactly one, "
                f"for example <action>{_example(space)}</action>."
            )
    if not text:
        raise ParseError(f"The <action> block is empty; put one action in it, for example {_example(space)}.")
    return text


def _example(space: ActionSpace) -> str:
    return f"Click({space.coord_field}=(500, 300))"


def _parse_actions(text: str, space: ActionSpace) -> list[ActionModel]:
    if len(text) > MAX_ACTION_CHARS:
        raise ParseError(f"The action is longer than {MAX_ACTION_CHARS} characters.")
    node = _parse_tree(text, space).body
    if isinstance(node, ast.Tuple):
        if not space.multi:
            hint = " or group several in Sequence(actions=[...])" if "Sequence" in space.classes else ""
            raise ParseError(f"Give a single action{hint}, not a comma-separated list.")
        if not node.elts:
            raise ParseError("The action list is empty.")
        return [_action(call, space, nested=False) for call in node.elts]
    return [_action(node, space, nested=False)]


def _ast(text: str) -> ast.Expression:
    """ast.parse, with warnings silenced: an unknown escape such as 'C:\\dir' in typed text is a
    SyntaxWarning that must not turn into an error under strict warning filters."""
    with _WARNINGS_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, mode="eval")


def _parse_tree(text: str, space: ActionSpace) -> ast.Expression:
    try:
        return _ast(text)
    except SyntaxError as exc:
        # A raw line break inside a quoted string is the usual culprit: read it as \n.
        if "\n" in text:
            try:
                return _ast(text.replace("\r\n", "\\n").replace("\n", "\\n"))
            except SyntaxError:
                pass
        raise ParseError(
            f"The action is not a valid call ({exc.msg}). Write it like {_example(space)}, "
            "with quoted strings and escaped quotes inside them."
        ) from None
    except (ValueError, RecursionError, MemoryError):
        raise ParseError(f"The action cannot be read. Write it like {_example(space)}.") from None


def _action(node: ast.AST, space: ActionSpace, *, nested: bool) -> ActionModel:
    if not isinstance(node, ast.Call):
        raise ParseError(f"Expected an action call such as {_example(space)}, found {_describe(node)}.")
    name = _call_name(node, space)
    if name == "Sequence" and nested:
        raise ParseError("A Sequence cannot contain another Sequence.")
    if node.args:
        raise ParseError(f"{name}: use keyword arguments only, for example {name}(argument=value).")
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ParseError(f"{name}: ** unpacking is not allowed; write each argument out.")
        if keyword.arg in kwargs:
            raise ParseError(f"{name}: argument {keyword.arg!r} is given twice.")
        if name == "Sequence" and keyword.arg == "actions":
            kwargs["actions"] = _sequence_children(keyword.value, space)
        else:
            kwargs[keyword.arg] = _literal(keyword.value, f"{name}({keyword.arg}=…)")
    return _validate(name, _normalise(name, kwargs, space), space)


def _call_name(node: ast.Call, space: ActionSpace) -> str:
    if isinstance(node.func, ast.Attribute):
        raise ParseError("Attribute access is not allowed; call an action by its bare name, e.g. Click(...).")
    if not isinstance(node.func, ast.Name):
        raise ParseError(f"Expected an action name before '(', found {_describe(node.func)}.")
    if node.func.id not in space.classes:
        raise ParseError(f"Unknown action {node.func.id!r}. Available actions: {', '.join(space.classes)}.")
    return node.func.id


def _sequence_children(node: ast.AST, space: ActionSpace) -> tuple[ActionModel, ...]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise ParseError("Sequence(actions=…) takes a list of actions, e.g. Sequence(actions=[Click(), Type(content='x')]).")
    return tuple(_action(child, space, nested=True) for child in node.elts)


def _literal(node: ast.AST, where: str) -> Any:
    """The value of a literal node: numbers, strings, None/True/False, tuples and lists of them."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return node.value
    if (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant) and _is_number(node.operand.value)
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_literal(element, where) for element in node.elts)
    raise ParseError(f"{where}: {_describe(node)} is not allowed; use literal numbers, quoted strings, lists or tuples.")


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.Name: "a name", ast.Attribute: "attribute access", ast.Call: "a call",
        ast.JoinedStr: "an f-string", ast.Starred: "* unpacking", ast.BinOp: "an operator",
        ast.BoolOp: "an operator", ast.Compare: "a comparison", ast.UnaryOp: "an operator",
        ast.Subscript: "indexing", ast.Dict: "a dict", ast.Set: "a set", ast.Lambda: "a lambda",
    }
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return f"a call to {node.func.id!r} (calls nest only in Sequence(actions=[...]))"
    if isinstance(node, ast.Constant):
        return f"the constant {node.value!r}"
    return kinds.get(type(node), f"a {type(node).__name__} expression")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _normalise(name: str, kwargs: dict[str, Any], space: ActionSpace) -> dict[str, Any]:
    """Apply the point/box alias and turn coordinates into in-range integer pairs."""
    fields = space.classes[name].model_fields
    if "type" in kwargs:
        raise ParseError(f"{name}: 'type' is not an argument.")
    alias = "box" if space.coord_field == "point" else "point"
    if alias in kwargs and alias not in fields and space.coord_field in fields:
        if space.coord_field in kwargs:
            raise ParseError(f"{name}: give {space.coord_field}= only once (point and box mean the same).")
        kwargs[space.coord_field] = kwargs.pop(alias)
    for key in COORD_FIELDS:
        if key in fields and kwargs.get(key) is not None:
            kwargs[key] = _coordinate(kwargs[key], f"{name}({key}=…)", space)
    return kwargs


def _coordinate(value: Any, where: str, space: ActionSpace) -> tuple[int, int]:
    if not isinstance(value, tuple) or len(value) not in (2, 4) or not all(_is_number(v) for v in value):
        raise ParseError(f"{where}: expected a point (x, y) of two numbers, got {value!r}.")
    if any(v < 0 or v > 1000 for v in value):
        raise ParseError(
            f"{where}: {value!r} is outside the screenshot; coordinates run from 0 to {space.divisor}."
        )
    if len(value) == 4:  # a box (x1, y1, x2, y2): aim at its centre
        value = ((value[0] + value[2]) / 2, (value[1] + value[3]) / 2)
    return round(value[0]), round(value[1])


def _validate(name: str, kwargs: dict[str, Any], space: ActionSpace) -> ActionModel:
    cls = space.classes[name]
    try:
        return cls.model_validate(kwargs)
    except ValidationError as exc:
        raise ParseError(_readable(name, cls, exc)) from None


def _readable(name: str, cls: type[ActionModel], exc: ValidationError) -> str:
    """A pydantic error as one short sentence the model can act on."""
    arguments = [f for f in cls.model_fields if f != "type"]
    parts = []
    for error in exc.errors()[:3]:
        loc = ".".join(str(part) for part in error["loc"])
        if error["type"] == "missing":
            parts.append(f"'{loc}' is required")
        elif error["type"] == "extra_forbidden":
            takes = f"its arguments are {', '.join(arguments)}" if arguments else "it takes no arguments"
            parts.append(f"{name} has no argument '{loc}' ({takes})")
        else:
            message = error["msg"].removeprefix("Value error, ")
            parts.append(f"'{loc}': {message}" if loc else message)
    return f"Invalid {name}: " + "; ".join(parts) + "."


def format_action(action: ActionModel) -> str:
    """The call text for a typed action, e.g. "Click(point=(10, 20))"; parses back to the same
    action. Arguments left at their default are omitted."""
    arguments = []
    for field, info in type(action).model_fields.items():
        value = getattr(action, field)
        if field == "type" or (not info.is_required() and value == info.default):
            continue
        arguments.append(f"{field}={_format_value(value)}")
    return f"{action.type}({', '.join(arguments)})"


def _format_value(value: Any) -> str:
    if isinstance(value, ActionModel):
        return format_action(value)
    if isinstance(value, tuple) and value and all(_is_number(v) for v in value):
        return "(" + ", ".join(repr(v) for v in value) + ")"
    if isinstance(value, tuple):
        return "[" + ", ".join(_format_value(v) for v in value) + "]"
    return repr(value)


# --- grounding (§9) ----------------------------------------------------------------------

_NUMBER = r"-?\d+(?:\.\d+)?"
_GROUP = rf"\[\s*({_NUMBER}(?:\s*,\s*{_NUMBER})*)\s*\]"
_GROUNDING = re.compile(rf"{_GROUP}(?:\s*,\s*{_GROUP})?")
_UP_TO_THINK_END = re.compile(r".*</think>", re.S)


def parse_grounding(content: str) -> tuple[int, int] | None:
    """The point a grounding answer names, in 0-1000 units; None for "[-1,-1]" (not there).

    Accepts `[x,y]`, a box `[x1,y1,x2,y2]` or `[x1,y1],[x2,y2]` (its centre), whitespace and a
    trailing full stop. Anything else, or a point outside 0-1000, is a `ParseError`.
    """
    text = _UP_TO_THINK_END.sub("", content or "").strip().rstrip(".。").strip()
    match = _GROUNDING.fullmatch(text)
    if match is None:
        raise ParseError(f"Answer with only [x,y], or [-1,-1] if the element is not there; got {text[:80]!r}.")
    groups = [[float(n) for n in group.split(",")] for group in match.groups() if group]
    numbers = [n for group in groups for n in group]
    if len(numbers) not in (2, 4) or (len(groups) == 2 and len(groups[0]) != 2):
        raise ParseError(f"Answer with only [x,y], or [-1,-1] if the element is not there; got {text[:80]!r}.")
    if all(n == -1 for n in numbers):
        return None
    if any(n < 0 or n > 1000 for n in numbers):
        raise ParseError(f"{text!r} is outside the screenshot; coordinates run from 0 to 1000.")
    if len(numbers) == 4:
        numbers = [(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2]
    return round(numbers[0]), round(numbers[1])
