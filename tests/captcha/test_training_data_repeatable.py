"""The recogniser's training data is a pure function of its seeds (docs/captcha-ocr.md, "The
recipe"): what drew from hidden state (light-captcha the clock, flask-simple-captcha the order of
a set of strings, the practice site's grain the C library's generator) is given it from the
image's rng, so a rerun of the recipe trains on the same pictures whatever the process's hash
seed, the time or what each data worker drew before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The training fonts (scripts/ocr_train/fonts.py) need the training requirements and fonts, which
# the test run does not install (`make train-ocr` does); the two generators tested here draw with
# their own fonts, so a stand-in list does where they are missing.
LOAD_FOREIGN = """
import sys, types
try:
    import scripts.ocr_train.fonts
except (ImportError, RuntimeError):
    sys.modules["scripts.ocr_train.fonts"] = types.SimpleNamespace(TRAIN_FONTS=())
from scripts.ocr_train import foreign
"""

DRAW = LOAD_FOREIGN + """
import hashlib, random, sys, time
sys.path.insert(0, "benchmarks")
import numpy as np
from _ocr_third_party import light_captcha as benchmark_light
random.seed(time.time_ns())
digest = hashlib.sha256()
for seed in range(6):
    for draw in (foreign.flask_simple, foreign.light_captcha):
        image, text = draw(random.Random(seed))
        digest.update(text.encode() + np.asarray(image).tobytes())
    time.sleep(0.003)  # light-captcha's own seed would be another millisecond
    challenge = benchmark_light(random.Random(seed))
    digest.update(challenge.text.encode() + challenge.image)
print(digest.hexdigest())
"""


def _draw(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", DRAW], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_flask_simple_and_light_captcha_draw_the_same_pictures_in_any_process():
    assert _draw("1") == _draw("2") == _draw("3")


def test_light_captcha_draws_apart_in_training_and_in_the_benchmark():
    import random
    from unittest import mock

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _ocr_third_party import light_captcha as benchmark_light

    namespace: dict = {}
    with mock.patch.dict(sys.modules):  # a stand-in font list goes when the test ends
        exec(LOAD_FOREIGN, namespace)  # noqa: S102 -- the module's own import code above
    foreign = namespace["foreign"]

    def seeds(draw) -> list[int]:
        # light-captcha seeds the global generator with the clock's milliseconds (below 10^6);
        # the callers' own re-seeding uses 64-bit numbers.
        with mock.patch.object(random, "seed", wraps=random.seed) as seed:
            for n in range(40):
                draw(random.Random(n))
        return [c.args[0] for c in seed.call_args_list if c.args and c.args[0] < 1_000_000]

    training, benchmark = seeds(foreign.light_captcha), seeds(benchmark_light)
    assert len(training) == len(benchmark) == 40
    assert max(training) < foreign.LIGHT_TRAIN_MS <= min(benchmark)


def test_a_practice_challenge_is_the_same_picture_whatever_the_process_drew_before():
    import random

    from PIL import Image

    from practice.captcha.generators import ocr, slider_puzzle

    first = ocr.generate(random.Random(5)).images["image"]
    Image.effect_noise((64, 64), 64)  # what the practice drawing used for its grain before
    slider_puzzle.generate(random.Random(9))
    assert ocr.generate(random.Random(5)).images["image"] == first
