"""Third-party text CAPTCHAs for the `third_party` section of benchmarks/captcha.py.

The recogniser's training and tuning never import this module. Four of these generators
(wheezy-captcha, flask-simple-captcha, kaptcha, light-captcha) have been training sources since
the sixth recipe and four more (deepcaptcha, fast-captcha, randcaptcha, pyimgcaptcha) since the
eighth (scripts/ocr_train/foreign.py, with their settings varied; here, their documented
defaults on other seeds): their figures are labelled as trained on. Two are sources
of the OCR gate's calibration (CALIBRATED_ON), labelled so. The others are
EVALUATION ONLY, so their figures measure generalisation; some have been looked at since they
were added, and count as seen for later changes (docs/captcha-ocr.md says which and when). Each is used as its
documentation shows it, and an answer is judged the way the generator's users would judge it
(the generators in other languages are run by benchmarks/_generator_runtimes.py):
- wheezy-captcha 3.2.2: the README's drawing chain (background, warped, rotated and offset
  text, a curve, noise, smoothing), four characters from A-Z and 0-9, FreeFont Bold faces;
  judged exactly (wheezy leaves checking to the application; its example codes are capitals).
- flask-simple-captcha 5.5.5: its default configuration (six capitals, look-alikes removed,
  RobotoMono bundled with it, JPEG); judged exactly, as its own `CAPTCHA.verify` does (it checks
  a salted hash of the typed text first, so a lower-case answer fails although the text is
  upper-cased for the final comparison).
- kaptcha 1.0.1 (added 2026-12-05, after the third recipe was frozen): its README's default,
  `Captcha().letter_digit(length=4)`: four letters of both cases and digits in the fonts it
  bundles, interference chips, JPEG; judged exactly (its examples keep the case, "7w8W").
- CaptchaGenerator 2.0.0 (`TextCaptcha`, added 2026-12-05 with light-captcha, after the
  recogniser, its vote and threshold were frozen): its Quick Start's call (six characters from
  its look-alike-free alphabet, 720x240, three colours, medium difficulty, no fonts given), each
  of the five styles its docs list (modern, minimal, wave, arc, mesh) drawn in turn at random;
  judged ignoring case, as its docs compare (`casefold`).
- light-captcha 0.0.5 (same day, same terms): its README's `generate("english")` (digits, its
  bundled font, 250x80); judged exactly. It seeds itself from the clock, so its draws are not
  repeatable run to run.
- easy-captcha-python 1.0.0 (added 2026-12-06, never looked at; calibrated on since the same day,
  after the split's third run: CALIBRATED_ON, scripts/ocr_train/calibration_only.py): `SpecCaptcha()` as its README
  shows it (130x48, five characters of its default type, its ten bundled fonts); judged ignoring
  case, as the README's check lower-cases both sides. It draws from `secrets`, so its draws are
  not repeatable run to run.
- captchagen 0.1.0 (same day, same terms; calibrated on since, as easy-captcha-python): `CaptchaGenerator(fonts_dir, CaptchaConfig(...))`
  with its switches for rotated characters, dot and line noise and random colours on (its
  defaults draw plain text), 4-6 letters and digits (its defaults), 200x80, Debian's DejaVu
  folder as the fonts it asks for (training draws with DejaVu too: this one measures an unseen
  way of drawing, not an unseen face); judged exactly (it has no check of its own).
Second batch, added 2026-12-06 (seen since its first run, and training sources since the eighth
recipe, with their settings varied there: TRAINED_ON): all four
draw with the global `random` module (deepcaptcha with numpy's too), seeded here from the rng, so
their draws are repeatable run to run.
- deepcaptcha 1.0.2 (MIT): its Quick Start's `DeepCaptcha(ai_resistance_level=1).generate()`,
  which is every default (280x100, five characters from A-Z and 0-9, sheared glyphs, eight strike
  lines, dots, blur, level-1 pixel perturbations), in the 24 Roboto bold, black and semi-bold
  cuts it bundles, at three sizes (Roboto is not a training face; RobotoMono is, through the
  sixth recipe's flask-simple-captcha source); its font list comes in
  directory order, sorted here so a seed draws the same faces on every machine. Judged exactly
  (it has no check of its own; its text is capitals and digits, O and 0, I and 1 all kept).
- fast-captcha 0.3.2 (MIT): its README's `img_captcha()` (120x40, four letters of both cases and
  digits, a colour per glyph from the whole range, so some are faint on its white, four lines, JPEG
  bytes, served as they come). Its default font is one of the nine display faces it bundles,
  picked once when the module is imported; here one of them is picked per challenge (from the
  sorted list) so that a run covers them all. Judged ignoring case, as fastapi_best_architecture,
  its author's FastAPI project that serves it at login, compares (`.lower()` on both sides);
  several of its faces draw lower-case letters as capitals anyway.
- randcaptcha 0.2 (MIT): `CreateImageCaptcha(fonts, 25)` as its docstring's example calls it (five
  characters from A-Z and 0-9, each rotated up to 60 degrees, a curve, the grey (200, 200, 200)
  background, JPEG). It asks the caller for fonts: one of GNU FreeFont's regular Sans, Serif and
  Mono per challenge (wheezy uses the bold cuts; the sixth recipe's wheezy source draws with
  FreeSans and FreeSerif too: two of the three faces are seen, the drawing is not). Its default
  output path fails on Linux (`TemporaryFile(delete=...)`), so it writes a .jpg in a temporary
  folder, the file type its default would give. The image is about 35 px high. Judged exactly (it
  has no check of its own; its text is capitals and digits).
- pyimgcaptcha 0.1.2 (MIT): `generate_captcha(path)` with its defaults (300x200, six characters
  from A-Z less I and O and from 2-9, each rotated up to 30 degrees, 1,000 dots, seven grey lines,
  PNG). It asks for "arial.ttf" and, where there is none (Debian, CI), draws with Pillow's
  built-in Aileron Regular at 30 px. Judged exactly, as its own demo compares (`answer ==
  captcha_text`).
Third batch, added 2026-12-06 after the seventh recipe was frozen, in JavaScript (Node.js, the
packages pinned in benchmarks/node/package-lock.json, drawn by benchmarks/node/draw.js with
Math.random and crypto.randomBytes seeded from the rng, so draws are repeatable); never run
through the readers before the run that reports them; I looked at three images of each to check
that each shows its text:
- svg-captcha 1.4.0 (MIT; among the most used CAPTCHA packages on npm): its README's `create()`
  (four letters of both cases and digits, 150x50, one noise line, its bundled font as SVG paths)
  and, in turn, the options its README lists with their example values (no 0, o, 1, i; colours;
  a #cc9966 background). Pages serve the SVG; Chromium paints it on white as a page would, and
  the picture is that. Judged exactly (it leaves the check to the application, which is given
  `captcha.text`).
- trek-captcha 0.4.0 (MIT): its README's `await captcha()` (five small letters, a random style
  of its own, after Ruby's rucaptcha; GIF bytes, served as they come). Judged exactly (no check of
  its own; its letters are all small).
Fourth batch, added 2026-12-06 after the eighth recipe was frozen, in PHP and Perl from Debian's
packages (benchmarks/debian/draw.php and draw.pl, seeded from the rng; installed by
scripts/third_party_generators.sh); never run through the readers before the run that reports
them; I looked at three images of each to check that each shows its text:
- Gregwar/Captcha 1.1.9 (MIT; php-gregwar-captcha, behind Symfony's and Laravel's captcha
  bundles): its README's `build()` and `get()` (150x40 JPEG, five characters of both cases and
  digits, distortion, lines, a random background). Debian's package draws with the faces of its
  own default list (Cantarell, Lato, Linux Libertine, Quicksand, Radis Sans, StayPuft, Summersby,
  Vera): Cantarell, Lato and Quicksand are training faces, Linux Libertine a calibration face,
  Vera DejaVu's ancestor; the drawing is unseen. Judged by its own `testPhrase`: case ignored, 0
  read as o and 1 as l.
- Text_CAPTCHA 1.0.2 (BSD; php-text-captcha, PEAR): its Image driver as its example sets it up
  (200x80 PNG, light text on #555555, three pairs of lines and circles, anti-aliased, eight
  lower-case letters from Text_Password). The example names COUR.TTF, which Debian does not
  ship: GNU FreeMono stands in (a Courier of the same shape). Text_Password draws from PHP's
  `random_int`, which nothing seeds: its texts are not repeatable run to run. Judged exactly.
- GD::SecurityImage 1.75 (Perl's licence; libgd-securityimage-perl): in turn at random, its
  SYNOPSIS's first example (80x30, ten lines, GD's "giant" face, the rect style, PNG) and the
  configuration Catalyst::Plugin::Captcha's documentation gives it (seven lines, the circle
  style, 100 particles, JPEG); six digits, its default. Its SYNOPSIS's TrueType example, scrambled
  at 100x40, cuts its own characters off, and no documented user draws it so: not used. Judged
  exactly.
- Authen::Captcha 1.024 (GPL; libauthen-captcha-perl): its SYNOPSIS's `generate_code(5)` (its
  bundled pictures of letters and digits on its bundled backgrounds, PNG). Judged as its own
  `check_code` does (lower-cased; its letters are all small).
Fifth batch, added 2026-12-06 after the ninth recipe was frozen, in JavaScript (benchmarks/node,
as the third batch) and Ruby (benchmarks/debian/draw.rb, from Debian's packages, installed by
scripts/third_party_generators.sh), both seeded from the rng, so draws are repeatable; blind:
never run through the readers before the run that reports them; I looked at three images of each
to check that each shows its text:
- captchapng 0.0.1 (BSD; npm, with pnglib 0.0.1, its PNG writer; George Chan's, pure JavaScript):
  its README's server as written, `new captchapng(80, 30, parseInt(Math.random()*9000+1000))`
  with its two colours (a transparent background, grey (80, 80, 80) paint): four digits drawn
  from its two built-in bitmap digit sets, each at a random offset in its slot, PNG bytes served
  as they come (transparent: the OCR solver lays them on white, as a white page shows them).
  Judged exactly (it has no check of its own; digits only, so case never arises).
- simple_captcha2 0.5.0 (MIT; ruby-simple-captcha2, a Rails engine drawing with ImageMagick's
  `convert`: a label, a wave, an implosion): in turn at random, its defaults (100x28, five
  capitals, the simply_blue style, low distortion, medium implosion) and the initializer its
  README shows (120x40, six capitals, simply_green, medium distortion, low implosion); JPEG.
  Its README says ImageMagick's default font is Arial, which Debian does not ship, and gives
  `sc.font = "DejaVu-Sans"`: used for both (DejaVu Sans is a training face; ImageMagick's wave
  and implosion are an unseen way of drawing). Its text is kept in a database table by the
  application; a hash stands in for it (benchmarks/debian/draw.rb). Judged as its own checks
  (`simple_captcha_valid?`, `valid_with_captcha?`) judge: spaces dropped, the answer
  upper-cased, so case is ignored.
Sixth batch, added 2026-12-06 after the ninth recipe was frozen, in JavaScript run by Chromium (its
module from benchmarks/node) and in Python (pinned in requirements-dev.txt), both seeded from the
rng, so draws are repeatable; blind: never run through the readers before the run that reports
them; I looked at two images of each to check that each shows its text:
- react-simple-captcha 9.3.1 (MIT; npm, Masroor Ejaz's; about 38,000 downloads a month when it was
  chosen, after svg-captcha the most used text CAPTCHA there): a helper for React pages that draws
  in the visitor's browser, on a canvas. Its README's `loadCaptchaEnginge(6)`, every default: six
  characters from a-z, A-Z and 0-9, a 150x30 canvas filled white, each character in black
  "italic 20px Arial" at 20 px steps, 12 to 15 px down, no noise. Chromium runs it as its page
  would: the page holds the HTML its `<LoadCanvasTemplate />` renders (the canvas and its reload
  link) and imports its module as it ships; the module's two imports, react (for `Component`) and
  react-html-parser (which turns that HTML into React elements), are given stubs, as neither takes
  part in the drawing. Math.random is seeded as in benchmarks/node/draw.js. The image is the
  canvas's own PNG (`toDataURL`), what the page shows. Debian ships no Arial: fontconfig hands
  Chromium its metric twin, Arimo (fonts-croscore) where it is installed, else Liberation Sans
  (fonts-liberation, which scripts/third_party_generators.sh installs), one design and a training
  face in both packages; the drawing (a browser's canvas text, italic, 20 px) is unseen. The text
  is kept inside its module, not exported: the characters it paints are recorded as it paints them
  and its own `validateCaptcha(text, false)` confirms them. Judged exactly, as `validateCaptcha`
  does (`!=`).
- graphic-verification-code 1.1.1 (BSD; PyPI, the module `gvcode`, Brightcells'): its README's
  `gvcode.base64()`, every default: a 120x30 PNG, four different characters from a set of both
  cases and 3-9 without look-alikes (no i, l, o, z, I, L, O, Z, 0-2), in the SimSun it bundles
  (not a training face) at 18 px, each in a random colour, one or two lines of random colours,
  about 2% of the pixels dotted, a slight perspective warp, then Pillow's EDGE_ENHANCE_MORE. It
  draws with the global random module, seeded here from the rng. Judged exactly (it has no check
  of its own; its set keeps both cases of the letters it allows).
Seventh batch, added 2026-12-07 after the reading code was frozen at c15716b, in Python (pinned in
requirements-dev.txt) and in JavaScript run by Chromium (its module and the libraries it runs on
from benchmarks/node), all seeded from the rng, so draws are repeatable; blind: never run through
the readers before the run that reports them; I looked at two images of each to check that each
shows its text:
- discord-py-captcha 1.0.3 (Apache-2.0; PyPI, the module `discord_captcha`, on discord.py 2.7.1):
  the verification a Discord bot sends a member who joins a server. Its README sets up `Captcha(bot,
  CaptchaOptions(...))`, whose `present` draws with `create_captcha(6, blacklist="")` under its
  default options (case_sensitive=True): that call, as `present` makes it. A 400x250 PNG: thick
  black lines across and down, 200 black discs, the six characters from a-z, A-Z and 0-9 (nothing
  left out: 0 and O, 1, l and I all kept) in one line of Pillow's built-in Aileron at 80 px (not a
  training face itself; pyimgcaptcha, a training source, falls back to it at 30 px), turned up to
  about 29 degrees either way and placed at random, then 5,000 dots of random colours a little
  transparent (alpha 160, the picture served as it comes: a page shows it on white). Its drawing
  follows @haileybot/captcha-generator's (npm: the same canvas, lines, discs and dots), which needs
  node-canvas, a native build. Its layout draws with the global random module, seeded here; its
  text comes from `secrets`, drawn from the rng instead. Judged exactly, as `present` compares
  (`compare == captcha_answer`, the reply kept as typed).
- gbkomi-captcha 0.1.2 (MIT; PyPI, the module `gbkomi_captcha`, with Flask, FastAPI and Telegram
  integrations): its Quick Start's `CaptchaGenerator().generate()`, every default: a 160x60 PNG (as
  its Flask and FastAPI routes serve it), four digits (repeats allowed), each turned up to 20
  degrees and set 3 px up or down, on a background of faintly coloured stripes (240 grey, 10 either
  way per row), three lines and 1.5% of the pixels dotted in random colours. Its wave distortion
  is passed to Pillow as an identity affine map, so it draws none. It looks for faces in ./fonts
  (relative to the working directory, which it creates empty) and, finding none, draws with
  Pillow's default face, Aileron at 10 px, so the digits are about 7 px high; here it is told of
  no folder rather than left to make one in the checkout (the same drawing). It draws with the
  global random module, seeded here. Judged exactly, as its `verify_challenge` compares
  (`stored == user_answer`; digits only, so case never arises).
- react-captcha-code 1.0.7 (ISC; npm, about 940 downloads a month when it was chosen): a React
  component that draws on a canvas in the visitor's browser and hands the code to the page through
  `onChange`. In turn at random, its defaults (four characters) and its README's example
  (`<Captcha charNum={6} onChange={...} />`): a 100x40 canvas filled #DFF0D8 (pale green), each
  character outlined only (`strokeText`) in a random colour of the whole range, so some are faint,
  in "25px serif", with a line of the same colour across the canvas, each character and its line
  turned up to 5 degrees about the canvas's top left corner, so the last characters may lose their
  tails at the bottom; characters from 1-9 and a small a-z less o. Chromium runs it as its page would: React 16.14 and
  ReactDOM, react-is, styled-components 5, lodash and classnames as their UMD builds ship (from
  benchmarks/node, installed beside it as its dependencies and peers), its ES module as it ships,
  rendered with `ReactDOM.render`, Math.random seeded as in benchmarks/node/draw.js; the image is
  the canvas's own PNG (`toDataURL`), what the page shows. Chromium's serif is Times New Roman,
  which fontconfig hands to its metric twin Tinos (fonts-croscore) where it is installed, else
  Liberation Serif (fonts-liberation): one design, and a training face in both packages; outlined
  letters are an unseen way of drawing. The code is what `onChange` hands the page, checked against
  the characters it strokes. Judged exactly (it has no check of its own; its letters are all
  small).
"""

