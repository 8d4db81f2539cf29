"""The emulated phone's `shell:` / `exec:` commands: the subset of toolbox commands an adb client
uses to drive a phone (input, screencap, uiautomator, am, monkey, pm, wm, getprop, dumpsys, cat,
echo, rm, ime, settings). A command line may chain commands with `;`, `&&` and `||` and send
output to a file or /dev/null, as a device's `sh` would.
"""

from __future__ import annotations

import base64
import re
import shlex
from dataclasses import dataclass, field

from practice.android.screen import HEIGHT, KEY_NAMES, PACKAGES, WIDTH, PhoneScreen

PROPS = {
    "ro.product.model": "Venus Practice Phone", "ro.product.name": "venus_practice", "ro.product.device": "venus",
    "ro.product.manufacturer": "Venus", "ro.product.brand": "venus", "ro.build.version.release": "14",
    "ro.build.version.sdk": "34", "ro.product.cpu.abi": "x86_64", "ro.serialno": "venus-practice",
    "ro.sf.lcd_density": "480", "sys.boot_completed": "1", "ro.build.characteristics": "phone",
}
ADB_KEYBOARD_ACTIONS = ("ADB_INPUT_B64", "ADB_INPUT_TEXT")
ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADB_KEYBOARD_IME = f"{ADB_KEYBOARD_PACKAGE}/.AdbIME"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"  # the phone's own keyboard
# What `input text` prints on a device when it meets a character no key map has (exit 255).
INPUT_TEXT_FAILURE = (b"Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get "
                      b"length of null array\n\tat com.android.server.input.InputShellCommand.sendText"
                      b"(InputShellCommand.java:398)\n")
_SPLIT = re.compile(r"\s*(;|&&|\|\|)\s*")


@dataclass
class Result:
    out: bytes = b""
    code: int = 0


