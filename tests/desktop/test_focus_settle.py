"""Enter goes to the focused element; a dialog that is still opening has no focus yet. The
probe reads the screen again for a moment before the gate is told the field is unknown (which
would hold an ordinary Save As for review), and only for an action that presses Enter."""

from __future__ import annotations

import asyncio

from workers import actions_desktop as D
from workers.envs import atspi, desktop_screen
from workers.gates.context import build_context
from workers.gates.safety.gate import classify
from workers.ocr import Box

NAME_FIELD = atspi.Accessible("text", "Name", Box(200, 100, 300, 30), "mousepad", "Save As", focused=True, editable=True)
SAVE = atspi.Accessible("push button", "Save", Box(520, 400, 80, 30), "mousepad", "Save As", default=True)


class Env:
    width, height, window_title, cursor = 1280, 800, "Save As", (0, 0)

    class session:
        @staticmethod
        def env():
            return {}

    async def x(self, fn, *args):
        return fn(*args)

    def grab_png(self):
        return b"png"

    def location(self):
        return "app://mousepad/"


def reader(monkeypatch, trees):
    reads = []

    def read_tree(env, **_):
        reads.append(1)
        return trees[min(len(reads), len(trees)) - 1]

    monkeypatch.setattr(atspi, "read_tree", read_tree)
    screen = desktop_screen.ScreenReader(Env())
    monkeypatch.setattr(screen, "_lines", lambda png: [])
    return screen, reads


def decision(probe, typed: str) -> str:
    ctx = build_context(probe, {"action_type": "type", "typed_text": typed}, allowed_domains=[], credential_domains=[])
    return classify(ctx).decision


def test_typing_a_name_and_enter_waits_for_the_dialogs_focus_and_is_allowed(monkeypatch):
    screen, reads = reader(monkeypatch, [[], [SAVE], [NAME_FIELD, SAVE]])
    probe, _ = asyncio.run(screen.probe_action(D.Type(content="note.txt\n")))
    assert len(reads) == 3 and probe.target["name"] == "Name" and probe.form_submit == "Save"
    assert decision(probe, "note.txt\n") == "allow"


def test_without_enter_the_probe_does_not_wait(monkeypatch):
    screen, reads = reader(monkeypatch, [[], [NAME_FIELD, SAVE]])
    probe, _ = asyncio.run(screen.probe_action(D.Hotkey(keys=("ctrl", "s"))))
    assert len(reads) == 1 and probe.target is None


def test_focus_that_never_lands_is_given_up_after_the_settle_time(monkeypatch):
    monkeypatch.setattr(desktop_screen, "FOCUS_SETTLE_S", 0.5)
    screen, reads = reader(monkeypatch, [[SAVE]])
    probe, _ = asyncio.run(screen.probe_action(D.Hotkey(keys=("Return",))))
    assert 2 <= len(reads) <= 4 and probe.target is None
    assert decision(probe, "\n") == "review"  # Enter into a field nobody can see is still held


def test_the_probe_waits_for_exactly_what_the_rules_judge_as_an_enter():
    from types import SimpleNamespace

    from workers.gates.safety.context import action_fields
    from workers.gates.safety.keys import presses_enter

    def enter(action) -> bool:
        return presses_enter(action_fields(action))

    assert enter(D.Type(content="note.txt\n")) and not enter(D.Type(content="two\nlines"))
    assert enter(D.Hotkey(keys=("ctrl", "Return"))) and not enter(D.Hotkey(keys=("shift", "Return")))
    assert not enter(D.Hotkey(keys=("ctrl", "s")))
    assert enter(SimpleNamespace(kind="press", key="Enter")) and enter(SimpleNamespace(kind="press", key=None))
    assert not enter(SimpleNamespace(kind="press", key="Tab"))
