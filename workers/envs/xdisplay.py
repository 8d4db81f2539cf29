"""X displays as operating-system processes: an Xvfb server with a light window manager (a pool
member), and the per-run desktop session started on a leased display.

- `XServer`: Xvfb `:N` plus openbox configured to maximise every window (the same layout run after
  run). `python -m workers.envs.xdisplay --display :99` runs one in the foreground until SIGTERM
  (what `make up` and the desktop worker service supervise).
- `DesktopSession`: what one run gets on a leased display: a throwaway HOME with a `Documents`
  folder (seeded from a folder of practice files), its own D-Bus session bus (so AT-SPI, the
  accessibility bus, only lists this run's applications), and the applications it launches. Every
  process of the session carries the marker `VENUS_DESKTOP=<display>`; `close()` kills them all
  and removes HOME, and `reap_display()` kills what a dead holder left on a display before the
  next run uses it.

Applications get a minimal environment (no worker secrets: database URL, keys, tokens). Blocking
(subprocess, psutil); the desktop environment calls it from a thread.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from workers.errors import EnvironmentLost

log = logging.getLogger(__name__)

MARKER = "VENUS_DESKTOP"
HOME_PREFIX = "venus-desktop-"  # a session's throwaway HOME (under the temp folder): prefix, display, "-"
PASSED_ENV = ("PATH", "TZ", "TMPDIR", "FONTCONFIG_FILE", "FONTCONFIG_PATH")
OPENBOX_RC = """<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy></placement>
  <desktops><number>1</number></desktops>
  <applications>
    <application class="*" type="normal"><maximized>yes</maximized><focus>yes</focus></application>
  </applications>