@dataclass
class Shell:
    """Runs command lines against one `PhoneScreen`. Files written by commands (`uiautomator
    dump FILE`, redirections) live in `files` for `cat`."""

    screen: PhoneScreen
    files: dict[str, bytes] = field(default_factory=dict)
    adb_keyboard: bool = True  # ADB Keyboard installed (a device option: `--no-adb-keyboard`)
    ime: str = LATIN_IME  # the selected input method (`settings get secure default_input_method`)

    def _imes(self) -> list[str]:
        return [LATIN_IME, *([ADB_KEYBOARD_IME] if self.adb_keyboard else [])]

    def _packages(self) -> list[str]:
        return sorted([*PACKAGES, *([ADB_KEYBOARD_PACKAGE] if self.adb_keyboard else [])])

    async def run(self, line: str) -> bytes:
        output, ok = b"", True
        for part, op in _chain(line):
            if (op == "&&" and not ok) or (op == "||" and ok):
                continue
            words, target = _redirect(part)
            if not words:
                continue
            result = await self.command(words)
            ok = result.code == 0
            if target is None:
                output += result.out
            elif target != "/dev/null":
                self.files[target] = result.out
        return output

    async def command(self, words: list[str]) -> Result:
        name, args = words[0], words[1:]
        handler = getattr(self, f"_cmd_{name.replace('-', '_')}", None)
        if handler is None:
            return Result(f"/system/bin/sh: {name}: inaccessible or not found\n".encode(), 127)
        return await handler(args)

    # -- commands ------------------------------------------------------------------------
    async def _cmd_echo(self, args: list[str]) -> Result:
        return Result((" ".join(args) + "\n").encode())

    async def _cmd_true(self, args: list[str]) -> Result:
        return Result()

    async def _cmd_cat(self, args: list[str]) -> Result:
        out = b""
        for path in args:
            if path not in self.files:
                return Result(f"cat: {path}: No such file or directory\n".encode(), 1)
            out += self.files[path]
        return Result(out)

    async def _cmd_rm(self, args: list[str]) -> Result:
        for path in args:
            self.files.pop(path, None)
        return Result()

    async def _cmd_getprop(self, args: list[str]) -> Result:
        if args:
            return Result((PROPS.get(args[0], "") + "\n").encode())
        return Result("".join(f"[{k}]: [{v}]\n" for k, v in PROPS.items()).encode())

    async def _cmd_wm(self, args: list[str]) -> Result:
        if args[:1] == ["size"]:
            return Result(f"Physical size: {WIDTH}x{HEIGHT}\n".encode())
        if args[:1] == ["density"]:
            return Result(b"Physical density: 480\n")
        return Result(b"", 1)

    async def _cmd_screencap(self, args: list[str]) -> Result:
        png = await self.screen.screencap()
        files = [a for a in args if not a.startswith("-")]
        if files:
            self.files[files[0]] = png
            return Result()
        return Result(png)

    async def _cmd_uiautomator(self, args: list[str]) -> Result:
        if args[:1] != ["dump"]:
            return Result(b"Usage: uiautomator dump [--compressed] [file]\n", 1)
        files = [a for a in args[1:] if not a.startswith("--")]
        path = files[0] if files else "/sdcard/window_dump.xml"
        xml = (await self.screen.dump()).encode()
        if path == "/dev/tty":
            return Result(xml + b"UI hierchary dumped to: /dev/tty\n")
        self.files[path] = xml
        return Result(f"UI hierchary dumped to: {path}\n".encode())

    async def _cmd_input(self, args: list[str]) -> Result:
        if args and args[0] in ("touchscreen", "touchpad", "keyboard"):
            args = args[1:]
        if not args:
            return Result(b"usage: input [<source>] <command> [<arg>...]\n", 1)
        verb, rest = args[0], args[1:]
        try:
            if verb == "tap":
                await self.screen.tap(float(rest[0]), float(rest[1]))
            elif verb in ("swipe", "draganddrop"):
                x1, y1, x2, y2 = (float(v) for v in rest[:4])
                default = 1000 if verb == "draganddrop" else 300
                await self.screen.swipe(x1, y1, x2, y2, int(rest[4]) if len(rest) > 4 else default)
            elif verb == "text":
                # `input text` takes ASCII only; %s is a space (as on a device, which fails on the rest).
                text = " ".join(rest).replace("%s", " ")
                if any(ord(c) > 126 for c in text):
                    return Result(INPUT_TEXT_FAILURE, 255)
                await self.screen.text(text)
            elif verb == "keyevent":
                for key in rest:
                    if key == "--longpress":
                        continue
                    await self.screen.key(KEY_NAMES.get(key, int(key) if key.isdigit() else -1))
            else:
                return Result(f"Error: Unknown command: {verb}\n".encode(), 1)
        except (IndexError, ValueError):
            return Result(f"Error: bad arguments for input {verb}\n".encode(), 1)
        return Result()

    async def _cmd_am(self, args: list[str]) -> Result:
        if args[:1] == ["start"] or args[:1] == ["start-activity"]:
            component = _option(args, "-n")
            if component is None:
                return Result(b"Error: no component (-n package/activity)\n", 1)
            package, _, activity = component.partition("/")
            if not await self.screen.launch(package, activity):
                return Result(f"Error: Activity class {{{component}}} does not exist.\n".encode(), 1)
            return Result(f"Starting: Intent {{ cmp={component} }}\n".encode())
        if args[:1] == ["broadcast"]:
            return await self._broadcast(args[1:])
        if args[:1] == ["force-stop"] and len(args) > 1:
            await self.screen.force_stop(args[1])
            return Result()
        return Result(b"", 1)

    async def _broadcast(self, args: list[str]) -> Result:
        """ADB Keyboard's broadcasts: type any text (non-ASCII included) into the focused field."""
        action = _option(args, "-a") or ""
        if action in ADB_KEYBOARD_ACTIONS and self.ime == ADB_KEYBOARD_IME:  # its receiver lives in the IME
            if "--es" not in args or len(args) < args.index("--es") + 3:  # --es msg VALUE
                return Result(b"Broadcast completed: result=0\n")
            value = args[args.index("--es") + 2]
            text = base64.b64decode(value).decode() if action == "ADB_INPUT_B64" else value
            await self.screen.text(text)
            return Result(b"Broadcasting: Intent { act=" + action.encode() + b" }\nBroadcast completed: result=-1\n")
        return Result(b"Broadcast completed: result=0\n")

    async def _cmd_monkey(self, args: list[str]) -> Result:
        package = _option(args, "-p")
        if package is None or package not in PACKAGES:
            return Result(b"** No activities found to run, monkey aborted.\n", 252)
        await self.screen.launch(package)
        return Result(b"  bash arg: -p\n  bash arg: " + package.encode() + b"\nEvents injected: 1\n")

    async def _cmd_pm(self, args: list[str]) -> Result:
        packages = self._packages()
        if args[:2] == ["list", "packages"]:
            wanted = [a for a in args[2:] if not a.startswith("-")]
            return Result("".join(f"package:{p}\n" for p in packages if not wanted or wanted[0] in p).encode())
        if args[:1] == ["path"] and len(args) > 1 and args[1] in packages:
            return Result(f"package:/system/app/{args[1]}/base.apk\n".encode())
        return Result(b"", 1)

    async def _cmd_ime(self, args: list[str]) -> Result:
        """`ime list -s`, `ime enable ID`, `ime set ID` (an input method that is not installed is refused)."""
        if args[:1] == ["list"]:
            return Result("".join(f"{ime}\n" for ime in self._imes()).encode())
        if args[:1] in (["enable"], ["set"]) and len(args) > 1:
            if args[1] not in self._imes():
                return Result(f"Unknown input method {args[1]} cannot be {args[0]}d for user #0\n".encode(), 255)
            if args[0] == "set":
                self.ime = args[1]
                return Result(f"Input method {args[1]} selected for user #0\n".encode())
            return Result(f"Input method {args[1]}: already enabled for user #0\n".encode())
        return Result(b"ime: unknown command\n", 255)

    async def _cmd_settings(self, args: list[str]) -> Result:
        if args[:2] == ["get", "secure"] and args[2:3] == ["default_input_method"]:
            return Result(f"{self.ime}\n".encode())
        return Result(b"null\n")

    async def _cmd_dumpsys(self, args: list[str]) -> Result:
        current = await self.screen.foreground()
        package, _, activity = current.partition("/")
        if args[:1] == ["window"]:
            return Result(f"  mCurrentFocus=Window{{7f3a1c u0 {package}/{package}{activity}}}\n"
                          f"  mFocusedApp=ActivityRecord{{5e1d2b u0 {current} t12}}\n".encode())
        if args[:1] == ["display"]:
            return Result(f'  mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, real {WIDTH} x {HEIGHT}, '
                          f"rotation 0, density 480}}\n  mCurrentOrientation=0 orientation=0\n".encode())
        if args[:1] == ["activity"]:
            return Result(f"    mResumedActivity: ActivityRecord{{5e1d2b u0 {current} t12}}\n".encode())
        return Result(b"")


