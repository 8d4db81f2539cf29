"""One Android device through adbutils and its adb server: the commands the environment uses.

adbutils is blocking; every call runs in a worker thread so the runtime loop keeps serving other
runs. A failed call is checked against the adb server's device list: a device that is no longer
there (unplugged, emulator gone, network lost) raises `EnvironmentLost("device SERIAL
disconnected")`, anything else a `StepError` naming the command.

Text entry: `adb shell input text` types ASCII only (a device fails on anything else) and
mangles shell characters. Text in any other script goes through ADB Keyboard
(`com.android.adbkeyboard`, the open-source IME device farms install) as a base64 broadcast
(`am broadcast -a ADB_INPUT_B64 --es msg <base64>`), which types any Unicode text into the
focused field. Its receiver only listens while it is the selected input method, so a device where
it is installed but another keyboard is selected gets it selected for the typing (`ime enable`,
`ime set`) and its previous input method back right after. A device where ADB Keyboard is already
selected types everything through it. Non-ASCII text on a device without ADB Keyboard is a
`StepError` saying what to install.
"""

from __future__ import annotations

import asyncio
import base64
import shlex
from collections.abc import Callable
from typing import TypeVar

import adbutils

from workers.errors import EnvironmentLost, StepError

T = TypeVar("T")
ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADB_KEYBOARD = f"{ADB_KEYBOARD_PACKAGE}/.AdbIME"
IME_SWITCH_S = 5.0  # how long a device may take to make a newly set input method current
UI_DUMP_PATH = "/sdcard/venus_ui.xml"
KEYCODES = {"back": 4, "home": 3, "enter": 66, "recent": 187, "del": 67, "tab": 61}


