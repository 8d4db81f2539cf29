"""`manage.py solve_captcha`: run one local CAPTCHA solver on image files and print the answer.

    manage.py solve_captcha --kind KIND --image PATH [--instruction TEXT] [--piece PATH] [--hint PATH]

Prints one JSON object, `{"kind", "answer", "elapsed_ms"}` (ocr adds `"confidence"` and
`"confidence_any_case"`, 0-1: right as typed, right in any letter case), where answer is text (ocr),
[[x, y], ...] in image pixels (drag: one point; icon_click, text_click: one per target, in
order), {"gap_left", "gap_centre", ...} (slider) or {"degrees"} (rotation, clockwise).
Inputs: slider needs --piece (the piece, or the background without the hole); icon_click
needs --hint (the hint strip); text_click needs --instruction (the characters are taken from
quotes such as 「天」 or “天地”, or else from after a colon); drag takes an optional --piece
(the item being dragged). VenusBench type names (slider_puzzle, image_rotation, drag_end)
are accepted. Exit status: 0 solved; 2 unknown kind, unreadable file or missing or unusable
input; 3 a type with no local solver (visual_reasoning, oneclick_login).
Use it only on CAPTCHAs you are authorised to automate (safety reference, §6).
No database is touched.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from workers.captcha.solvers import (
    ALIASES, KINDS, UNSOLVABLE, LocalSolvers, SolverInputError, SolverResult, canonical_kind, chars_from_instruction,
)


class Command(BaseCommand):
    help = "Run a local CAPTCHA solver on image files and print the answer as JSON."
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument("--kind", required=True, help=f"one of {', '.join((*KINDS, *ALIASES))}")
        parser.add_argument("--image", required=True, help="the CAPTCHA picture (or slider background)")
        parser.add_argument("--instruction", help="text_click: the instruction naming the characters")
        parser.add_argument("--piece", help="slider: the piece image; drag: the item being dragged")
        parser.add_argument("--hint", help="icon_click: the hint strip")
        parser.add_argument("--charset", help="ocr: the characters the answer may contain")
        parser.add_argument("--length", type=int, help="ocr: the number of characters")
        parser.add_argument("--max-length", type=int, help="ocr: at most this many characters (an input's maxlength)")

    def handle(self, *args, kind: str, image: str, instruction: str | None = None, piece: str | None = None,
               hint: str | None = None, charset: str | None = None, length: int | None = None,
               max_length: int | None = None, **options):
        if kind in UNSOLVABLE:
            raise CommandError(f"{kind}: no local solver; route it to the model or a human", returncode=3)
        kind = canonical_kind(kind)
        if kind not in KINDS:
            raise CommandError(f"unknown kind {kind!r}; expected one of {', '.join((*KINDS, *ALIASES))}", returncode=2)
        try:
            result = self._solve(kind, _read(image), instruction=instruction, piece=piece, hint=hint,
                                 charset=charset, length=length, max_length=max_length)
        except SolverInputError as exc:
            raise CommandError(f"{kind}: {exc}", returncode=2) from exc
        self.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False))

    def _solve(self, kind: str, image: bytes, *, instruction: str | None, piece: str | None, hint: str | None,
               charset: str | None, length: int | None, max_length: int | None) -> SolverResult:
        solvers = LocalSolvers()
        solvers.warm_up(kind)  # so elapsed_ms is the solve, not the model loading
        if kind == "ocr":
            return solvers.ocr(image, charset=charset, length=length, max_length=max_length)
        if kind == "slider":
            return solvers.slider(image, _read(_required(piece, "--piece", kind)))
        if kind == "drag":
            return solvers.drag(image, _read(piece) if piece else None)
        if kind == "icon_click":
            return solvers.icon_click(image, _read(_required(hint, "--hint", kind)))
        if kind == "text_click":
            return solvers.text_click(image, chars_from_instruction(_required(instruction, "--instruction", kind)))
        return solvers.rotation(image)


def _required(value: str | None, flag: str, kind: str) -> str:
    if not value:
        raise CommandError(f"{kind} needs {flag}", returncode=2)
    return value


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}", returncode=2) from exc