from __future__ import annotations

import base64
import functools
import io
import random
import string
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from _generator_runtimes import DEBIAN_DIR, node_draw, painter, react_captcha_code_draw, react_simple_draw, script_draw

FREEFONT = Path("/usr/share/fonts/truetype/freefont")


@dataclass(frozen=True)
class Challenge:
    image: bytes
    text: str
    case_sensitive: bool
    alike: str = ""  # pairs of characters its check takes as one ("0o1l": 0 as o, 1 as l), after case

    def check(self, answer: str) -> bool:
        """Whether the generator's users would accept `answer` (whitespace is never part of it)."""
        answer = "".join(answer.split())
        if self.case_sensitive:
            return answer == self.text
        fold = str.maketrans(self.alike[0::2], self.alike[1::2])
        return answer.lower().translate(fold) == self.text.lower().translate(fold)


def _png(image) -> bytes:
    """A Pillow image as PNG bytes, what a page would serve."""
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def wheezy(rng: random.Random) -> Challenge:
    from wheezy.captcha.image import background, captcha, curve, noise, offset, rotate, smooth, text, warp

    fonts = [str(FREEFONT / f) for f in ("FreeMonoBold.ttf", "FreeSansBold.ttf", "FreeSerifBold.ttf")]
    missing = [f for f in fonts if not Path(f).is_file()]
    if missing:
        raise RuntimeError(f"missing {missing}: apt-get install fonts-freefont-ttf")
    random.seed(rng.getrandbits(64))  # wheezy draws with the global random module
    draw = captcha(drawings=[background(), text(fonts=fonts, drawings=[warp(), rotate(), offset()]),
                             curve(), noise(), smooth()])
    code = "".join(rng.sample(string.ascii_uppercase + string.digits, 4))
    return Challenge(_png(draw(list(code))), code, case_sensitive=True)


