"""How the OCR split runs the generators written in other languages (benchmarks/_ocr_third_party.py).

- `script_draw`: a program in its own runtime, `runtime script generator 1 seed`, printing a
  JSON list of one challenge (benchmarks/node/draw.js for the Node.js generators,
  benchmarks/debian/draw.php, draw.pl and draw.rb for Debian's PHP, Perl and Ruby ones);
- `painter()`: one Chromium for the process, on a thread of its own, that shows an SVG as a
  page does (`png`) or runs a page's own script (`run`);
- `react_simple_draw`: react-simple-captcha's module run in that Chromium as its page runs it.
- `react_captcha_code_draw`: react-captcha-code's component rendered in that Chromium on a page of its own.
"""

from __future__ import annotations

import atexit
import base64
import functools
import json
import queue
import shutil
import subprocess  # noqa: S404 -- node, php, perl, ruby, with fixed arguments, for the generators
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

NODE_DIR = Path(__file__).resolve().parent / "node"  # package.json, its lock, draw.js
DEBIAN_DIR = Path(__file__).resolve().parent / "debian"  # draw.php, draw.pl, draw.rb


def script_draw(runtime: str, script: Path, generator: str, seed: int) -> dict:
    """One challenge from a generator in another language: `runtime script generator 1 seed`
    prints a JSON list of one challenge (benchmarks/node/draw.js, benchmarks/debian/draw.php,
    draw.pl and draw.rb)."""
    program = shutil.which(runtime)
    if program is None:
        raise RuntimeError(f"{generator} needs {runtime} and its generator packages: run scripts/third_party_generators.sh")
    done = subprocess.run([program, str(script), generator, "1", str(seed)],  # noqa: S603
                          capture_output=True, text=True, timeout=60, cwd=script.parent)
    if done.returncode != 0 or not done.stdout.startswith("["):
        raise RuntimeError(f"{generator} drew nothing ({runtime} exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)[0]


def node_draw(generator: str, seed: int) -> dict:
    """One challenge from a JavaScript generator (benchmarks/node/draw.js, seeded)."""
    if not (NODE_DIR / "node_modules" / generator).is_dir():
        raise RuntimeError(f"{generator} needs benchmarks/node's packages: run scripts/third_party_generators.sh")
    return script_draw("node", NODE_DIR / "draw.js", generator, seed)


class _Chromium:
    """Chromium, as a page shows an SVG (on white) or runs a page's own script, on a thread of its
    own: the Playwright sync API refuses to run where an event loop is. Closed when the
    interpreter exits."""

    def __init__(self) -> None:
        self._jobs: queue.Queue = queue.Queue()
        threading.Thread(target=self._serve, name="chromium", daemon=True).start()
        atexit.register(self.close)

    def run(self, job: Callable[[Any], Any]) -> Any:
        """`job(page)` on the browser's thread: what it returns or raises. The page is shared; a job
        that changes more than its content (scripts, prototypes) opens a page of its own."""
        answer: queue.Queue = queue.Queue(1)
        self._jobs.put((job, answer))
        result = answer.get(timeout=60)
        if isinstance(result, Exception):
            raise result
        return result

    def png(self, svg: str) -> bytes:
        """An SVG as a page shows it, on white."""
        def paint(page) -> bytes:
            page.set_content(f'<body style="margin:0;background:#fff">{svg}</body>')
            return page.locator("svg").first.screenshot()

        return self.run(paint)

    def close(self) -> None:
        done: queue.Queue = queue.Queue(1)
        self._jobs.put((None, done))
        done.get(timeout=30)

    def _serve(self) -> None:
        from playwright.sync_api import sync_playwright

        from workers.envs.browser import CHROMIUM_ARGS  # the flags the platform's browsers run with

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(device_scale_factor=1)
            while True:
                job, answer = self._jobs.get()
                if job is None:
                    browser.close()
                    answer.put(None)
                    return
                try:
                    answer.put(job(page))
                except Exception as exc:  # noqa: BLE001 -- handed to the caller
                    answer.put(exc)


@functools.cache
def painter() -> _Chromium:
    return _Chromium()


# Math.random replaced by mulberry32 seeded with the page function's `seed` (as benchmarks/node/draw.js
# seeds it), so a browser-drawn challenge is the same for the same seed.
SEEDED_MATH_RANDOM = """  let state = seed >>> 0
  Math.random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
"""


# react-simple-captcha 9.3.1's page: the HTML its <LoadCanvasTemplate /> renders (a canvas and its
# reload link), and its module with its two imports, react (for Component) and react-html-parser
# (which turns that HTML into React elements), given stubs: neither takes part in the drawing.
_REACT_SIMPLE_PAGE = """<!doctype html>
<script type="importmap">{"imports": {
  "react": "data:text/javascript,export class Component {}",
  "react-html-parser": "data:text/javascript,export default function ReactHtmlParser() { return null }"}}</script>
<body style="margin:0;background:#fff"><div><canvas id="canv"></canvas><div><a id="reload_href"
  style="cursor: pointer; color: blue">Reload Captcha</a></div></div></body>"""
# Math.random seeded (mulberry32, as benchmarks/node/draw.js), the characters it paints recorded
# (its text is kept in the module and not exported), then its README's `loadCaptchaEnginge(6)`;
# its own `validateCaptcha(text, false)` confirms the recorded text is the answer.
_REACT_SIMPLE_DRAW = """async ([moduleUrl, seed]) => {
""" + SEEDED_MATH_RANDOM + """  const painted = []
  const fillText = CanvasRenderingContext2D.prototype.fillText
  CanvasRenderingContext2D.prototype.fillText = function (text, ...at) {
    painted.push(String(text))
    return fillText.call(this, text, ...at)
  }
  const { loadCaptchaEnginge, validateCaptcha } = await import(moduleUrl)
  loadCaptchaEnginge(6)
  const text = painted.join('')
  if (!validateCaptcha(text, false)) throw new Error(`the painted text ${text} is not its answer`)
  return { text, png: document.getElementById('canv').toDataURL('image/png') }
}"""


@functools.cache
def _react_simple_module() -> str:
    """react-simple-captcha's module as it ships (an ES module), as a data: URL."""
    path = NODE_DIR / "node_modules" / "react-simple-captcha" / "react-simple-captcha.js"
    if not path.is_file():
        raise RuntimeError("react-simple-captcha needs benchmarks/node's packages: run scripts/third_party_generators.sh")
    return "data:text/javascript;base64," + base64.b64encode(path.read_bytes()).decode()


def react_simple_draw(seed: int) -> dict:
    """One react-simple-captcha challenge: {"text": ..., "png": a data: URL of its canvas}."""
    module = _react_simple_module()

    def draw(shared) -> dict:
        page = shared.context.browser.new_page(device_scale_factor=1)  # its module, its Math.random
        try:
            page.set_content(_REACT_SIMPLE_PAGE)
            return page.evaluate(_REACT_SIMPLE_DRAW, [module, seed])
        finally:
            page.close()

    return painter().run(draw)


# react-captcha-code 1.0.7's page: React 16, ReactDOM, react-is, styled-components, lodash and
# classnames as their UMD builds ship them (from benchmarks/node), its ES module as it ships, with
# its bare imports mapped to those globals; served from an address of its own, answered from disk.
_RCC_ORIGIN = "http://react-captcha-code.invalid"
_RCC_SCRIPTS = {"react.js": "react/umd/react.production.min.js",
                "react-dom.js": "react-dom/umd/react-dom.production.min.js",
                "react-is.js": "react-is/umd/react-is.production.min.js",
                "styled-components.js": "styled-components/dist/styled-components.min.js",
                "lodash.js": "lodash/lodash.min.js", "classnames.js": "classnames/index.js"}
_RCC_SHIMS = {
    "react.js": "const R = window.React; export default R;\n"
                "export const { useRef, useEffect, useCallback, forwardRef, useImperativeHandle } = R;",
    "lodash.js": "export default window._; export const isFunction = window._.isFunction;",
    "classnames.js": "export default window.classNames;",
    "styled-components.js": "export default window.styled;"}
_RCC_PAGE = ("<!doctype html>\n" + "".join(f'<script src="/lib/{name}"></script>\n' for name in _RCC_SCRIPTS)
             + '<script type="importmap">{"imports": {' + ", ".join(
                 f'"{name[:-3]}": "/shim/{name}"' for name in _RCC_SHIMS) + '}}</script>\n'
             + '<body style="margin:0;background:#fff"><div id="root"></div></body>')
# Math.random seeded (mulberry32, as benchmarks/node/draw.js), then the component rendered as its
# README's example renders it; the code comes from its `onChange`, as the page gets it, and the
# characters it strokes are checked against it.
_RCC_DRAW = """async ([seed, charNum]) => {
""" + SEEDED_MATH_RANDOM + """  const stroked = []
  const strokeText = CanvasRenderingContext2D.prototype.strokeText
  CanvasRenderingContext2D.prototype.strokeText = function (text, ...at) {
    stroked.push(String(text))
    return strokeText.call(this, text, ...at)
  }
  const { default: Captcha } = await import('/es/index.js')
  const root = document.getElementById('root')
  const text = await new Promise((resolve) => {
    const props = { onChange: resolve }
    if (charNum) props.charNum = charNum
    ReactDOM.render(React.createElement(Captcha, props), root)
  })
  if (stroked.join('') !== text) throw new Error(`it stroked ${stroked.join('')}, its code is ${text}`)
  return { text, png: root.querySelector('canvas').toDataURL('image/png') }
}"""


@functools.cache
def _rcc_files() -> dict[str, tuple[bytes, str]]:
    """Path on the page's address -> (body, content type)."""
    modules = NODE_DIR / "node_modules"
    if not (modules / "react-captcha-code" / "build" / "es" / "index.js").is_file():
        raise RuntimeError("react-captcha-code needs benchmarks/node's packages: run scripts/third_party_generators.sh")
    files = {"/": (_RCC_PAGE.encode(), "text/html")}
    files |= {f"/lib/{name}": ((modules / path).read_bytes(), "text/javascript") for name, path in _RCC_SCRIPTS.items()}
    files |= {f"/shim/{name}": (code.encode(), "text/javascript") for name, code in _RCC_SHIMS.items()}
    for module in (modules / "react-captcha-code" / "build" / "es").glob("*.js"):  # it imports './style'
        files[f"/es/{module.stem}"] = files[f"/es/{module.name}"] = (module.read_bytes(), "text/javascript")
    return files


def react_captcha_code_draw(seed: int, char_num: int | None) -> dict:
    """One react-captcha-code challenge ({"text": ..., "png": a data: URL of its canvas}), the
    component rendered with `charNum` (its default when None) on a page of its own address."""
    files = _rcc_files()

    def draw(shared) -> dict:
        page = shared.context.browser.new_page(device_scale_factor=1)  # its scripts, its Math.random
        try:
            def answer(route) -> None:
                path = route.request.url[len(_RCC_ORIGIN):].split("?", 1)[0]
                if path not in files:
                    route.fulfill(status=404, body="")
                    return
                body, kind = files[path]
                route.fulfill(status=200, body=body, content_type=kind)

            page.route(f"{_RCC_ORIGIN}/**", answer)
            page.goto(f"{_RCC_ORIGIN}/")
            return page.evaluate(_RCC_DRAW, [seed, char_num])
        finally:
            page.close()

    return painter().run(draw)
