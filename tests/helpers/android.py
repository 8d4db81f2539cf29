"""A real adb server (Debian `adb`) on a free port, and emulated phones (`practice.android`)
connected to it with `adb connect`, exactly as a device farm's network devices are."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADB = os.environ.get("VENUS_ADB_BINARY", "/usr/bin/adb")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AdbServer:
    port: int

    def adb(self, *args: str, timeout: float = 20) -> str:
        done = subprocess.run([ADB, "-P", str(self.port), *args], capture_output=True, text=True, timeout=timeout)
        return (done.stdout + done.stderr).strip()

    def states(self) -> dict[str, str]:
        lines = self.adb("devices").splitlines()[1:]
        return dict(line.split("\t", 1) for line in lines if "\t" in line)

    def wait_state(self, serial: str, state: str | None, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.states().get(serial) == state:
                return
            time.sleep(0.2)
        raise TimeoutError(f"{serial} is not {state or 'gone'} on adb server {self.port}: {self.states()}")


@contextlib.contextmanager
def adb_server() -> Iterator[AdbServer]:
    server = AdbServer(free_port())
    server.adb("start-server", timeout=30)
    try:
        yield server
    finally:
        server.adb("kill-server")


@dataclass
class Phone:
    serial: str
    proc: subprocess.Popen

    def kill(self) -> None:
        """Pull the plug: the phone's process dies, its TCP connection with it."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@contextlib.contextmanager
def emulated_phone(server: AdbServer, *, log_path: Path | None = None, adb_keyboard: bool = True) -> Iterator[Phone]:
    """Start `python -m practice.android` on a free port and `adb connect` it (`adb_keyboard`:
    whether ADB Keyboard is installed on it)."""
    port = free_port()
    log = open(log_path or os.devnull, "wb")
    options = [] if adb_keyboard else ["--no-adb-keyboard"]
    proc = subprocess.Popen([sys.executable, "-m", "practice.android", "--port", str(port), *options], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=log, start_new_session=True)
    phone = Phone(f"127.0.0.1:{port}", proc)
    try:
        line = proc.stdout.readline().decode()
        if not line.startswith("ready"):
            raise RuntimeError(f"the emulated phone did not start: {line!r}")
        out = server.adb("connect", phone.serial)
        if "connected" not in out:
            raise RuntimeError(f"adb connect {phone.serial}: {out}")
        server.wait_state(phone.serial, "device")
        yield phone
    finally:
        server.adb("disconnect", phone.serial)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                phone.kill()
        log.close()
