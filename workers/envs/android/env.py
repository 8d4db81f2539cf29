"""The Android surface: one leased device per run (`workers.envs.base.Environment`).

- observe: `screencap -p` and the `uiautomator dump` hierarchy, taken together (the hierarchy when
  the device gives one), plus the foreground activity. The screenshot goes out as JPEG in device
  pixels; the hierarchy is kept for the safety gate and the explicit steps until the next action.
- execute: the UI-Venus-2 mobile action space (`workers.actions_mobile`), points mapped to device
  pixels (floor(v/1000 x W), reference §3): tap, double tap, long press, swipe, drag, text entry
  in any script (`workers.envs.android.device`), back / home / enter / recent apps, launching an
  app by its display name through the device's app table, wait.
- location: `android-app://PACKAGE/ACTIVITY` of the app in front. Credentials may be typed only
  into apps their domains list by package name (`android-app://com.example.bank` has the host
  `com.example.bank`), exactly as on the web.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

from PIL import Image

from workers import actions as A
from workers import actions_mobile as M
from workers.envs.android.device import AdbDevice
from workers.envs.android.hierarchy import Hierarchy, Node
from workers.envs.base import ActionOutcome, Observation
from workers.errors import EnvironmentLost, StepError
from workers.gates.context import Probe

try:  # offline OCR (rapidocr), the fallback when the hierarchy has no match: optional on Android hosts
    from workers.ocr import find_text as ocr_find_text
except ImportError:
    ocr_find_text = None

JPEG_QUALITY = 80
LONG_PRESS_MS = 1000
DRAG_MS = 1000  # the official framework runs Drag as a 1000 ms swipe
SWIPE_MS = 300
WAIT_S = 1.0
ROLES = {"Button": "button", "ImageButton": "button", "EditText": "textbox", "CheckBox": "checkbox",
         "Switch": "switch", "RadioButton": "radio", "ImageView": "img", "TextView": "text"}


def app_uri(location: str) -> str:
    """`package/.Activity` -> `android-app://package/.Activity`."""
    return f"android-app://{location}" if location else ""


class AndroidEnvironment:
    """A run's leased device. `apps`: the device's app table (display name -> `package` or
    `package/.Activity`). `on_close` gives the lease back; `on_lost` marks the device offline."""

    surface = "android"
    action_space = "mobile"
    captcha_detection = False  # CAPTCHAs in apps reach the model or a person through the agent loop

    def __init__(self, device: AdbDevice, *, secrets, width: int, height: int, apps: dict[str, str] | None = None,
                 on_close: Callable[[], Awaitable[None]] | None = None,
                 on_lost: Callable[[str], Awaitable[None]] | None = None, settle_s: float = 0.0) -> None:
        self.device = device
        self.secrets = secrets
        self.width, self.height = width, height
        self.apps = {name.casefold(): component for name, component in (apps or {}).items()}
        self.app_names = dict(apps or {})
        self.notes: list[str] = []
        self.settle_s = settle_s
        self._on_close, self._on_lost = on_close, on_lost
        self._location = ""
        self._hierarchy: Hierarchy | None = None
        self._png: bytes | None = None
        self._closed = False
        self.kept = False  # a parked run keeps the device (its host parks the lease on close)
        self.grant: Any = None  # the lease it runs under (`workers.envs.android.host.DeviceGrant`)

    # -- what the runner reads ----------------------------------------------------------
    def location(self) -> str:
        return app_uri(self._location)

    @property
    def package(self) -> str:
        return self._location.partition("/")[0]

    async def text_visible(self, text: str) -> bool:
        hierarchy = await self.hierarchy()
        if hierarchy is not None and hierarchy.shows(text):
            return True
        return bool(await self.ocr_boxes(text))

    async def ocr_boxes(self, text: str) -> list:
        """Where OCR reads `text` on the screen (device pixels); [] without the OCR module."""
        if ocr_find_text is None:
            return []
        png = await self.screen_png()
        try:
            return await asyncio.to_thread(ocr_find_text, png, text)
        except RuntimeError:  # the OCR package is not installed on this host
            return []

    async def session_state(self) -> dict | None:
        return None  # the device keeps its own state; there is no session to carry

    # -- observation --------------------------------------------------------------------
    async def observe(self) -> Observation:
        (png, jpeg), xml, location = await self.guarded(asyncio.gather(
            self._screenshot(), self._dump(), self.device.foreground()))
        self._png, self._location = png, location
        self._hierarchy = Hierarchy.parse(xml) if xml else None
        extra = {"hierarchy": xml} if xml else {}
        return Observation(screenshot=jpeg, width=self.width, height=self.height, url=self.location(),
                           title=self.package, extra=extra)

    async def _screenshot(self) -> tuple[bytes, bytes]:
        """The PNG and its JPEG, converted while the hierarchy is still on its way."""
        png = await self.device.screencap()
        return png, await asyncio.to_thread(_jpeg, png)

    async def _dump(self) -> str:
        try:
            return await self.device.ui_dump()
        except StepError:
            return ""  # secure screens and busy animations give no hierarchy: the screenshot still counts

    async def hierarchy(self) -> Hierarchy | None:
        """The current screen's hierarchy (taken now unless observed since the last action)."""
        if self._hierarchy is None:
            xml, self._location = await self.guarded(asyncio.gather(self._dump(), self.device.foreground()))
            self._hierarchy = Hierarchy.parse(xml) if xml else None
        return self._hierarchy

    async def screen_png(self) -> bytes:
        if self._png is None:
            self._png = await self.guarded(self.device.screencap())
        return self._png

    async def guarded(self, awaitable):
        try:
            return await awaitable
        except EnvironmentLost as exc:
            await self._lost(str(exc))
            raise

    async def _lost(self, reason: str) -> None:
        if self._on_lost is not None:
            on_lost, self._on_lost = self._on_lost, None
            await on_lost(reason)

    def changed(self) -> None:
        """The screen may have changed: what was read of it is stale."""
        self._hierarchy, self._png = None, None

    async def settle(self) -> None:
        if self.settle_s:
            await asyncio.sleep(self.settle_s)

    # -- UI-Venus mobile actions ----------------------------------------------------------
    async def execute(self, action) -> ActionOutcome:
        """Perform one UI-Venus-2 mobile action given in normalised coordinates."""
        self.changed()
        return await self.guarded(self._execute(action))

    async def _execute(self, action) -> ActionOutcome:
        device = self.device

        def px(point) -> tuple[int, int]:
            return A.map_point_for("mobile", point, width=self.width, height=self.height)

        match action:
            case M.Click(point=p) | M.DoubleClick(point=p):
                x, y = px(p)
                await device.tap(x, y, times=2 if isinstance(action, M.DoubleClick) else 1)
                return ActionOutcome(grounding={"x": x, "y": y})
            case M.LongPress(point=p):
                x, y = px(p)
                await device.swipe(x, y, x, y, LONG_PRESS_MS)
                return ActionOutcome(grounding={"x": x, "y": y})
            case M.Drag(start=s, end=e) | M.Swipe(start=s, end=e):
                (x1, y1), (x2, y2) = px(s), px(e)
                await device.swipe(x1, y1, x2, y2, DRAG_MS if isinstance(action, M.Drag) else SWIPE_MS)
                return ActionOutcome(grounding={"start": [x1, y1], "end": [x2, y2]})
            case M.Type(content=text):
                await device.type_text(self.secrets.reveal(text, url=self.location()))
            case M.LaunchApp(app=name):
                return await self.launch(name)
            case M.Wait():
                await asyncio.sleep(WAIT_S)
            case M.PressBack():
                await device.key("back")
            case M.PressHome():
                await device.key("home")
            case M.PressEnter():
                await device.key("enter")
            case M.PressRecent():
                await device.key("recent")
            case M.GetScreenshot() | M.CallUser() | M.Answer() | M.Finished():
                pass
            case _:
                raise StepError(f"action {type(action).__name__} is not supported on Android")
        return ActionOutcome()

    async def launch(self, name: str, *, restart: bool = False) -> ActionOutcome:
        """Open an app by its display name (the device's app table) or by package name; with
        `restart`, stop it first so it opens at its launch screen."""
        component = self.apps.get(name.strip().casefold())
        if component is None and "." in name and " " not in name.strip():
            component = name.strip()  # a package name
        if component is None:
            known = ", ".join(sorted(self.app_names)) or "none"
            raise StepError(f"no app called {name!r} on this device (its app table has: {known})")
        if restart:
            await self.device.stop(component.partition("/")[0])
        await self.device.start(component)
        self.changed()
        return ActionOutcome(grounding={"app": name, "component": component})

    # -- what the safety gate reads ---------------------------------------------------------
    async def probe_step(self, step, target) -> Probe:
        if step.kind == "goto":
            return await self._probe(None)
        if target is None:
            hierarchy = await self.hierarchy()
            return await self._probe(hierarchy.focused() if hierarchy else None)
        return await self._probe(getattr(target, "node", None))

    async def probe_action(self, action) -> tuple[Probe, tuple[int, int] | None]:
        point = getattr(action, "point", None) or getattr(action, "start", None)
        hierarchy = await self.hierarchy()
        if point is not None:
            x, y = A.map_point_for("mobile", point, width=self.width, height=self.height)
            return await self._probe(hierarchy.at(x, y) if hierarchy else None), (x, y)
        if isinstance(action, (M.Type, M.PressEnter)):
            return await self._probe(hierarchy.focused() if hierarchy else None), None
        return await self._probe(None), None

    async def shown_box(self, target, probe: Probe) -> dict[str, float] | None:
        """The node's bounds, or the box OCR read the target in (device pixels, as the screenshot)."""
        return getattr(target, "box", None) or probe.box

    async def _probe(self, node: Node | None) -> Probe:
        hierarchy = await self.hierarchy()
        texts = hierarchy.visible_text() if hierarchy else []
        return Probe(url=self.location(), title=self.package, target=_target(node) if node else None,
                     nearby=hierarchy.near(node) if hierarchy and node else texts[:6],
                     page_text=" \n".join(texts)[:4000], surface="android", app_package=self.package)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._on_close is not None:
            await self._on_close()


def _target(node: Node) -> dict[str, Any]:
    role = next((r for suffix, r in ROLES.items() if node.class_name.endswith(suffix)), "")
    box = node.rect
    return {"role": role, "name": node.label[:200], "text": "" if node.is_field else node.text[:200],
            "placeholder": node.hint[:200], "resource_id": node.resource_id, "content_desc": node.content_desc[:200],
            "class_name": node.class_name, "input_type": "password" if node.password else "",
            "rect": [box["x"], box["y"], box["width"], box["height"]]}


def _jpeg(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as image:
        out = io.BytesIO()
        image.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY)
        return out.getvalue()
