"""The local route: offline solvers (workers/captcha/solvers) read the widget's images, and the
answer is acted out with the mouse and keyboard like a person would. Images are read at their own
resolution and answers scaled to the on-screen boxes.

Every answer carries a confidence in [0, 1]; under its kind's threshold (`THRESHOLDS`) the
solver abstains before touching the page (`gate.Abstained`) and the gate hands the challenge to
the next route in the policy. The thresholds are set on the training/tuning family only (our
synthetic generators and the practice site's, never the third-party evaluation split): the
lowest confidence whose answers were right at least 98% of the time there; for text, whose
confidence is a calibrated probability, 98% of the route's answers within its tries
(`ocr_threshold`: per `CaptchaPolicy.max_attempts`, and for the exact answer or, where the site
ignores letter case, the answer in any case; docs/captcha.md, "Thresholds")."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.automation_settings import CaptchaPolicy
from workers.captcha import act, answer_format, letter_case
from workers.captcha.detect import LOCAL_KINDS, Widget, rotation_pair
from workers.captcha.gate import Abstained
from workers.captcha.hints import TextHints, text_hints
from workers.errors import StepError

if TYPE_CHECKING:
    from workers.captcha.solvers.ocr_vote import OcrReading

# Per-kind confidence below which the local solver abstains (docs/captcha.md, "Confidence").
# "ocr": the committed gate's threshold for the default 3 tries and an exact answer (`ocr_threshold`).
THRESHOLDS = {"ocr": 0.55, "slider_puzzle": 0.4, "image_rotation": 0.5, "icon_click": 0.6, "text_click": 0.3}
log = logging.getLogger(__name__)
NEVER = letter_case.NEVER  # above any confidence (and JSON-safe, unlike inf): the route always abstains


def ocr_threshold(tries: int, any_case: bool = False) -> float:
    """The text CAPTCHA's threshold for a route with `tries` tries, for an answer that must be
    exact or (`any_case`) right in any letter case, from the committed gate
    (scripts/ocr_train/calibrate.py); without it, `THRESHOLDS["ocr"]`."""
    from workers.captcha.solvers import ocr_vote

    committed = ocr_vote.committed()
    if committed is None:
        return THRESHOLDS["ocr"]
    found = committed.threshold(tries, "any_case" if any_case else "exact")
    return NEVER if found is None else found


ROTATION_GATE = Path(__file__).resolve().parent / "models" / "rotation_gate.json"


def lone_reader_sha256() -> str:
    """What the lone-picture gate is fitted for: the reader's source, line endings normalised."""
    from workers.captcha.solvers import rotation

    return hashlib.sha256(Path(rotation.__file__).read_bytes().replace(b"\r\n", b"\n")).hexdigest()


@functools.cache
def _rotation_gate() -> dict | None:
    """The committed lone-picture gate (scripts/calibrate_rotation.py) when it was fitted for the
    reader as it is; else None."""
    try:
        gate = json.loads(ROTATION_GATE.read_text())
    except (OSError, ValueError):
        log.warning("no lone-picture rotation gate: lone pictures are handed on")
        return None
    if gate.get("reader_sha256") != lone_reader_sha256():
        log.warning("the lone-picture rotation gate was fitted for another reader: lone pictures are handed on")
        return None
    return gate


def rotation_threshold(tries: int, method: str) -> float:
    """The rotation answer's threshold for a route with `tries` tries, by the `method` that read
    it. An answer matched against an upright reference (any method but "priors": "reference
    (over)", ...) uses `THRESHOLDS["image_rotation"]`; one read from a lone picture ("priors") uses the gate fitted on photographs, NEVER where no threshold keeps the
    route's pass rate, and NEVER without a gate fitted for this reader: the picture goes to the
    model or a person rather than to priors whose hit rate nobody measured."""
    if method != "priors":
        return THRESHOLDS["image_rotation"]
    gate = _rotation_gate()
    if gate is None:
        return NEVER
    found = gate["thresholds"].get(str(min(max(tries, 1), len(gate["thresholds"]))))
    return NEVER if found is None else found


