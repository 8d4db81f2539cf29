"""Explicit steps on a real desktop application (Xvfb, openbox, pcmanfm), grounded by AT-SPI names
and OCR; nothing in between is replaced. The spreadsheet, the text editor (non-ASCII typing) and the
review of Delete run end to end through a worker in test_desktop_end_to_end.py."""

from __future__ import annotations

import asyncio

from pydantic import TypeAdapter

from workers import steps as S
from workers.desktop_executor import DesktopExecutor

STEP = TypeAdapter(S.Step)


def _run(env, steps: list[dict]) -> list:
    async def go():
        executor = DesktopExecutor(env)
        return [await executor.run(STEP.validate_python(step)) for step in steps]

    return asyncio.run(go())


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

