"""The desktop surface: one run's session on a leased X display, observed with mss and driven
with xdotool in the UI-Venus-2 desktop action space (`workers.actions_desktop`).

Contract:
- `observe()` grabs the whole monitor (mss) as a JPEG; `width`/`height` are monitor pixels, the
  units `box=` coordinates map to (/999, floor, per the protocol reference). `url` is the
  location: `app://<app>/<active window title>`.
- `execute(action)` performs one desktop action. Click-like actions without a box act at the
  tracked cursor; KeyDown / MouseDown state is tracked and released by `close()`. `Type` reveals
  credential placeholders only while typing (the credential's domains name the application,
  e.g. `gnumeric`), presses Enter for each newline, and types non-ASCII text through the
  clipboard (xclip + ctrl+v), which every toolkit accepts whatever the keyboard map.
- Every X call runs on one thread of its own (mss holds an X connection per thread), so the
  runtime loop never blocks on the display.
- The display is leased (`workers.envs.desktop_host`); a lease that can no longer be renewed,
  or an X server that stopped answering, makes the next call raise `EnvironmentLost`.
- The safety gate's probes read the screen: the AT-SPI element at the point (or the focused
  one) and the OCR text around it (`workers.envs.desktop_screen`).
"""

from __future__ import annotations

import asyncio
import io
import logging
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PIL import Image

from workers import actions_desktop as D
from workers.actions import map_point_for
from workers.envs.base import ActionOutcome, Observation
from workers.envs.desktop_apps import DesktopApp, app_named, document_path
from workers.envs.xdisplay import DesktopSession, display_alive
from workers.errors import EnvironmentLost, StepError

log = logging.getLogger(__name__)
JPEG_QUALITY = 85
WAIT_S = 2.0
DRAG_S = 0.5
SWIPE_MAX_CLICKS = 50
APP_START_S = 20.0
CLIPBOARD_NON_ASCII = True  # xdotool type drops non-ASCII on Xvfb keymaps
KEY_NAMES = {
    "ctrl": "ctrl", "control": "ctrl", "alt": "alt", "shift": "shift", "win": "super", "super": "super",
    "cmd": "super", "command": "super", "meta": "super", "enter": "Return", "return": "Return", "esc": "Escape",
    "escape": "Escape", "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "tab": "Tab",
    "space": "space", "up": "Up", "down": "Down", "left": "Left", "right": "Right", "pageup": "Prior",
    "pagedown": "Next", "home": "Home", "end": "End", "insert": "Insert", "capslock": "Caps_Lock",
    "printscreen": "Print", "menu": "Menu",
}


def x_key(name: str) -> str:
    """A key name as UI-Venus / Playwright write it (ctrl, Enter, F5, a) -> an X keysym."""
    key = name.strip()
    lower = key.lower()
    if lower in KEY_NAMES:
        return KEY_NAMES[lower]
    if lower.startswith("f") and lower[1:].isdigit():
        return lower.upper()
    return lower if len(key) == 1 else key


def x_chord(chord: str) -> str:
    """`Control+Shift+s` / `ctrl+s` -> `ctrl+shift+s` (xdotool's form)."""
    return "+".join(x_key(part) for part in chord.replace(" ", "").split("+") if part)