def flask_simple(rng: random.Random) -> Challenge:
    from flask_simple_captcha import CAPTCHA

    random.seed(rng.getrandbits(64))
    maker = CAPTCHA(config={"SECRET_CAPTCHA_KEY": "benchmark-only-key-" + "x" * 32})
    maker.characters = tuple(sorted(maker.characters))  # it builds them from a set: fix the order per run
    made = maker.create()
    image = base64.b64decode(made["img"].split(",", 1)[-1])
    return Challenge(image, made["text"], case_sensitive=True)


def kaptcha_default(rng: random.Random) -> Challenge:
    import kaptcha

    random.seed(rng.getrandbits(64))  # kaptcha draws with the global random module
    for _ in range(50):
        try:
            text, data = kaptcha.Captcha().letter_digit(length=4)
            break
        except ValueError:  # a chip of negative size, which today's Pillow refuses to draw: draw again
            continue
    else:
        raise RuntimeError("kaptcha could not draw a challenge in 50 tries")
    return Challenge(base64.b64decode(data.split(",", 1)[-1]), text, case_sensitive=True)


def captchagenerator_text(rng: random.Random) -> Challenge:
    import tempfile

    from CaptchaGenerator import CaptchaConfig, TextCaptcha

    style = rng.choice(("modern", "minimal", "wave", "arc", "mesh"))  # the five styles its docs list
    with tempfile.TemporaryDirectory() as folder:
        text = TextCaptcha(CaptchaConfig(width=720, height=240, random_seed=rng.getrandbits(32))).generate(
            number_gen=6, values_captcha="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", name_export="challenge",
            path_export=folder, fonts=[], colors=["navy", "darkred", "darkgreen"], backgrounds=[],
            difficulty="medium", style=style)
        image = (Path(folder) / "challenge.png").read_bytes()
    return Challenge(image, text, case_sensitive=False)