</openbox_config>
"""


def _display_number(display: str) -> str:
    """':99.0' and ':99' are display '99'."""
    return display.lstrip(":").split(".")[0]


def _socket(display: str) -> Path:
    return Path(f"/tmp/.X11-unix/X{_display_number(display)}")


def free_display(start: int = 100) -> str:
    """A display number no X server uses (no socket, no lock file), from `start` up."""
    for number in range(start, start + 400):
        if not _socket(f":{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return f":{number}"
    raise EnvironmentLost(f"no free X display number from :{start}")


def display_alive(display: str) -> bool:
    """Whether an X server answers on `display` (its socket accepts a client)."""
    import socket

    path = _socket(display)
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


@dataclass
class XServer:
    """Xvfb on `display` with openbox. `start()` returns once both answer; `stop()` ends both."""

    display: str
    width: int = 1280
    height: int = 800
    procs: list[subprocess.Popen] = field(default_factory=list)
    _config: Path | None = None

    def start(self, timeout_s: float = 10.0) -> "XServer":
        if display_alive(self.display):
            raise EnvironmentLost(f"display {self.display} is already in use by another X server")
        self._config = Path(tempfile.mkdtemp(prefix="venus-openbox-")) / "rc.xml"
        self._config.write_text(OPENBOX_RC)
        env = {**_base_env(), "DISPLAY": self.display, "HOME": str(self._config.parent)}
        self.procs.append(subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten", "tcp", "-ac"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        try:  # whatever goes wrong from here on (a missing openbox, an interrupt), nothing is left running
            self._until_ready(env, timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _until_ready(self, env: dict[str, str], timeout_s: float) -> None:
        """Wait for Xvfb to serve, then start openbox on it (up to five tries)."""
        xvfb = self.procs[0]
        _wait(lambda: xvfb.poll() is None and display_alive(self.display) and _x_answers(env), timeout_s,
              f"Xvfb {self.display} did not start", failed=lambda: xvfb.poll() is not None)
        attempts = 5
        for attempt in range(attempts):  # openbox may lose a race with a server still settling: try again
            if attempt:  # a little later each time: CI once saw three quick tries all refused
                time.sleep(0.25 * 2 ** (attempt - 1))
            with open(self._config.parent / "openbox.log", "ab") as wm_log:
                wm = subprocess.Popen(["openbox", "--config-file", str(self._config)], env=env, stdout=wm_log,
                                      stderr=wm_log, start_new_session=True)
            self.procs.append(wm)  # stopped with the rest if anything below raises
            try:
                _wait(lambda: _wm_ready(env), timeout_s, f"openbox did not start on {self.display}",
                      failed=lambda: wm.poll() is not None)
            except EnvironmentLost:
                self.procs.remove(wm)
                if wm.poll() is None:  # timed out rather than exited: not left behind
                    wm.kill()
                    wm.wait(5)
                if attempt == attempts - 1 or xvfb.poll() is not None:
                    detail = (self._config.parent / "openbox.log").read_text(errors="replace")[-500:]
                    raise EnvironmentLost(f"openbox did not start on {self.display}: {detail.strip()}") from None
                continue
            return

    def stop(self) -> None:
        for proc in self.procs:  # all of them at once, then wait: one slow exit does not spare the rest
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs.clear()
        if self._config is not None:
            shutil.rmtree(self._config.parent, ignore_errors=True)


def _x_answers(env: dict[str, str]) -> bool:
    """A real X client gets an answer (the socket exists a moment before the server serves)."""
    return subprocess.run(["xprop", "-root", "-len", "0", "_NET_SUPPORTED"], env=env, capture_output=True).returncode == 0


def _wm_ready(env: dict[str, str]) -> bool:
    out = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env, capture_output=True, text=True)
    return "window id" in out.stdout


@dataclass
class DesktopSession:
    """One run's session on a display (see the module docstring)."""

    display: str
    seed_dir: Path | None = None
    home: Path = field(init=False)
    bus_address: str = field(init=False, default="")
    procs: list[subprocess.Popen] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)

    def start(self) -> "DesktopSession":
        if not display_alive(self.display):
            raise EnvironmentLost(f"display lost: no X server answers on {self.display}")
        reap_display(self.display)
        _forget_accessibility_bus(self.display)
        self.home = Path(tempfile.mkdtemp(prefix=_home_prefix(self.display)))
        for sub in ("Documents", ".config", ".cache", ".local/share", "runtime"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        (self.home / "runtime").chmod(0o700)
        if self.seed_dir is not None and self.seed_dir.is_dir():
            shutil.copytree(self.seed_dir, self.home / "Documents", dirs_exist_ok=True)
        self.started_at = time.time()
        bus = self.home / "runtime" / "bus"
        self.bus_address = f"unix:path={bus}"
        self.procs.append(subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={self.bus_address}"],
            env=self.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        _wait(bus.exists, 5.0, "the session bus did not start")
        return self

    @classmethod
    def adopt(cls, display: str, *, home: str, bus_address: str, started_at: float,
              seed_dir: Path | None = None) -> "DesktopSession":
        """Take over the session a parked run kept on `display` (its applications still running):
        what `handle()` gave. `EnvironmentLost` when the display or the session is gone."""
        if not display_alive(display):
            raise EnvironmentLost(f"display lost while the run waited: no X server answers on {display}")
        session = cls(display, seed_dir)
        session.home, session.bus_address, session.started_at = Path(home), bus_address, started_at
        if not session.home.name.startswith(HOME_PREFIX) or not (session.home / "runtime" / "bus").exists():
            raise EnvironmentLost(f"the run's desktop session on {display} is gone (display restarted?)")
        return session

    def handle(self) -> dict[str, object]:
        """What a parked run keeps to take this session over later (`adopt`)."""
        return {"display": self.display, "home": str(self.home), "bus_address": self.bus_address,
                "started_at": self.started_at}

    @property
    def documents(self) -> Path:
        return self.home / "Documents"

    def env(self) -> dict[str, str]:
        """The environment an application of this session runs with."""
        home = str(self.home)
        env = {**_base_env(), "DISPLAY": self.display, "HOME": home, MARKER: self.display,
               "XDG_CONFIG_HOME": f"{home}/.config", "XDG_CACHE_HOME": f"{home}/.cache",
               "XDG_DATA_HOME": f"{home}/.local/share", "XDG_RUNTIME_DIR": f"{home}/runtime",
               "GTK_MODULES": "gail:atk-bridge", "GNOME_ACCESSIBILITY": "1", "NO_AT_BRIDGE": "0",
               "LIBGL_ALWAYS_SOFTWARE": "1", "GDK_BACKEND": "x11",
               # GIO's daemon would mount a FUSE file system in the session's runtime folder: a
               # mount outlives its killed daemon and HOME could never be removed.
               "GVFS_DISABLE_FUSE": "1"}
        if self.bus_address:
            env["DBUS_SESSION_BUS_ADDRESS"] = self.bus_address
        return env

    def launch(self, argv: list[str]) -> subprocess.Popen:
        """Start an application in the session (its own process group, working dir Documents)."""
        proc = subprocess.Popen(argv, env=self.env(), cwd=self.documents, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        return proc

    def changed_files(self) -> list[Path]:
        """Files under Documents created or modified during the session (the run's artifacts)."""
        return sorted(p for p in self.documents.rglob("*")
                      if p.is_file() and not p.name.startswith((".", "~")) and p.stat().st_mtime >= self.started_at - 1)

    def close(self) -> None:
        for proc in self.procs:
            _kill_group(proc)
        self.procs.clear()
        reap_display(self.display)
        _forget_accessibility_bus(self.display)
        if getattr(self, "home", None) is not None:
            shutil.rmtree(self.home, ignore_errors=True)


def _forget_accessibility_bus(display: str) -> None:
    """Remove the AT-SPI bus address the last session's bus launcher left on the root window:
    applications read it there first, and a stale one (a bus that died with its session) would
    leave the next session without accessibility names."""
    subprocess.run(["xprop", "-root", "-remove", "AT_SPI_BUS"], env={**_base_env(), "DISPLAY": display},
                   capture_output=True, timeout=10)


def reap_display(display: str) -> int:
    """Kill every process carrying this display's session marker (what a run, a parked run that
    ended, or a dead holder left on it) and remove every session HOME of this display: those the
    processes ran in and those whose processes are gone already (a crashed application). Called
    only while no other run holds the display. Returns how many processes were killed."""
    victims, homes = [], set()
    for proc in psutil.process_iter(["pid"]):
        try:
            environ = proc.environ()
            if proc.pid != os.getpid() and environ.get(MARKER) == display:
                homes.add(environ.get("HOME", ""))
                proc.kill()
                victims.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    _wait_dead(victims, timeout_s=5.0)  # none writes into HOME while it is removed
    temp = Path(tempfile.gettempdir()).resolve()
    homes = {Path(home).resolve() for home in homes if home} | set(temp.glob(f"{_home_prefix(display)}*"))
    for path in homes:
        if path.parent == temp and path.name.startswith(HOME_PREFIX):  # never anything else
            _unmount_under(path)
            shutil.rmtree(path, ignore_errors=True)
            if path.exists():
                log.warning("the session HOME %s could not be removed whole", path)
    return len(victims)


def _unmount_under(path: Path) -> None:
    """Detach what is still mounted inside a session HOME (a FUSE mount whose daemon was killed
    answers every call with an error, so the folder could not be removed)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    inside = str(path) + "/"
    for line in mounts:
        fields = line.split()
        point = fields[1].replace("\\040", " ") if len(fields) > 1 else ""
        if point.startswith(inside):  # fusermount: allowed to the user who mounted it; umount: root
            for argv in (["fusermount3", "-u", "-z", point], ["fusermount", "-u", "-z", point], ["umount", "-l", point]):
                try:
                    if subprocess.run(argv, capture_output=True, timeout=10).returncode == 0:
                        break
                except (OSError, subprocess.TimeoutExpired):
                    continue


def _wait_dead(procs: list[psutil.Process], *, timeout_s: float) -> None:
    """Until each killed process is gone or a zombie (dead, only not reaped by its parent)."""
    deadline = time.monotonic() + timeout_s
    for proc in procs:
        while time.monotonic() < deadline:
            try:
                if proc.status() == psutil.STATUS_ZOMBIE:
                    break
            except psutil.NoSuchProcess:
                break
            time.sleep(0.02)


def _home_prefix(display: str) -> str:
    """HOMEs of sessions on `display` ('venus-desktop-99-…' on ':99'; ':99.0' is ':99')."""
    return f"{HOME_PREFIX}{''.join(ch for ch in _display_number(display) if ch.isalnum())}-"


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        log.warning("process %s did not exit after SIGKILL", proc.pid)


def _base_env() -> dict[str, str]:
    env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["LANG"] = env["LC_ALL"] = "C.UTF-8"
    return env


def _wait(ready, timeout_s: float, message: str, failed=lambda: False) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > deadline or failed():
            raise EnvironmentLost(message)
        time.sleep(0.05)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Run one display in the foreground until SIGTERM / Ctrl-C (supervised by `make up`)."""
    parser = argparse.ArgumentParser(description="Run an Xvfb display with openbox for the desktop surface.")
    parser.add_argument("--display", default=":99")
    parser.add_argument("--size", default="1280x800")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    signal.signal(signal.SIGTERM, _interrupt)  # before anything starts: a stop mid-start still cleans up
    server = XServer(args.display, width, height)
    try:
        server.start()
        print(f"display {args.display} ready ({width}x{height}, openbox)", flush=True)
        while all(proc.poll() is None for proc in server.procs):
            time.sleep(1)
        raise SystemExit("the display's Xvfb or openbox exited")
    except KeyboardInterrupt:
        pass
    finally:
        # A second TERM (the supervisor and `make up` may both send one) must not interrupt the
        # clean-up half way: that left Xvfb running and the next `make up` without a display.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        server.stop()


if __name__ == "__main__":
    main()