class DesktopEnvironment:
    """One run's desktop (see the module docstring). `lease_alive()` -> False once the display's
    lease is lost; `on_close(env)` is awaited before the session is torn down (artifacts),
    `on_closed()` after (the lease is released)."""

    surface = "desktop"
    action_space = "desktop"
    captcha_detection = False

    def __init__(self, session: DesktopSession, *, secrets: Any, width: int, height: int,
                 lease_alive=lambda: True, on_close=None, on_closed=None) -> None:
        self.session = session
        self.secrets = secrets
        self.width, self.height = width, height
        self.lease_alive = lease_alive
        self.on_close = on_close
        self.on_closed = on_closed
        self.lease: dict[str, Any] = {}
        self.app: DesktopApp | None = None
        self.cursor = (width // 2, height // 2)
        self.held_keys: list[str] = []
        self.held_button = False
        self.window_title = ""
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"x{session.display}")
        self._grabber: Any = None
        self._closed = False
        self.kept = False  # set by the host when the run parks: close() leaves the session running
        from workers.envs.desktop_screen import ScreenReader  # the gate's and the executor's view
        self.screen = ScreenReader(self)

    # -- plumbing ---------------------------------------------------------------------------
    async def x(self, fn, *args):
        """Run a blocking X call on the display's thread."""
        if self._closed:
            raise EnvironmentLost("display lost: the run's desktop session is closed")
        if not self.lease_alive():
            raise EnvironmentLost(f"display lost: the lease on {self.session.display} expired")
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    def _xdo(self, *args: str) -> str:
        out = subprocess.run(["xdotool", *args], env=self.session.env(), capture_output=True, text=True, timeout=30)
        if out.returncode != 0 and not display_alive(self.session.display):
            raise EnvironmentLost(f"display lost: no X server answers on {self.session.display}")
        return out.stdout

    async def xdo(self, *args: str) -> str:
        return await self.x(self._xdo, *args)

    # -- the seam ---------------------------------------------------------------------------
    def location(self) -> str:
        app = self.app.key if self.app else "desktop"
        return f"app://{app}/{self.window_title}" if self.window_title else f"app://{app}"

    async def observe(self) -> Observation:
        jpeg = await self.x(self._grab_jpeg)
        return Observation(screenshot=jpeg, width=self.width, height=self.height, url=self.location(),
                           title=self.window_title, extra={"window": self.window_title, "display": self.session.display})

    def _grab(self) -> Image.Image:
        import mss

        if self._grabber is None:
            self._grabber = mss.MSS(display=self.session.display)
        title = subprocess.Popen(["xdotool", "getactivewindow", "getwindowname"], env=self.session.env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:  # the title is read while the screen is grabbed (two processes, one wait)
            shot = self._grabber.grab(self._grabber.monitors[1])
        except Exception as exc:
            title.kill()
            raise EnvironmentLost(f"display lost: cannot capture {self.session.display}: {exc}") from exc
        finally:
            try:
                self.window_title = (title.communicate(timeout=10)[0] or "").strip()[:300]
            except subprocess.TimeoutExpired:
                title.kill()
        return Image.frombytes("RGB", shot.size, shot.rgb)

    def _grab_jpeg(self) -> bytes:
        out = io.BytesIO()
        self._grab().save(out, "JPEG", quality=JPEG_QUALITY)
        return out.getvalue()

    def grab_png(self) -> bytes:
        """Blocking: a lossless capture (OCR reads it best); call through `x()`."""
        out = io.BytesIO()
        self._grab().save(out, "PNG", compress_level=1)
        return out.getvalue()

    async def settle(self) -> None:
        await asyncio.sleep(0.05)

    async def text_visible(self, text: str) -> bool:
        return bool(await self.screen.find(text))

    async def session_state(self) -> dict[str, Any] | None:
        return None  # a desktop session is not carried over: a retry starts on a fresh one

    async def probe_step(self, step: Any, target: Any):
        return await self.screen.probe_step(step, target)

    async def probe_action(self, action: Any):
        return await self.screen.probe_action(action)

    async def shown_box(self, target: Any, probe: Any) -> dict[str, float] | None:
        box = getattr(target, "box", None)
        return box.as_dict() if box is not None else probe.box

    # -- applications -----------------------------------------------------------------------
    async def start_app(self, start: str, *, document: str = "") -> DesktopApp:
        """Start the application `start` names (opening `document`, a file of the run's Documents
        folder, when given) and wait for its main window."""
        app = app_named(start)
        argv = [part.replace("{documents}", str(self.session.documents)) for part in app.argv]
        if document:
            argv.append(str(document_path(self.session.documents, document)))
        for relative, content in app.config:
            path = self.session.home / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
        await self.x(self.session.launch, argv)
        self.app = app
        deadline = time.monotonic() + APP_START_S
        while time.monotonic() < deadline:
            found = await self.xdo("search", "--onlyvisible", "--name", app.window)
            if found.strip():
                await self.xdo("windowactivate", "--sync", found.split()[0])
                await asyncio.sleep(0.3)  # the first paint after mapping
                await self.observe()
                return app
            await asyncio.sleep(0.1)
        raise StepError(f"{app.key} did not open a window within {APP_START_S:g}s")

    async def goto_cell(self, address: str) -> None:
        """Select a spreadsheet cell with the application's Go To keys."""
        assert self.app is not None and self.app.goto_cell is not None  # noqa: S101 -- checked by the caller
        for item in self.app.goto_cell:
            if item == "{cell}":
                await self.type_text(address)
            else:
                await self.key(item)
            await asyncio.sleep(0.25)  # a dialog opening or closing

    # -- actions ----------------------------------------------------------------------------
    def px(self, box) -> tuple[int, int]:
        return map_point_for("desktop", box, width=self.width, height=self.height)

    async def move(self, x: int, y: int) -> None:
        await self.xdo("mousemove", str(x), str(y))  # no --sync: it waits forever when the pointer is already there
        self.cursor = (x, y)

    async def click_at(self, x: int, y: int, *, button: int = 1, repeat: int = 1) -> None:
        """Move and click in one xdotool call (one process, not two)."""
        await self.xdo("mousemove", str(x), str(y), "click", "--repeat", str(repeat), "--delay", "60",
                       str(button))
        self.cursor = (x, y)

    async def key(self, chord: str, *, repeat: int = 1) -> None:
        await self.xdo("key", "--clearmodifiers", "--repeat", str(repeat), "--delay", "30", x_chord(chord))

    async def type_text(self, text: str) -> None:
        """Type `text` at the keyboard focus; each newline presses Enter."""
        for i, line in enumerate(text.split("\n")):
            if i:
                await asyncio.sleep(0.3)  # let the toolkit take the typed text before Enter acts on it
                await self.key("Return")
            if not line:
                continue
            if line.isascii() or not CLIPBOARD_NON_ASCII:
                await self.xdo("type", "--clearmodifiers", "--delay", "8", "--", line)
            else:
                await self.x(self._paste, line)

    def _paste(self, text: str) -> None:
        subprocess.run(["xclip", "-selection", "clipboard"], input=text.encode(), env=self.session.env(),
                       timeout=10, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(0.05)
        self._xdo("key", "--clearmodifiers", "ctrl+v")

    async def execute(self, action: Any) -> ActionOutcome:
        """Perform one UI-Venus-2 desktop action (coordinates on the 0-999 grid)."""
        if isinstance(action, D.Sequence):
            done = [await self.execute(child) for child in action.actions]
            return ActionOutcome(grounding={"sequence": [d.grounding for d in done]})
        clicks = {D.Click: (1, 1), D.DoubleClick: (1, 2), D.TripleClick: (1, 3), D.RightClick: (3, 1),
                  D.MiddleClick: (2, 1)}
        if type(action) in clicks:
            button, repeat = clicks[type(action)]
            x, y = self.px(action.box) if action.box is not None else self.cursor
            await self.click_at(x, y, button=button, repeat=repeat)
            return ActionOutcome(grounding={"x": x, "y": y})
        match action:
            case D.Hover(box=b):
                x, y = self.px(b)
                await self.move(x, y)
                return ActionOutcome(grounding={"x": x, "y": y})
            case D.Drag(start=s, end=e):
                return await self._drag(s, e)
            case D.Swipe(amount=amount, axis=axis):
                button = {("vertical", True): "4", ("vertical", False): "5", ("horizontal", True): "7",
                          ("horizontal", False): "6"}[(axis, amount > 0)]
                clicks_n = min(max(abs(amount), 1), SWIPE_MAX_CLICKS)
                await self.xdo("click", "--repeat", str(clicks_n), "--delay", "10", button)
                return ActionOutcome(grounding={"x": self.cursor[0], "y": self.cursor[1], "wheel": clicks_n})
            case D.Type(content=text):
                await self.type_text(self.secrets.reveal(text, url=self.location()))
                return ActionOutcome()
            case D.Hotkey(keys=keys, repeat=repeat):
                await self.key("+".join(keys), repeat=repeat)
                return ActionOutcome()
            case D.KeyDown(keys=keys):
                for key in keys:
                    await self.xdo("keydown", x_key(key))
                    self.held_keys.append(x_key(key))
                return ActionOutcome()
            case D.KeyUp(keys=keys):
                for key in keys:
                    await self.xdo("keyup", x_key(key))
                    if x_key(key) in self.held_keys:
                        self.held_keys.remove(x_key(key))
                return ActionOutcome()
            case D.MouseDown(box=b) | D.MouseUp(box=b):
                if b is not None:
                    await self.move(*self.px(b))
                down = isinstance(action, D.MouseDown)
                await self.xdo("mousedown" if down else "mouseup", "1")
                self.held_button = down
                return ActionOutcome(grounding={"x": self.cursor[0], "y": self.cursor[1]})
            case D.Wait():
                await asyncio.sleep(WAIT_S)
                return ActionOutcome()
        raise StepError(f"{getattr(action, 'type', type(action).__name__)} is not a desktop action this executor performs")

    async def _drag(self, start, end) -> ActionOutcome:
        x1, y1 = self.px(start) if start is not None else self.cursor
        x2, y2 = self.px(end)
        await self.move(x1, y1)
        await self.xdo("mousedown", "1")
        self.held_button = True
        for i in range(1, 9):  # a path, not a jump: toolkits start a drag only after motion
            await self.xdo("mousemove", str(x1 + (x2 - x1) * i // 8), str(y1 + (y2 - y1) * i // 8))
            await asyncio.sleep(DRAG_S / 8)
        await self.xdo("mouseup", "1")
        self.held_button = False
        self.cursor = (x2, y2)
        return ActionOutcome(grounding={"start": [x1, y1], "end": [x2, y2]})

    async def release_held(self) -> None:
        """Let go of every key and button a KeyDown / MouseDown left pressed."""
        for key in reversed(self.held_keys):
            await self.xdo("keyup", key)
        self.held_keys.clear()
        if self.held_button:
            await self.xdo("mouseup", "1")
            self.held_button = False

    def handle(self) -> dict[str, Any]:
        """What a parked run keeps to go on in this very session (`workers.envs.desktop_host`)."""
        return {**self.session.handle(), "lease": self.lease.get("id"), "app": self.app.key if self.app else "",
                "window_title": self.window_title, "cursor": list(self.cursor)}

    async def close(self) -> None:
        """End the run's use of the desktop: artifacts out, the session torn down, then `on_closed`.
        A kept environment (a parked run) lets go of its X connection only: the session stays."""
        if self._closed:
            return
        try:
            if self.lease_alive() and display_alive(self.session.display):
                await self.release_held()
                if self.on_close is not None and not self.kept:
                    await self.on_close(self)
        except Exception:  # closing: the session is torn down whatever happened
            log.warning("closing the desktop session on %s", self.session.display, exc_info=True)
        finally:
            self._closed = True
            try:
                await asyncio.get_running_loop().run_in_executor(self._thread, self._teardown)
            finally:
                self._thread.shutdown(wait=False)
                if self.on_closed is not None:
                    await self.on_closed()

    def _teardown(self) -> None:
        if self._grabber is not None:
            try:
                self._grabber.close()
            except Exception:  # the X server may be gone already
                log.debug("closing the screen grabber failed", exc_info=True)
            self._grabber = None
        if not self.kept:
            self.session.close()