def light_captcha(rng: random.Random) -> Challenge:
    from light_captcha import CaptchaGenerator, generator

    random.seed(rng.getrandbits(64))
    # It seeds its drawing from the clock's milliseconds (modulo 10^6): given here from the rng, in
    # the upper half, which training never draws (scripts/ocr_train/foreign.py:LIGHT_TRAIN_MS), so
    # the split is repeatable and apart from training.
    ms = rng.randrange(500_000, 1_000_000)
    with mock.patch.object(generator, "time", types.SimpleNamespace(time=lambda: (ms + 0.5) / 1000)):
        made = CaptchaGenerator().generate("english")
    return Challenge(_png(made.data), str(made.code), case_sensitive=True)


def easy_captcha_spec(rng: random.Random) -> Challenge:
    from easy_captcha import SpecCaptcha

    made = SpecCaptcha()  # draws from `secrets`: nothing to seed
    out = io.BytesIO()
    made.out(out)
    return Challenge(out.getvalue(), made.text(), case_sensitive=False)


def captchagen(rng: random.Random) -> Challenge:
    from CaptchaGen import CaptchaConfig, CaptchaGenerator

    random.seed(rng.getrandbits(64))
    config = CaptchaConfig(rotate=True, noise=True, random_color=True)
    image, text = CaptchaGenerator("/usr/share/fonts/truetype/dejavu", config).generate()
    return Challenge(_png(image.convert("RGB")), text, case_sensitive=True)


