"""Fonts kept out of training, to stand for the fonts of generators the recogniser never saw.

The gate's confidence (scripts/ocr_train/calibrate.py) must know what the readers do on text
drawn in an unknown face: there our recogniser is out of its depth and ddddocr, trained on far
more type, often is not. Calibrating on the training family alone teaches the opposite (our
recogniser is right there, ddddocr's disagreements are its mistakes). So the calibration data
is half the training family as drawn and half the family's own generators (`own`, `common`,
claptcha) drawing with these faces instead: 24 open-licence Debian families, regular and bold
cuts, that no recipe in the tree trains on (the fourth recipe, not adopted, once did).
scripts/train_ocr.sh installs them with the training fonts.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

from scripts.ocr_train import classic, sources, styles
from scripts.ocr_train.fonts import TRAIN_FONTS, installed_cuts

# Debian package -> the cuts used (file stems under /usr/share/fonts).
HELDOUT_PACKAGES: dict[str, tuple[str, ...]] = {
    "fonts-cabin": ("Cabin-Regular", "Cabin-Bold"),
    "fonts-comfortaa": ("Comfortaa-Regular", "Comfortaa-Bold"),
    "fonts-dosis": ("Dosis-Medium", "Dosis-Bold"),
    "fonts-karla": ("Karla-Regular", "Karla-Bold"),
    "fonts-manrope": ("Manrope-Regular", "Manrope-Bold"),
    "fonts-ebgaramond": ("EBGaramond12-Regular", "EBGaramond12-Bold"),
    "fonts-linuxlibertine": ("LinLibertine_R", "LinLibertine_RB", "LinBiolinum_R", "LinBiolinum_RB"),
    "fonts-clear-sans": ("ClearSans-Regular", "ClearSans-Bold"),
    "fonts-mononoki": ("mononoki-Regular", "mononoki-Bold"),
    "fonts-fantasque-sans": ("FantasqueSansMono-Regular", "FantasqueSansMono-Bold"),
    "fonts-play": ("Play-Regular", "Play-Bold"),
    "fonts-jura": ("Jura-Medium", "Jura-Bold"),
    "fonts-paratype": ("PTS55F", "PTS75F", "PTF55F", "PTM55F", "PTN57F"),
    "fonts-sil-andika": ("Andika-Regular", "Andika-Bold"),
    "fonts-sil-charis": ("CharisSIL-Regular", "CharisSIL-Bold"),
    "fonts-crosextra-caladea": ("Caladea-Regular", "Caladea-Bold"),
    "fonts-oldstandard": ("OldStandard-Regular", "OldStandard-Bold"),
    "fonts-averia-sans-gwf": ("AveriaSansGWF-Regular", "AveriaSansGWF-Bold"),
    "fonts-allerta": ("allerta_medium", "allerta_stencil"),
    "fonts-agave": ("agave-r-autohinted", "agave-b-autohinted"),
    "fonts-opendin": ("OSP-DIN",),
    "fonts-karmilla": ("Karmilla-Regular", "Karmilla-Bold"),
    "fonts-humor-sans": ("Humor-Sans",),
    "fonts-dkg-handwriting": ("dkg", "dkgBd"),
}
# The family's generators that take a font; they draw with the held-out faces here.
REDRAWN = ("own", "common", "claptcha")


@functools.cache
def heldout_fonts() -> tuple[str, ...]:
    """The held-out cuts' paths, in a fixed order; a missing one, or one that training draws
    with, is an error."""
    found = installed_cuts(HELDOUT_PACKAGES, "held-out", "scripts/ocr_train/heldout.py:HELDOUT_PACKAGES")
    trained = {Path(p).stem for p in TRAIN_FONTS} & {Path(p).stem for p in found}
    if trained:
        raise RuntimeError(f"held-out fonts are in training: {sorted(trained)}")
    return found


@contextlib.contextmanager
def _drawing_with(fonts: tuple[str, ...]) -> Iterator[None]:
    """The family's generators draw with `fonts` instead of the training fonts."""
    modules = (styles, classic, sources)
    saved = [m.TRAIN_FONTS for m in modules]
    for m in modules:
        m.TRAIN_FONTS = fonts
    try:
        yield
    finally:
        for m, fonts_before in zip(modules, saved, strict=True):
            m.TRAIN_FONTS = fonts_before


def draw(name: str, rng: random.Random) -> tuple[Image.Image, str]:
    """One image from the family's generator `name` (one of `REDRAWN`), in a held-out face."""
    with _drawing_with(heldout_fonts()):
        return sources.SOURCES[name][0](rng)
