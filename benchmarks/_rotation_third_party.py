"""Rotation widgets with an upright reference, for the `third_party` section of benchmarks/captcha.py.

EVALUATION ONLY for `go-captcha-py` 0.1.0 (a Python port of go-captcha, Apache-2.0): nothing in
workers/captcha/ was designed or tuned on it. It is used as its README shows:
`rotate.make_default_captcha().generate()` (its bundled photographs), the master image as the
reference and the thumb image as the piece, judged by its own
`rotate.validate(answer, block.angle, 10)` (±10°). Its `angle` is the clockwise turn of the
thumb that lines it up, our answer's convention (checked once on a picture of our own passed
through `rotate.make_captcha(images=[...])`, not on its photographs).

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
    reference: bytes
    piece: bytes
    check: Callable[[float], bool]  # clockwise degrees -> accepted


def go_captcha(rng: random.Random) -> RotationChallenge:
    from go_captcha_py import rotate

    random.seed(rng.getrandbits(64))  # go-captcha-py draws with the global random module
    data = rotate.make_default_captcha().generate()
    block = data.get_data()
    return RotationChallenge(data.get_master_image().to_bytes(), data.get_thumb_image().to_bytes(),
                             lambda degrees: rotate.validate(round(degrees) % 360, block.angle, 10))


def own_rings(rng: random.Random) -> RotationChallenge:
    from tests.captcha.synth_rotation import rotation_case

    case = rotation_case(rng)
    return RotationChallenge(case.reference, case.piece,
                             lambda degrees: abs((degrees - case.angle + 180) % 360 - 180) <= 10)


GENERATORS: dict[str, Callable[[random.Random], RotationChallenge]] = {"go-captcha-py": go_captcha}
OWN: dict[str, Callable[[random.Random], RotationChallenge]] = {"own-rings": own_rings}