@functools.cache
def _deepcaptcha_maker():
    from deepcaptcha import DeepCaptcha

    maker = DeepCaptcha(ai_resistance_level=1)  # its Quick Start; every other setting is its default
    maker.fonts.sort(key=lambda font: (Path(font.path).name, font.size))  # directory order: fix it
    return maker


def deepcaptcha_default(rng: random.Random) -> Challenge:
    import numpy as np

    maker = _deepcaptcha_maker()
    random.seed(rng.getrandbits(64))
    np.random.seed(rng.getrandbits(32))  # its pixel perturbations draw from numpy's global generator
    image, text = maker.generate()
    return Challenge(_png(image), text, case_sensitive=True)


def fast_captcha(rng: random.Random) -> Challenge:
    from fast_captcha import get_ttf, img_captcha

    font = rng.choice(sorted(get_ttf()))  # its default picks one of these once per process
    random.seed(rng.getrandbits(64))
    image, text = img_captcha(font_type=font)  # JPEG bytes
    return Challenge(image.getvalue(), text, case_sensitive=False)


def randcaptcha(rng: random.Random) -> Challenge:
    import tempfile

    from randcaptcha import CreateImageCaptcha

    fonts = [str(FREEFONT / f) for f in ("FreeSans.ttf", "FreeSerif.ttf", "FreeMono.ttf")]
    missing = [f for f in fonts if not Path(f).is_file()]
    if missing:
        raise RuntimeError(f"missing {missing}: apt-get install fonts-freefont-ttf")
    font = rng.choice(fonts)
    random.seed(rng.getrandbits(64))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "captcha.jpg"
        text, _ = CreateImageCaptcha([font], 25, filename_out=str(path))
        image = path.read_bytes()
    return Challenge(image, text, case_sensitive=True)