def ocr_gate(reading: OcrReading, hints: TextHints, policy: CaptchaPolicy,
             case_weights: np.ndarray | None = None) -> tuple[float, float, str]:
    """(confidence, threshold, letter case) for a text CAPTCHA's answer: the automation's
    `letter_case` wins; "unknown" goes by the page's words (`hints.case_ignored`) and, where the
    page says nothing and the run keeps what each site's verdicts taught (`case_weights`: the
    belief that this site ignores case, workers/captcha/letter_case.py), by that belief. The
    letter case returned: "ignored", "matters" or "learned". Reading nothing is not an answer:
    confidence 0."""
    decided = {"ignored": True, "matters": False}.get(policy.letter_case, hints.case_ignored)
    if decided is None and case_weights is not None:
        confidence, threshold = letter_case.gated(reading.confidence, reading.any_case, case_weights,
                                                  ocr_threshold(policy.max_attempts),
                                                  ocr_threshold(policy.max_attempts, any_case=True))
        return (confidence if reading.text else 0.0), threshold, "learned"
    any_case = bool(decided)
    confidence = (reading.any_case if any_case else reading.confidence) if reading.text else 0.0
    return confidence, ocr_threshold(policy.max_attempts, any_case), "ignored" if any_case else "matters"


@dataclass(frozen=True)
class SiteReading:
    """A text CAPTCHA's answer as the local route gives it on one site: the reading, its
    confidence and threshold (`ocr_gate`), the letter case, the format learned from the site's
    accepted answers and whether the reading was made under it."""

    reading: OcrReading
    confidence: float
    threshold: float
    case: str
    learned: answer_format.Learned
    applied: bool


async def read_for_site(read: Callable[[TextHints], Awaitable[OcrReading]], page: TextHints, policy: CaptchaPolicy,
                        case_weights: np.ndarray | None = None, site_format: dict | None = None) -> SiteReading:
    """Read a text CAPTCHA (`read(hints)`) under the page's hints completed by what the site's
    accepted answers show of its format (workers/captcha/answer_format.py). A reading under the
    learned format that the gate finds unsure is read again under the page's hints alone, and
    that reading is the answer when the gate keeps it: a site that changed its format is not
    handed on for ever."""
    learned = answer_format.hints(site_format) if site_format is not None else answer_format.Learned()
    hints = answer_format.merged(page, learned)
    applied = hints != page
    reading = await read(hints)
    confidence, threshold, case = ocr_gate(reading, hints, policy, case_weights)
    if applied and confidence < threshold:
        plain = await read(page)
        plain_confidence, plain_threshold, plain_case = ocr_gate(plain, page, policy, case_weights)
        if plain_confidence >= plain_threshold:
            return SiteReading(plain, plain_confidence, plain_threshold, plain_case, learned, False)
    return SiteReading(reading, confidence, threshold, case, learned, applied)


def check_confidence(kind: str, confidence: float, detail: dict[str, Any], threshold: float | None = None) -> None:
    """Raise `Abstained` when `confidence` is under `kind`'s threshold, or `threshold` when
    given (before any action)."""
    threshold = THRESHOLDS.get(kind) if threshold is None else threshold
    if threshold is not None and confidence < threshold:
        raise Abstained(confidence, threshold, detail)


QUOTED_CJK = re.compile(r"[「“\"'『]([^」”\"'』]{1,4})[」”\"'』]")


def instruction_chars(instruction: str) -> list[str]:
    """The characters a text-click widget asks for, in order (「春」「风」 or “A” “B” or after a colon)."""
    quoted = QUOTED_CJK.findall(instruction)
    if quoted:
        return quoted
    tail = re.split(r"[:：]", instruction, maxsplit=1)[-1]
    return [c for c in tail if "\u3400" <= c <= "\u9fff"]


