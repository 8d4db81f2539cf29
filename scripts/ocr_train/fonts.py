"""Fonts the training generators draw with.

Training uses Debian's DejaVu, Liberation and URW base-35 families (fonts-dejavu-core,
fonts-liberation, fonts-urw-base35), a few display faces shipped inside the pinned
multicolorcaptcha wheel, and the regular and bold cuts of a wider set of open-licence Debian
families (`EXTRA_PACKAGES`: sans, serif, rounded, condensed and a dozen monospace faces;
light, thin and small-caps cuts are left out). GNU FreeFont (also inside that wheel, and
fonts-freefont-ttf) and the Roboto families are not among them. Since the sixth recipe two of
the sources in foreign.py bring their own: wheezy-captcha draws with five FreeFont cuts beside
two of these, flask-simple-captcha with the RobotoMono it bundles.
Another 24 families are held out of training altogether (heldout.py): the gate's calibration
draws with them to stand for fonts the recogniser never saw.
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
EVAL_ONLY_FAMILIES = ("Free", "Roboto")  # never drawn with, whatever is installed
# Debian package -> the cuts used (file stems under /usr/share/fonts). scripts/train_ocr.sh installs them.
EXTRA_PACKAGES: dict[str, tuple[str, ...]] = {
    "fonts-hack": ("Hack-Regular", "Hack-Bold", "Hack-Italic"),
    "fonts-inconsolata": ("Inconsolata",),
    "fonts-noto-mono": ("NotoSansMono-Regular", "NotoSansMono-Bold"),
    "fonts-jetbrains-mono": ("JetBrainsMono-Regular", "JetBrainsMono-Bold", "JetBrainsMono-Italic",
                             "JetBrainsMono-ExtraBold"),
    "fonts-firacode": ("FiraCode-Regular", "FiraCode-Bold"),
    "fonts-open-sans": ("OpenSans-Regular", "OpenSans-Bold", "OpenSans-Italic", "OpenSans-CondBold",
                        "OpenSans-ExtraBold"),
    "fonts-lato": ("Lato-Regular", "Lato-Bold", "Lato-Black", "Lato-Italic"),
    "fonts-cantarell": ("Cantarell-Regular", "Cantarell-Bold"),
    "fonts-croscore": ("Arimo-Regular", "Arimo-Bold", "Cousine-Regular", "Cousine-Bold", "Tinos-Regular",
                       "Tinos-Bold"),
    "fonts-crosextra-carlito": ("Carlito-Regular", "Carlito-Bold"),
    "fonts-comic-neue": ("ComicNeue-Regular", "ComicNeue-Bold"),
    "fonts-oxygen": ("Oxygen-Sans", "Oxygen-Sans-Bold", "OxygenMono-Regular"),
    "fonts-quicksand": ("Quicksand-Medium", "Quicksand-Bold"),
    "fonts-go": ("Go-Regular", "Go-Bold", "Go-Mono", "Go-Mono-Bold"),
    "fonts-anonymous-pro": ("Anonymous Pro", "Anonymous Pro B"),
    "fonts-dejavu-extra": ("DejaVuSansCondensed", "DejaVuSansCondensed-Bold", "DejaVuSerifCondensed",
                           "DejaVuSansMono-Oblique"),
    "fonts-league-spartan": ("LeagueSpartan-Regular", "LeagueSpartan-Bold"),
    "fonts-b612": ("B612-Regular", "B612-Bold", "B612Mono-Regular", "B612Mono-Bold"),
    "fonts-inter": ("Inter-Regular", "Inter-Bold", "Inter-SemiBold", "Inter-Italic"),
}


@functools.cache
def multicolor_fonts() -> tuple[str, ...]:
    """multicolorcaptcha's bundled fonts, without FreeFont."""
    return tuple(sorted(str(p) for p in MULTICOLOR_DIR.rglob("*.ttf") if not p.name.startswith(EVAL_ONLY_PREFIX)))


# fonts-dejavu-extra installs into the same folder as fonts-dejavu-core: only core's six are
# taken from it here (the extra cuts wanted are named in EXTRA_PACKAGES).
_DEJAVU_CORE = {f"DejaVu{face}{cut}" for face in ("Sans", "SansMono", "Serif") for cut in ("", "-Bold")}


def _debian_fonts() -> list[str]:
    found = []
    for folder in _DEBIAN_DIRS:
        for path in sorted(Path(folder).glob("*.[ot]tf")):
            if any(s in path.name for s in _SKIP) or (folder.endswith("dejavu") and path.stem not in _DEJAVU_CORE):
                continue
            found.append(str(path))
    return found


def installed_cuts(packages: dict[str, tuple[str, ...]], role: str, listed_in: str) -> tuple[str, ...]:
    """The paths of the cuts named in `packages` (Debian package -> file stems), in their order; a
    missing one is an error (the data would silently differ from the recipe's). `role` and
    `listed_in` word the error."""
    installed = {p.stem: str(p) for p in sorted(Path("/usr/share/fonts").rglob("*.[ot]tf"))}
    wanted = [stem for stems in packages.values() for stem in stems]
    missing = [stem for stem in wanted if stem not in installed]
    if missing:
        raise RuntimeError(f"{role} fonts missing ({', '.join(missing[:4])}…): scripts/train_ocr.sh installs "
                           f"the packages in {listed_in}")
    return tuple(installed[stem] for stem in wanted)


TRAIN_FONTS: tuple[str, ...] = tuple(_debian_fonts() + [p for p in multicolor_fonts() if Path(p).stem in _DISPLAY]
                                     + list(installed_cuts(EXTRA_PACKAGES, "training",
                                                           "scripts/ocr_train/fonts.py:EXTRA_PACKAGES")))
if len(TRAIN_FONTS) < 20:
    raise RuntimeError("training fonts missing: apt-get install fonts-dejavu-core fonts-liberation fonts-urw-base35")
if any(Path(p).name.startswith(EVAL_ONLY_FAMILIES) for p in TRAIN_FONTS):
    raise RuntimeError("an evaluation-only font family is in the training fonts")