def pyimgcaptcha(rng: random.Random) -> Challenge:
    import tempfile

    from pyimgcaptcha import generate_captcha

    random.seed(rng.getrandbits(64))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "captcha.png"
        text = generate_captcha(str(path))
        image = path.read_bytes()
    return Challenge(image, text, case_sensitive=True)


def svg_captcha(rng: random.Random) -> Challenge:
    made = node_draw("svg-captcha", rng.getrandbits(32))
    return Challenge(painter().png(made["svg"]), made["text"], case_sensitive=True)


def trek_captcha(rng: random.Random) -> Challenge:
    made = node_draw("trek-captcha", rng.getrandbits(32))
    return Challenge(base64.b64decode(made["gif_base64"]), made["text"], case_sensitive=True)


def _debian(runtime: str, script: str, generator: str, rng: random.Random, **judged) -> Challenge:
    """One challenge from a PHP, Perl or Ruby generator of Debian's (benchmarks/debian, seeded)."""
    made = script_draw(runtime, DEBIAN_DIR / script, generator, rng.getrandbits(31))
    return Challenge(base64.b64decode(made["image_base64"]), made["text"], **judged)


def gregwar_captcha(rng: random.Random) -> Challenge:
    # Its own check (`testPhrase`) lower-cases both sides and reads 0 as o and 1 as l.
    return _debian("php", "draw.php", "gregwar-captcha", rng, case_sensitive=False, alike="0o1l")


