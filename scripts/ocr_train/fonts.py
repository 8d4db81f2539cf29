"""Fonts the training generators draw with.

Training uses Debian's DejaVu, Liberation and URW base-35 families (fonts-dejavu-core,
fonts-liberation, fonts-urw-base35) and a few display faces shipped inside the pinned
multicolorcaptcha wheel. GNU FreeFont (also inside that wheel, and fonts-freefont-ttf) is
kept OUT of training: the benchmark's third-party split draws with it, so that split measures
fonts the recogniser never saw.
"""

from __future__ import annotations

import functools
from pathlib import Path

import multicolorcaptcha

_DEBIAN_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation",
                "/usr/share/fonts/opentype/urw-base35")
# Symbol, dingbat and very thin faces are not text.
_SKIP = ("StandardSymbols", "D050000L", "DejaVuMathTeXGyre", "ExtraLight")
# Display faces from multicolorcaptcha that still read as letters to a person.
_DISPLAY = ("Aldrich-Regular", "Graduate-Regular", "Combo-Regular", "Elsie-Regular", "LondrinaSolid-Regular",
            "Pixellari", "Fibel Nord", "Fibel Nord Bold", "StalinistOne-Regular", "KaushanScript-Regular",
            "Bonbon-Regular", "Clayborn")
MULTICOLOR_DIR = Path(multicolorcaptcha.__file__).parent / "fonts"
EVAL_ONLY_PREFIX = "Free"  # GNU FreeFont: reserved for the third-party benchmark split


@functools.cache
def multicolor_fonts() -> tuple[str, ...]:
    """multicolorcaptcha's bundled fonts, without FreeFont."""
    return tuple(sorted(str(p) for p in MULTICOLOR_DIR.rglob("*.ttf") if not p.name.startswith(EVAL_ONLY_PREFIX)))


def _debian_fonts() -> list[str]:
    found = []
    for folder in _DEBIAN_DIRS:
        for path in sorted(Path(folder).glob("*.[ot]tf")):
            if not any(s in path.name for s in _SKIP):
                found.append(str(path))
    return found


TRAIN_FONTS: tuple[str, ...] = tuple(_debian_fonts() + [p for p in multicolor_fonts() if Path(p).stem in _DISPLAY])
if len(TRAIN_FONTS) < 20:
    raise RuntimeError("training fonts missing: apt-get install fonts-dejavu-core fonts-liberation fonts-urw-base35")