class LocalCaptchaSolver:
    """Callable route for `CaptchaGate(local=...)`: (env, widget, policy) → what was done."""

    async def __call__(self, env, widget: Widget, policy: CaptchaPolicy | None = None, *,
                       case_weights: np.ndarray | None = None, site_format: dict | None = None) -> dict[str, Any]:
        """`case_weights`: the belief that this site ignores letter case, where the run keeps one;
        `site_format`: the counts of the site's accepted answers (text CAPTCHAs only;
        workers/captcha/site_memory.py)."""
        # One solver per kind the detector hands to local solving (`_<kind>`, each taking the policy).
        if widget.kind not in LOCAL_KINDS:
            raise StepError(f"no local solver for {widget.kind}")
        if widget.kind == "ocr":
            return await self._ocr(env.page, widget, policy or CaptchaPolicy(), case_weights, site_format)
        handler = getattr(self, f"_{widget.kind}")
        return await handler(env.page, widget, policy or CaptchaPolicy())

    @staticmethod
    async def _run(fn, *args, **kwargs):
        # The solvers are CPU-bound (OpenCV, ONNX): keep the event loop free for other runs.
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def _ocr(self, page, widget: Widget, policy: CaptchaPolicy, case_weights: np.ndarray | None = None,
                   site_format: dict | None = None) -> dict[str, Any]:
        from workers.captcha.solvers.ocr import read_text

        if not widget.inputs:
            raise StepError("the text CAPTCHA has no input field")
        hints = text_hints(widget.instruction, widget.inputs[0])
        data, _, _ = await act.image_bytes(page, act.main_image(widget))

        async def read(under: TextHints) -> OcrReading:
            return await self._run(read_text, data, charset=under.charset, length=under.length,
                                   max_length=under.max_length, arithmetic=under.arithmetic)

        answer = await read_for_site(read, hints, policy, case_weights, site_format)
        reading, confidence, threshold = answer.reading, answer.confidence, answer.threshold
        # read_as: "text", or "sum" (its value teaches no length or characters) or "any" (another script)
        detail = {"answer": reading.text, **reading.record(), "hints": hints.record(), "letter_case": answer.case,
                  "read_as": reading.kind}
        if answer.learned:  # what the site's accepted answers show of its format, and whether it was read under it
            detail.update(format_learned=answer.learned.record(), format_applied=answer.applied)
        if answer.case == "learned" and case_weights is not None:  # the site's belief, and the answer's weighed by it
            detail.update(letter_case_ignored_belief=round(letter_case.ignored(case_weights), 3),
                          site_confidence=round(confidence, 3), threshold=round(threshold, 3))
        check_confidence("ocr", confidence, detail, threshold)
        await act.type_into(page, widget.inputs[0]["rect"], reading.text)
        return detail

    async def _slider_puzzle(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        from workers.captcha.solvers.slider import solve_slider

        if not widget.sliders or len(widget.images) < 2:
            raise StepError("the slider CAPTCHA has no handle or no puzzle piece")
        background = act.main_image(widget)
        piece = min(act.other_images(widget, background), key=lambda i: i["rect"]["width"] * i["rect"]["height"])
        (bg, sx, _), (pc, _, _) = await asyncio.gather(act.image_bytes(page, background), act.image_bytes(page, piece))
        answer = await self._run(solve_slider, bg, pc)
        # Where the piece's opaque part must go, minus where it is now, in CSS pixels.
        piece_now = piece["rect"]["x"] - background["rect"]["x"] + answer.piece_left * sx
        distance = answer.gap_left * sx - piece_now
        detail = {"gap_left": answer.gap_left, "distance_px": round(distance, 1), "score": round(answer.score, 3),
                  "confidence": round(answer.confidence, 3)}
        check_confidence("slider_puzzle", answer.confidence, detail)
        handle = widget.sliders[0]["rect"]
        start = act.centre(handle)
        await act.human_drag(page, start, (start[0] + distance, start[1]))
        return detail

    async def _drag_end(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        from workers.captcha.solvers.drag import solve_drag

        scene = act.main_image(widget)
        items = [i for i in act.other_images(widget, scene) if i.get("positioned") or "drag" in i.get("cls", "")]
        if not items:
            raise StepError("the drag CAPTCHA has no draggable item")
        item = items[0]
        (scene_data, sx, sy), (item_data, _, _) = await asyncio.gather(act.image_bytes(page, scene),
                                                                       act.image_bytes(page, item))
        target = await self._run(solve_drag, scene_data, item_data)
        end = (scene["rect"]["x"] + target.x * sx, scene["rect"]["y"] + target.y * sy)
        await act.human_drag(page, act.centre(item["rect"]), end)
        return {"target": [target.x, target.y]}

    async def _click_points(self, page, main: dict, points) -> list[list[float]]:
        data_scale = await act.image_bytes(page, main)
        _, sx, sy = data_scale
        clicks = [(main["rect"]["x"] + p.x * sx, main["rect"]["y"] + p.y * sy) for p in points]
        await act.click_points(page, clicks)
        return [[round(x, 1), round(y, 1)] for x, y in clicks]

    async def _icon_click(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        from workers.captcha.solvers.icon_click import read_icon_click

        main = act.main_image(widget)
        hints = act.other_images(widget, main)
        if not hints:
            raise StepError("the icon CAPTCHA shows no hint icons")
        (image, _, _), (hint, _, _) = await asyncio.gather(act.image_bytes(page, main), act.image_bytes(page, hints[0]))
        points, confidence = await self._run(read_icon_click, image, hint)
        check_confidence("icon_click", confidence, {"confidence": round(confidence, 3)})
        return {"clicks": await self._click_points(page, main, points), "confidence": round(confidence, 3)}

    async def _text_click(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        from workers.captcha.solvers.text_click import read_text_click

        chars = instruction_chars(widget.instruction)
        if not chars:
            raise StepError("the text-click CAPTCHA names no characters")
        main = act.main_image(widget)
        image, _, _ = await act.image_bytes(page, main)
        points, confidence = await self._run(read_text_click, image, chars)
        check_confidence("text_click", confidence, {"chars": chars, "confidence": round(confidence, 3)})
        return {"chars": chars, "clicks": await self._click_points(page, main, points), "confidence": round(confidence, 3)}

    async def _image_rotation(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        if not widget.sliders:
            raise StepError("the rotation CAPTCHA has no slider")
        degrees, confidence, method = await self._rotation_answer(page, widget)
        check_confidence("image_rotation", confidence, {"degrees": round(degrees, 1), "confidence": round(confidence, 3),
                                                        "method": method},
                         rotation_threshold(policy.max_attempts, method))
        slider = widget.sliders[0]
        track = slider.get("track") or slider["rect"]
        travel = track["width"] - slider["rect"]["width"]
        start = act.centre(slider["rect"])
        await act.human_drag(page, start, (start[0] + (degrees % 360) / 360 * travel, start[1]))
        return {"degrees": round(degrees, 1), "confidence": round(confidence, 3), "method": method}

    async def _rotation_answer(self, page, widget: Widget) -> tuple[float, float, str]:
        """(clockwise degrees, confidence, method): matched against the upright picture shown
        with the piece when there is one, else read from the lone picture's priors."""
        from workers.captcha.solvers.rotation import read_rotation
        from workers.captcha.solvers.rotation_match import read_rotation_against

        pair = rotation_pair(widget.images)
        if pair is None:
            image, _, _ = await act.image_bytes(page, act.main_image(widget))
            return (*await self._run(read_rotation, image), "priors")
        (reference, sx_ref, _), (piece, sx_piece, _) = await asyncio.gather(act.image_bytes(page, pair[0]),
                                                                            act.image_bytes(page, pair[1]))
        # Reference pixels per piece pixel, for a piece laid over the reference's hole.
        scale = sx_piece / sx_ref if sx_ref else None
        return (*await self._run(read_rotation_against, reference, piece, scale=scale, layout=pair[2]),
                f"reference ({pair[2]})")

    async def _oneclick_login(self, page, widget: Widget, policy: CaptchaPolicy) -> dict[str, Any]:
        if not widget.checkboxes:
            raise StepError("the one-click CAPTCHA has no checkbox")
        await page.mouse.click(*act.centre(widget.checkboxes[0]["rect"]))
        return {"clicked": "checkbox"}