def text_captcha(rng: random.Random) -> Challenge:
    return _debian("php", "draw.php", "text-captcha", rng, case_sensitive=True)


def gd_securityimage(rng: random.Random) -> Challenge:
    return _debian("perl", "draw.pl", "gd-securityimage", rng, case_sensitive=True)


def authen_captcha(rng: random.Random) -> Challenge:
    # Its own check (`check_code`) lower-cases the answer; its letters are all small.
    return _debian("perl", "draw.pl", "authen-captcha", rng, case_sensitive=False)


def captchapng(rng: random.Random) -> Challenge:
    made = node_draw("captchapng", rng.getrandbits(32))
    return Challenge(base64.b64decode(made["png_base64"]), made["text"], case_sensitive=True)


def simple_captcha2(rng: random.Random) -> Challenge:
    # Its own checks upper-case the answer (and drop its spaces) before comparing: case ignored.
    return _debian("ruby", "draw.rb", "simple-captcha2", rng, case_sensitive=False)


def gvcode_default(rng: random.Random) -> Challenge:
    import gvcode

    random.seed(rng.getrandbits(64))  # it draws with the global random module
    data, text = gvcode.base64()  # its README's call: every default, PNG
    return Challenge(base64.b64decode(data), text, case_sensitive=True)


def react_simple_captcha(rng: random.Random) -> Challenge:
    made = react_simple_draw(rng.getrandbits(32))
    # Its own check, `validateCaptcha`, compares with `!=`: exactly, case and all.
    return Challenge(base64.b64decode(made["png"].split(",", 1)[1]), made["text"], case_sensitive=True)


