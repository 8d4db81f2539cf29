"""`python -m practice.android [--host 127.0.0.1] [--port 5560] [--no-adb-keyboard]`: run one
emulated phone until SIGTERM / Ctrl-C. Prints `ready HOST:PORT` once an adb server can connect.
Its keyboard is the phone's own (`input text` types ASCII only); ADB Keyboard is installed
unless `--no-adb-keyboard`, and types any text once selected (`ime set`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal

from practice.android.device import EmulatedDevice
from practice.android.screen import PhoneScreen
from practice.android.shell import Shell


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m practice.android", description="Run an emulated Android phone.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5560, help="adb port (default 5560; 0 picks a free one)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium binary rendering the screen")
    parser.add_argument("--no-adb-keyboard", dest="adb_keyboard", action="store_false",
                        help="a phone without ADB Keyboard installed: it cannot type non-ASCII text")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    screen = PhoneScreen(args.chromium)
    await screen.start()
    device = EmulatedDevice(Shell(screen, adb_keyboard=args.adb_keyboard), host=args.host, port=args.port)
    await device.start()
    print(f"ready {device.host}:{device.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await device.stop()
    with contextlib.suppress(Exception):
        await screen.stop()


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(serve(parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
