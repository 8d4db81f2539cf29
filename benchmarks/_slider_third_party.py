"""Slider puzzles for the `third_party` section of benchmarks/captcha.py.

EVALUATION ONLY for `go-captcha-py` 0.1.0 (a Python port of go-captcha, Apache-2.0): nothing in
workers/captcha/ was tuned on it. It is used as its README shows: `slide.make_default_captcha()`
(its bundled photographs and puzzle tiles, a 300×220 JPEG with a shaded notch, a PNG tile with
a glow), and judged by its own `slide.validate(sx, sy, block.x, block.y, padding=3)` (the
README's tolerance), where (sx, sy) is where our answer puts the tile's top-left corner.

EVALUATION ONLY as well, added 2026-12-05 after the slider solver and its threshold were frozen,
never looked at before: CaptchaGenerator 2.0.0's two slider puzzles, called as its docs' examples
do. `SliderPuzzleCaptcha` (720x420, difficulty "hard", tolerance 10) cuts a square piece from a
photograph (go-captcha-py's bundled photographs are the pictures given to it); its answer is the
piece image's left edge. `IrregularPuzzleCaptcha` (800x480, nine vertices, radius 55, tolerance 12)
cuts a polygon piece from a background it draws itself; its answer is the piece image's centre.
Both judge x only, within their tolerance. Which edge each answer names was settled from numbers
alone (where the piece's own pixels lie in our copy of the photograph), not from looking at them.
The square puzzle is no longer blind: its images were looked at after it failed (2026-12-05), and
since 2026-12-07 its drawing, on our own backgrounds, is in the slider's tuning sets
(tests/captcha/test_solvers.py); go-captcha-py's photographs it cuts from here never were.

EVALUATION ONLY as well, added 2026-12-07 after the slider solver and its threshold were frozen:
`ray-slide-captcha` 1.0.0 (MIT), a backend library whose service downloads a photograph from
public image sites and cuts a 60x60 rounded piece at a random x (150-250 is the notch's centre).
Nothing leaves this machine: its own cutting function is given one of go-captcha-py's bundled
photographs as a `file://` URL (urllib reads it from disk), with the random x chosen by us, and
the answer is judged as its `verify_position` does: the piece's left edge within 8 px of
`target_x - 30`. Seen before the run: its README and the docstring of that function (a dark
rounded notch with a white outline at y=60); its images were not looked at.

`own-decoys` is our own generator (tests/captcha/synth.py: JPEG backgrounds, dark, light, grey
and shadow holes with or without a rim, jigsaw, round, shield pieces), with one or two decoy
holes of the piece's own shape and size marked like the true one. It is the training/tuning
family (the slider's weights and threshold were set on it), reported for comparison, not as a
measure of generalisation; judged within 4 px.
"""

from __future__ import annotations

import functools
import io
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image


@dataclass(frozen=True)
class SliderChallenge:
    background: bytes
    piece: bytes
    check: Callable[[int, int], bool]  # (tile left, tile top) in background pixels -> accepted
    answer: tuple[int, int]  # the tile's left the generator expects, and its top where it judges y (else 0) (for the harness test, never the solver)


def go_captcha(rng: random.Random) -> SliderChallenge:
    from go_captcha_py import slide

    random.seed(rng.getrandbits(64))  # go-captcha-py draws with the global random module
    data = slide.make_default_captcha().generate()
    block = data.get_data()
    return SliderChallenge(data.get_master_image().to_bytes(), data.get_tile_image().to_bytes(),
                           lambda x, y: slide.validate(x, y, block.x, block.y, 3), (block.x, block.y))


def own_decoys(rng: random.Random) -> SliderChallenge:
    from tests.captcha import synth

    case = synth.slider_sample(rng, twin_decoys=rng.choice((1, 2)))
    return SliderChallenge(case.background, case.piece,
                           lambda x, y: abs(x + case.piece_left - case.gap_left) <= 4, (case.gap_left - case.piece_left, 0))


@functools.cache
def _photos() -> list[str]:
    """go-captcha-py's bundled photographs (the pictures, not its puzzle drawing)."""
    import go_captcha_py

    return sorted(str(p) for p in (Path(go_captcha_py.__file__).parent / "resources" / "images").glob("*.jpg"))


def _puzzle(name: str, size: tuple[int, int], seed: int, **options) -> tuple[bytes, bytes, int, int]:
    """One CaptchaGenerator puzzle, `name` called with its docs' `options`: (background, piece,
    answer, tolerance)."""
    import CaptchaGenerator

    config = CaptchaGenerator.CaptchaConfig(width=size[0], height=size[1], random_seed=seed)
    with tempfile.TemporaryDirectory() as folder:
        made = getattr(CaptchaGenerator, name)(config).generate(name_export="challenge", path_export=folder, **options)
        background, piece = (Path(made.metadata[k]).read_bytes() for k in ("background_path", "piece_path"))
    return background, piece, made.answer, made.metadata["tolerance"]


def captchagenerator_slider(rng: random.Random) -> SliderChallenge:
    seed = rng.getrandbits(32)
    background, piece, target, tolerance = _puzzle(  # answer: the piece image's left edge
        "SliderPuzzleCaptcha", (720, 420), seed, image_path=rng.choice(_photos()), difficulty="hard", tolerance=10)
    return SliderChallenge(background, piece, lambda x, y: abs(x - target) <= tolerance, (target, 0))


def captchagenerator_irregular(rng: random.Random) -> SliderChallenge:
    background, piece, target, tolerance = _puzzle(  # answer: the piece image's centre
        "IrregularPuzzleCaptcha", (800, 480), rng.getrandbits(32), image_path=None, vertices=9, piece_radius=55, tolerance=12)
    half = Image.open(io.BytesIO(piece)).width // 2
    return SliderChallenge(background, piece, lambda x, y: abs(x + half - target) <= tolerance, (target - half, 0))


def ray_slide(rng: random.Random) -> SliderChallenge:
    import base64

    from ray_slide_captcha import service

    target_x = rng.randint(service.TARGET_X_MIN, service.TARGET_X_MAX)
    background, piece, error = service._generate_puzzle_pair(Path(rng.choice(_photos())).as_uri(), target_x)
    if error:
        raise RuntimeError(f"ray-slide-captcha: {error}")
    background, piece = (base64.b64decode(url.split(",", 1)[1]) for url in (background, piece))
    expected = target_x - service.PUZZLE_CENTER_OFFSET
    return SliderChallenge(background, piece,
                           lambda x, y: abs(x - expected) <= service.POSITION_TOLERANCE, (expected, 0))


GENERATORS: dict[str, Callable[[random.Random], SliderChallenge]] = {
    "go-captcha-py": go_captcha,
    "captchagenerator-slider": captchagenerator_slider,
    "captchagenerator-irregular": captchagenerator_irregular,
    "ray-slide-captcha": ray_slide,
}
OWN: dict[str, Callable[[random.Random], SliderChallenge]] = {"own-decoys": own_decoys}