def _run_async(coroutine):
    """A library's coroutine on a loop of its own (the benchmark's own loop is not running here)."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def discord_py_captcha(rng: random.Random) -> Challenge:
    import sys

    import discord_captcha  # noqa: F401 -- its package, as a bot imports it (discord.py underneath)

    drawing = sys.modules["discord_captcha.create_captcha"]  # the package's name for it is the function
    random.seed(rng.getrandbits(64))  # its lines, circles, angle, place and dots
    text_rng = random.Random(rng.getrandbits(64))  # its text comes from `secrets`: drawn from the rng instead
    with mock.patch.object(drawing, "secrets", types.SimpleNamespace(choice=text_rng.choice)):
        # What `Captcha.present` draws with its default options (case_sensitive=True): six characters,
        # nothing left out of its set.
        made = _run_async(drawing.create_captcha(6, blacklist=""))
    # `present` compares the message exactly (`compare == captcha_answer`), case and all.
    return Challenge(made.image, made.text, case_sensitive=True)


def gbkomi_captcha(rng: random.Random) -> Challenge:
    from gbkomi_captcha import CaptchaGenerator
    from gbkomi_captcha.core import fonts

    random.seed(rng.getrandbits(64))  # it draws with the global random module
    # It looks for faces in ./fonts (relative to the working directory), creating the folder empty
    # when there is none, and then draws with Pillow's default face: the same without the folder.
    with mock.patch.object(fonts, "load_fonts", lambda font_dir="fonts": []):
        image, text = CaptchaGenerator().generate()  # its Quick Start's call: every default
    # Its Flask and FastAPI routes serve the image as PNG; `verify_challenge` compares exactly.
    return Challenge(_png(image), text, case_sensitive=True)


def react_captcha_code(rng: random.Random) -> Challenge:
    # In turn at random: its defaults (four characters) and its README's example (`charNum={6}`).
    char_num = rng.choice((None, 6))
    made = react_captcha_code_draw(rng.getrandbits(32), char_num)
    # It hands the code to the page (`onChange`) and has no check of its own; its letters are all small.
    return Challenge(base64.b64decode(made["png"].split(",", 1)[1]), made["text"], case_sensitive=True)


# Training sources since the sixth recipe (scripts/ocr_train/foreign.py): reported, labelled as trained on.
# The second batch (deepcaptcha, fast-captcha, randcaptcha, pyimgcaptcha) since the eighth recipe.
TRAINED_ON = frozenset({"wheezy-captcha", "flask-simple-captcha", "kaptcha", "light-captcha",
                        "deepcaptcha", "fast-captcha", "randcaptcha", "pyimgcaptcha"})
# Sources of the OCR gate's calibration since 2026-12-06 (scripts/ocr_train/calibration_only.py,
# their settings varied there): reported, labelled as calibrated on.
CALIBRATED_ON = frozenset({"easy-captcha-python", "captchagen"})

GENERATORS: dict[str, Callable[[random.Random], Challenge]] = {
    "wheezy-captcha": wheezy,
    "flask-simple-captcha": flask_simple,
    "kaptcha": kaptcha_default,
    "captchagenerator-text": captchagenerator_text,
    "light-captcha": light_captcha,
    "easy-captcha-python": easy_captcha_spec,
    "captchagen": captchagen,
    # Second batch (2026-12-06): never run through the readers.
    "deepcaptcha": deepcaptcha_default,
    "fast-captcha": fast_captcha,
    "randcaptcha": randcaptcha,
    "pyimgcaptcha": pyimgcaptcha,
    # Third batch (2026-12-06), in JavaScript: added after the seventh recipe was frozen, never
    # run through the readers before the run that reports them.
    "svg-captcha": svg_captcha,
    "trek-captcha": trek_captcha,
    # Fourth batch (2026-12-06), PHP and Perl from Debian's packages: added after the eighth recipe
    # was frozen, never run through the readers before the run that reports them.
    "gregwar-captcha": gregwar_captcha,
    "text-captcha": text_captcha,
    "gd-securityimage": gd_securityimage,
    "authen-captcha": authen_captcha,
    # Fifth batch (2026-12-06), JavaScript and Ruby (Debian): added after the ninth recipe was
    # frozen; blind, never run through the readers before the run that reports them.
    "captchapng": captchapng,
    "simple-captcha2": simple_captcha2,
    # Sixth batch (2026-12-06), JavaScript in Chromium and Python: added after the ninth recipe was
    # frozen; blind, never run through the readers before the run that reports them.
    "react-simple-captcha": react_simple_captcha,
    "graphic-verification-code": gvcode_default,
    # Seventh batch (2026-12-07): added after the reading code was frozen at c15716b; blind, never run
    # through the readers before the run that reports them.
    "discord-py-captcha": discord_py_captcha,
    "gbkomi-captcha": gbkomi_captcha,
    "react-captcha-code": react_captcha_code,
}
