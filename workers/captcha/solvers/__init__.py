"""Local, offline, CPU solvers for the common CAPTCHA types (the first step of the CAPTCHA
route in the safety reference, §6: only for origins on the authorised-automation list).

Every solver is a pure function of image bytes (PNG, JPEG, ...) that answers in pixels of
the image it was given; no browser, no network, no Django. Mapping pixels to screen or to the
model's 0-999 grid, acting and verifying are the caller's job. Inputs that cannot be solved
raise `SolverInputError`.

| kind        | function            | answer                                                |
|-------------|---------------------|-------------------------------------------------------|
| ocr         | `solve_ocr`         | text (or the value of a sum such as "3+4=?"); with    |
|             | (`read_text`)       | its confidence and the readers' candidates            |
| slider      | `solve_slider`      | `SliderAnswer` (gap_left / gap_centre, piece offset)  |
| drag        | `solve_drag`        | `PixelPoint` where to drop                            |
| icon_click  | `solve_icon_click`  | `list[PixelPoint]` in hint order                      |
| text_click  | `solve_text_click`  | `list[PixelPoint]` in the order of the characters     |
| rotation    | `solve_rotation`    | degrees to turn CLOCKWISE to make upright, [0, 360)   |
|             | (`read_rotation_    | (against an upright reference shown with the piece)   |
|             | against`)           |                                                       |

`LocalSolvers` is the facade the runtime uses: one call per kind, each timed, returning a
`SolverResult` with a confidence in [0, 1] (all kinds but drag; see docs/captcha.md); ddddocr's models and our
recogniser are built lazily once per process and shared (thread-safe).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Literal, Union

from workers.captcha.solvers import _models
from workers.captcha.solvers._image import PixelPoint, SolverInputError
from workers.captcha.solvers.drag import solve_drag
from workers.captcha.solvers.icon_click import read_icon_click, solve_icon_click
from workers.captcha.solvers.ocr import read_text, solve_ocr
from workers.captcha.solvers.rotation import read_rotation, solve_rotation
from workers.captcha.solvers.rotation_match import read_rotation_against
from workers.captcha.solvers.slider import SliderAnswer, solve_slider
from workers.captcha.solvers.text_click import chars_from_instruction, read_text_click, solve_text_click

SolverKind = Literal["ocr", "slider", "drag", "icon_click", "text_click", "rotation"]
KINDS: tuple[str, ...] = ("ocr", "slider", "drag", "icon_click", "text_click", "rotation")
# VenusBench-CAPTCHA type names for the same solvers.
ALIASES = {"slider_puzzle": "slider", "image_rotation": "rotation", "drag_end": "drag"}
# Types with no local solver: risk-scored widgets and open-ended questions go to the model or a human.
UNSOLVABLE = ("visual_reasoning", "oneclick_login")
_MODELS_FOR = {"ocr": ("ocr", "recogniser"), "text_click": ("ocr", "det")}  # the others are OpenCV only
Answer = Union[str, PixelPoint, list[PixelPoint], SliderAnswer, float]


@dataclass(frozen=True)
class SolverResult:
    """One solver call: its kind, its answer (see the table above), its duration and, where the
    solver gives one, its confidence in [0, 1]."""

    kind: str
    answer: Answer
    elapsed_ms: float
    confidence: float | None = None
    confidence_any_case: float | None = None  # ocr: the probability that it is right ignoring letter case

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: answer as text, [[x, y], ...], {"gap_left", ...} or {"degrees"}."""
        answer: Any = self.answer
        if isinstance(answer, SliderAnswer):
            answer = asdict(answer)
        elif isinstance(answer, PixelPoint):
            answer = [[answer.x, answer.y]]
        elif isinstance(answer, list):
            answer = [[p.x, p.y] for p in answer]
        elif isinstance(answer, float):
            answer = {"degrees": answer}
        out = {"kind": self.kind, "answer": answer, "elapsed_ms": round(self.elapsed_ms, 1)}
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 3)
        if self.confidence_any_case is not None:
            out["confidence_any_case"] = round(self.confidence_any_case, 3)
        return out


class LocalSolvers:
    """Facade over the solvers: times each call and wraps the answer in a `SolverResult`."""

    def warm_up(self, *kinds: str) -> None:
        """Build the models the given solver kinds use (all when none given) now, rather than
        inside the first timed call (~0.1-0.3 s each)."""
        needed = {m for kind in (kinds or KINDS) for m in _MODELS_FOR.get(canonical_kind(kind), ())}
        _models.warm_up(*sorted(needed))

    def ocr(self, image: bytes, *, charset: str | None = None, length: int | None = None,
            max_length: int | None = None) -> SolverResult:
        start = time.perf_counter()
        reading = read_text(image, charset=charset, length=length, max_length=max_length)
        return SolverResult("ocr", reading.text, (time.perf_counter() - start) * 1000, reading.confidence,
                            reading.any_case)

    def slider(self, background: bytes, piece: bytes) -> SolverResult:
        start = time.perf_counter()
        answer = solve_slider(background, piece)
        return SolverResult("slider", answer, (time.perf_counter() - start) * 1000, answer.confidence)

    def drag(self, scene: bytes, item: bytes | None = None) -> SolverResult:
        return self._timed("drag", solve_drag, scene, item)

    def icon_click(self, image: bytes, hint: bytes) -> SolverResult:
        return self._with_confidence("icon_click", read_icon_click, image, hint)

    def text_click(self, image: bytes, chars: list[str]) -> SolverResult:
        return self._with_confidence("text_click", read_text_click, image, chars)

    def rotation(self, image: bytes, *, reference: bytes | None = None, scale: float | None = None,
                 layout: str | None = None) -> SolverResult:
        """The lone picture's priors, or with an upright `reference` shown beside or around the
        piece (`image`), the reference matcher (rotation_match.py)."""
        if reference is None:
            return self._with_confidence("rotation", read_rotation, image)
        return self._with_confidence("rotation", lambda: read_rotation_against(reference, image, scale=scale,
                                                                                layout=layout))

    @staticmethod
    def _with_confidence(kind: str, reader: Callable[..., tuple[Any, float]], *args: Any) -> SolverResult:
        start = time.perf_counter()
        answer, confidence = reader(*args)
        return SolverResult(kind, answer, (time.perf_counter() - start) * 1000, confidence)

    @staticmethod
    def _timed(kind: str, solver: Callable[..., Answer], *args: Any, **kwargs: Any) -> SolverResult:
        start = time.perf_counter()
        answer = solver(*args, **kwargs)
        return SolverResult(kind, answer, (time.perf_counter() - start) * 1000)


def canonical_kind(kind: str) -> str:
    """The solver kind for a CAPTCHA type name (accepts the VenusBench names too)."""
    return ALIASES.get(kind, kind)


__all__ = [
    "ALIASES", "KINDS", "UNSOLVABLE", "LocalSolvers", "PixelPoint", "SliderAnswer", "SolverInputError",
    "SolverKind", "SolverResult", "canonical_kind", "chars_from_instruction", "solve_drag", "solve_icon_click",
    "read_rotation_against", "read_text", "solve_ocr", "solve_rotation", "solve_slider", "solve_text_click",
]