class AdbDevice:
    """`serial` on the adb server at `adb_host:adb_port`."""

    def __init__(self, serial: str, *, adb_host: str = "127.0.0.1", adb_port: int = 5037,
                 timeout_s: float = 20.0) -> None:
        self.serial = serial
        self.adb = adbutils.AdbClient(host=adb_host, port=adb_port, socket_timeout=timeout_s)
        self.device = self.adb.device(serial)
        self.timeout_s = timeout_s
        self._ime: str | None = None
        self.lost = False

    # -- plumbing -----------------------------------------------------------------------
    async def _call(self, what: str, fn: Callable[[], T]) -> T:
        if self.lost:
            raise EnvironmentLost(f"device {self.serial} disconnected")
        try:
            return await asyncio.to_thread(fn)
        except (adbutils.AdbError, adbutils.AdbTimeout, OSError) as exc:
            if not await asyncio.to_thread(self.online):
                self.lost = True
                raise EnvironmentLost(f"device {self.serial} disconnected") from exc
            raise StepError(f"{what} failed on device {self.serial}: {exc}") from exc

    def online(self) -> bool:
        """Whether the adb server lists the device as `device` (blocking)."""
        try:
            return any(d.serial == self.serial and d.state == "device" for d in self.adb.list())
        except (adbutils.AdbError, OSError):
            return False

    async def shell(self, command: str, *, what: str = "") -> str:
        return await self._call(what or command.split()[0], lambda: self.device.shell(command, timeout=self.timeout_s))

    async def exec_out(self, command: str, *, what: str = "") -> bytes:
        """Raw bytes of a command's output (`adb exec-out`: no terminal, no line-ending changes)."""
        def run() -> bytes:
            connection = self.device.open_transport(timeout=self.timeout_s)
            try:
                connection.send_command("exec:" + command)
                connection.check_okay()
                return connection.read_until_close(encoding=None)
            finally:
                connection.close()
        return await self._call(what or command.split()[0], run)

    # -- the screen ---------------------------------------------------------------------
    async def screencap(self) -> bytes:
        png = await self.exec_out("screencap -p", what="screencap")
        if not png.startswith(b"\x89PNG"):
            raise StepError(f"screencap on device {self.serial} gave no PNG image")
        return png

    async def ui_dump(self) -> str:
        return await self.shell(f"uiautomator dump {UI_DUMP_PATH} >/dev/null && cat {UI_DUMP_PATH}",
                                what="uiautomator dump")

    async def foreground(self) -> str:
        """`package/activity` in front, as the window manager reports it ("" if it does not say)."""
        info = await self._call("dumpsys window", self.device.app_current)
        activity = info.activity
        if activity.startswith(info.package + "."):
            activity = activity[len(info.package):]
        return f"{info.package}/{activity}"

    async def size(self) -> tuple[int, int]:
        width, height = await self._call("wm size", self.device.window_size)
        return int(width), int(height)

    # -- input --------------------------------------------------------------------------
    async def tap(self, x: int, y: int, *, times: int = 1) -> None:
        await self.shell("; ".join([f"input tap {x} {y}"] * times), what="input tap")

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        await self.shell(f"input swipe {x1} {y1} {x2} {y2} {duration_ms}", what="input swipe")

    async def key(self, name: str) -> None:
        await self.shell(f"input keyevent {KEYCODES[name]}", what="input keyevent")

    async def type_text(self, text: str) -> None:
        """Type into the focused field, any script (see the module docstring)."""
        if self._ime is None:
            self._ime = await self.input_method()
        if self._ime == ADB_KEYBOARD:
            await self._broadcast_text(text)
        elif text.isascii():
            await self._input_text(text)
        elif ADB_KEYBOARD_PACKAGE in await self.packages(ADB_KEYBOARD_PACKAGE):
            await self._with_adb_keyboard(text)
        else:
            raise StepError(
                f"device {self.serial} cannot type non-ASCII text: `input text` types ASCII only. Install ADB "
                f"Keyboard on it (package {ADB_KEYBOARD_PACKAGE}, https://github.com/senzhk/ADBKeyBoard: `adb -s "
                f"{self.serial} install ADBKeyboard.apk`); runs select it while they type")

    async def input_method(self) -> str:
        return (await self.shell("settings get secure default_input_method", what="settings")).strip()

    async def _input_text(self, text: str) -> None:
        for index, line in enumerate(text.split("\n")):
            if index:
                await self.key("enter")
            if line:
                out = await self.shell("input text " + shlex.quote(line.replace(" ", "%s")), what="input text")
                if "Exception" in out:
                    raise StepError(f"input text failed on device {self.serial}: {out.strip().splitlines()[0][:200]}")

    async def _broadcast_text(self, text: str) -> None:
        encoded = base64.b64encode(text.encode()).decode()
        # Typed only while ADB Keyboard is the selected input method (its receiver lives in it).
        await self.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}", what="ADB Keyboard input")

    async def _with_adb_keyboard(self, text: str) -> None:
        """Select ADB Keyboard, type `text` through it, and select the previous input method again."""
        previous = self._ime
        out = await self.shell(f"ime enable {ADB_KEYBOARD} && ime set {ADB_KEYBOARD}", what="ime set")
        if "selected" not in out:
            raise StepError(f"could not select ADB Keyboard on device {self.serial}: {out.strip()[:200]}")
        try:
            deadline = asyncio.get_running_loop().time() + IME_SWITCH_S
            while await self.input_method() != ADB_KEYBOARD:  # the switch is asynchronous on a device
                if asyncio.get_running_loop().time() > deadline:
                    raise StepError(f"ADB Keyboard did not become the input method of device {self.serial}")
                await asyncio.sleep(0.1)
            await self._broadcast_text(text)
        finally:
            if previous and previous != "null":
                await self.shell(f"ime set {shlex.quote(previous)}", what="ime set")

    async def start(self, component: str) -> None:
        """Start an app: `package/.Activity` with am start, a bare package through its launcher intent."""
        if "/" in component:
            out = await self.shell(f"am start -n {shlex.quote(component)}", what="am start")
        else:
            out = await self.shell(f"monkey -p {shlex.quote(component)} -c android.intent.category.LAUNCHER 1",
                                   what="monkey")
        if "Error" in out or "aborted" in out:
            raise StepError(f"could not start {component} on device {self.serial}: {out.strip()[:200]}")

    async def stop(self, package: str) -> None:
        await self.shell(f"am force-stop {shlex.quote(package)}", what="am force-stop")

    async def packages(self, name: str = "") -> list[str]:
        """Installed packages (those whose name contains `name`, when given)."""
        out = await self.shell(f"pm list packages {shlex.quote(name)}" if name else "pm list packages",
                               what="pm list packages")
        return [line.removeprefix("package:").strip() for line in out.splitlines() if line.startswith("package:")]
