"""Slider puzzles for the `third_party` section of benchmarks/captcha.py.

EVALUATION ONLY for `go-captcha-py` 0.1.0 (a Python port of go-captcha, Apache-2.0): nothing in
workers/captcha/ was tuned on it. It is used as its README shows: `slide.make_default_captcha()`
(its bundled photographs and puzzle tiles, a 300×220 JPEG with a shaded notch, a PNG tile with
a glow), and judged by its own `slide.validate(sx, sy, block.x, block.y, padding=3)` (the
README's tolerance), where (sx, sy) is where our answer puts the tile's top-left corner.

`own-decoys` is our own generator (tests/captcha/synth.py: JPEG backgrounds, dark, light, grey
and shadow holes with or without a rim, jigsaw, round, shield pieces), with one or two decoy
holes of the piece's own shape and size marked like the true one. It is the training/tuning
family (the slider's weights and threshold were set on it), reported for comparison, not as a
measure of generalisation; judged within 4 px.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SliderChallenge:
    background: bytes
    piece: bytes
    check: Callable[[int, int], bool]  # (tile left, tile top) in background pixels -> accepted


def go_captcha(rng: random.Random) -> SliderChallenge:
    from go_captcha_py import slide

    random.seed(rng.getrandbits(64))  # go-captcha-py draws with the global random module
    data = slide.make_default_captcha().generate()
    block = data.get_data()
    return SliderChallenge(data.get_master_image().to_bytes(), data.get_tile_image().to_bytes(),
                           lambda x, y: slide.validate(x, y, block.x, block.y, 3))


def own_decoys(rng: random.Random) -> SliderChallenge:
    from tests.captcha import synth

    case = synth.slider_sample(rng, twin_decoys=rng.choice((1, 2)))
    return SliderChallenge(case.background, case.piece,
                           lambda x, y: abs(x + case.piece_left - case.gap_left) <= 4)


GENERATORS: dict[str, Callable[[random.Random], SliderChallenge]] = {"go-captcha-py": go_captcha}
OWN: dict[str, Callable[[random.Random], SliderChallenge]] = {"own-decoys": own_decoys}
