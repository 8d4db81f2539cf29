"""Explicit steps on real desktop applications (Xvfb, openbox, pcmanfm, gnumeric, mousepad),
grounded by AT-SPI names and OCR; nothing in between is replaced."""

from __future__ import annotations

import asyncio
import subprocess

from pydantic import TypeAdapter

from workers import actions_desktop as D
from workers import steps as S
from workers.desktop_executor import DesktopExecutor
from workers.gates.safety import ActionContext, TargetInfo, classify

STEP = TypeAdapter(S.Step)


def _run(env, steps: list[dict]) -> list:
    async def go():
        executor = DesktopExecutor(env)
        return [await executor.run(STEP.validate_python(step)) for step in steps]

    return asyncio.run(go())


def _cells(path) -> str:
    out = subprocess.run(["ssconvert", "--export-type=Gnumeric_stf:stf_csv", str(path), "fd://1"],
                         capture_output=True, text=True, timeout=60)
    return out.stdout


def test_it_fills_spreadsheet_cells_from_values_and_saves_the_file(desktop):
    _run(desktop, [
        {"kind": "goto", "url": "app:gnumeric/expenses.gnumeric"},
        {"kind": "fill", "target": {"role": "cell", "name": "A3"}, "value": "Taxi Zürich 出租车"},
        {"kind": "fill", "target": {"role": "cell", "name": "B3"}, "value": "42.5"},
        {"kind": "press", "key": "ctrl+s"},
        {"kind": "wait_for", "url_contains": "app://gnumeric/expenses.gnumeric", "timeout_s": 20},
    ])
    saved = desktop.session.changed_files()
    assert [p.name for p in saved] == ["expenses.gnumeric"]
    assert '"Taxi Zürich 出租车",42.5' in _cells(saved[0])
    assert "Rent,1200" in _cells(saved[0])  # the seeded rows are kept


def test_it_creates_a_folder_renames_a_file_and_moves_it_in_the_file_manager(desktop):
    outcomes = _run(desktop, [
        {"kind": "goto", "url": "app:pcmanfm"},
        {"kind": "wait_for", "text": "report.txt", "timeout_s": 30},
        {"kind": "press", "key": "ctrl+shift+n"},
        {"kind": "fill", "target": {"role": "textbox"}, "value": "Archive\n"},
        {"kind": "click", "target": "report.txt"},
        {"kind": "press", "key": "F2"},
        {"kind": "fill", "target": {"role": "textbox"}, "value": "q3-report.txt\n"},
        {"kind": "click", "target": "q3-report.txt"},
        {"kind": "press", "key": "ctrl+x"},
        {"kind": "click", "target": "Archive"},
        {"kind": "press", "key": "Return"},
        {"kind": "press", "key": "ctrl+v"},
        {"kind": "wait_for", "text": "q3-report.txt", "url_contains": "Archive"},
    ])
    documents = desktop.session.documents
    assert (documents / "Archive" / "q3-report.txt").read_text() == "Quarterly figures\n"
    assert not (documents / "report.txt").exists()
    assert outcomes[4].grounding["strategy"] in ("accessibility", "ocr")


def test_the_file_managers_delete_is_read_from_the_screen_and_held_for_review(desktop):
    async def go():
        await desktop.start_app("app:pcmanfm")
        found = await desktop.screen.locate("report.txt", timeout_s=30)
        await desktop.execute(D.RightClick(box=_grid(desktop, found.point)))
        item = await desktop.screen.locate(S.Target(role="menuitem", name="Delete"), timeout_s=10)
        probe = await desktop.screen.probe_point(item.point)
        await desktop.xdo("key", "Escape")
        return item, probe

    item, probe = asyncio.run(go())
    assert item.strategy == "accessibility" and item.role == "menu item"
    assert probe.target["name"] == "Delete" and probe.title == "Documents"
    target = {k: v for k, v in probe.target.items() if k != "rect"}
    verdict = classify(ActionContext(surface="desktop", action_type="click", target=TargetInfo(**target),
                                     nearby_text=probe.nearby, window_title=probe.title, url=probe.url))
    assert (verdict.category, verdict.decision) == ("DEL", "review")
    assert (desktop.session.documents / "report.txt").exists()


def test_it_types_non_ascii_text_and_hotkeys_from_ui_venus_actions(desktop):
    async def go():
        await desktop.start_app("app:mousepad")
        await desktop.execute(D.Click(box=(500, 500)))
        await desktop.execute(D.Type(content="Grüße 你好\nsecond line"))
        await desktop.execute(D.Hotkey(keys=("ctrl", "s")))
        await DesktopExecutor(desktop).run(STEP.validate_python(
            {"kind": "fill", "target": {"role": "textbox"}, "value": f"{desktop.session.documents}/note.txt\n"}))
        for _ in range(50):
            if (desktop.session.documents / "note.txt").exists():
                break
            await asyncio.sleep(0.2)

    asyncio.run(go())
    assert (desktop.session.documents / "note.txt").read_text() == "Grüße 你好\nsecond line"


def _grid(env, point: tuple[int, int]) -> tuple[int, int]:
    """Pixels -> the model's 0-999 box grid (what a UI-Venus action carries)."""
    x, y = point
    return (x * 999 + env.width - 1) // env.width, (y * 999 + env.height - 1) // env.height