def _chain(line: str) -> list[tuple[str, str]]:
    """`a; b && c` -> [("a", ";"), ("b", ";"), ("c", "&&")] (quotes respected)."""
    parts: list[tuple[str, str]] = []
    current, op, quote, i = "", ";", "", 0
    while i < len(line):
        ch = line[i]
        if quote:
            current += ch
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote, current = ch, current + ch
        elif line.startswith("&&", i) or line.startswith("||", i) or ch == ";":
            parts.append((current, op))
            op = ";" if ch == ";" else line[i:i + 2]
            current, i = "", i + (1 if ch == ";" else 2)
            continue
        else:
            current += ch
        i += 1
    parts.append((current, op))
    return [(p.strip(), o) for p, o in parts if p.strip()]


def _redirect(part: str) -> tuple[list[str], str | None]:
    """Split a command into words and where its output goes (None: back to the caller)."""
    try:
        words = shlex.split(part)
    except ValueError:
        words = part.split()
    target, kept, skip = None, [], False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in ("2>&1", "2>/dev/null"):
            continue
        if word == ">":
            target, skip = (words[index + 1] if index + 1 < len(words) else "/dev/null"), True
        elif word.startswith(">"):
            target = word[1:]
        else:
            kept.append(word)
    return kept, target


def _option(args: list[str], flag: str) -> str | None:
    if flag in args and args.index(flag) + 1 < len(args):
        return args[args.index(flag) + 1]
    return None
