"""Rotation widgets, with an upright reference or a lone picture, for the `third_party` section of benchmarks/captcha.py.

EVALUATION ONLY for `go-captcha-py` 0.1.0 (a Python port of go-captcha, Apache-2.0): nothing in
workers/captcha/ was designed or tuned on it. It is used as its README shows:
`rotate.make_default_captcha().generate()` (its bundled photographs), the master image as the
reference and the thumb image as the piece, judged by its own
`rotate.validate(answer, block.angle, 10)` (±10°). Its `angle` is the clockwise turn of the
thumb that lines it up, our answer's convention (checked once on a picture of our own passed
through `rotate.make_captcha(images=[...])`, not on its photographs).

EVALUATION ONLY as well, added blind 2026-12-07 with the solver frozen: CaptchaGenerator 2.0.0's
`RotateImageCaptcha`, a LONE picture (no reference) turned by 90, 180 or 270 degrees, the user
choosing how to turn it back: "clockwise", "counterclockwise" or "180". Its pictures are
go-captcha-py's bundled photographs; our clockwise answer is judged as the nearest of the three
choices (what a page offering them would be told; an answer nearest 0, upright, is none of them). Its answer convention was settled on a picture
of our own (the turn it applied, counter-clockwise, is undone by the answer), not on its photographs.

`own-rings` is our own generator (tests/captcha/synth_rotation.py: ring and thumbnail widgets
over five kinds of picture, JPEG, rims, shadows, re-lit pieces): the tuning family the
reference matcher's threshold was set on, reported for comparison; judged within ±10°.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RotationChallenge:
    reference: bytes | None  # None: a lone picture to turn upright
    piece: bytes
    check: Callable[[float], bool]  # clockwise degrees -> accepted
    answer: float  # the clockwise turn the generator expects (for the harness test, never the solver)


def go_captcha(rng: random.Random) -> RotationChallenge:
    from go_captcha_py import rotate

    random.seed(rng.getrandbits(64))  # go-captcha-py draws with the global random module
    data = rotate.make_default_captcha().generate()
    block = data.get_data()
    return RotationChallenge(data.get_master_image().to_bytes(), data.get_thumb_image().to_bytes(),
                             lambda degrees: rotate.validate(round(degrees) % 360, block.angle, 10), block.angle)


def own_rings(rng: random.Random) -> RotationChallenge:
    from tests.captcha.synth_rotation import rotation_case

    case = rotation_case(rng)
    return RotationChallenge(case.reference, case.piece,
                             lambda degrees: abs((degrees - case.angle + 180) % 360 - 180) <= 10, case.angle)


CHOICES = {90: "clockwise", 180: "180", 270: "counterclockwise"}  # clockwise turn that undoes it


def captchagenerator_rotate(rng: random.Random) -> RotationChallenge:
    import tempfile
    from pathlib import Path

    import CaptchaGenerator

    from _slider_third_party import _photos

    seed = rng.getrandbits(32)
    random.seed(seed)  # it draws the turn with the global random module
    with tempfile.TemporaryDirectory() as folder:
        # Its own default configuration is 720x420 (`CaptchaConfig(height=420)`); only the seed is added.
        made = CaptchaGenerator.RotateImageCaptcha(CaptchaGenerator.CaptchaConfig(height=420, random_seed=seed)).generate(
            image_path=rng.choice(_photos()), name_export="challenge", path_export=folder)
        piece = next(Path(folder).glob("challenge*")).read_bytes()

    def check(degrees: float) -> bool:
        nearest = min((0, *CHOICES), key=lambda turn: abs((degrees - turn + 180) % 360 - 180))
        return CHOICES.get(nearest) == made.answer  # nearest upright (0): none of the choices

    return RotationChallenge(None, piece, check, next(turn for turn, name in CHOICES.items() if name == made.answer))


GENERATORS: dict[str, Callable[[random.Random], RotationChallenge]] = {
    "go-captcha-py": go_captcha,
    "captchagenerator-rotate": captchagenerator_rotate,
}
OWN: dict[str, Callable[[random.Random], RotationChallenge]] = {"own-rings": own_rings}
