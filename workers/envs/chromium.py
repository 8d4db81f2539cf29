"""Chromium as operating-system processes: how a pooled browser is launched, found, measured
and, when its worker died, killed.

Three layers keep a Chromium from outliving the worker process that launched it:
1. Playwright drives Chromium over `--remote-debugging-pipe`; Chromium quits when the pipe closes
   (the Playwright driver, a child of the worker, died with it).
2. `chromium-launcher` starts Chromium with a parent-death signal (`setpriv --pdeathsig KILL`):
   when the driver process ends, for any reason, the kernel SIGKILLs the browser process, even one
   too busy or hung to read its pipe; its zygotes, renderers and helpers exit with it.
3. Every browser carries a marker in its environment, `VENUS_BROWSER=<owner pid>:<owner start
   time>:<n>`; `orphans_sweep` kills marked processes whose owner is gone (run when a pool starts
   and at every health check), so even a Chromium stopped while its parent died is reaped.

The browser gets a minimal environment (no worker secrets: database URL, keys, tokens) plus the
marker. Everything here is blocking (psutil); the pool calls it from a thread.
"""

from __future__ import annotations

import logging
import os
import signal
from dataclasses import dataclass
from pathlib import Path

import psutil

log = logging.getLogger(__name__)

LAUNCHER = Path(__file__).with_name("chromium-launcher")
MARKER = "VENUS_BROWSER"
# What Chromium may see of the worker's environment: locale, paths and display, nothing secret.
PASSED_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
              "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "FONTCONFIG_FILE", "FONTCONFIG_PATH")


@dataclass(frozen=True)
class Owner:
    """A process that launches browsers, identified across pid reuse by its start time."""

    pid: int
    started: float

    @classmethod
    def current(cls) -> Owner:
        return cls(os.getpid(), psutil.Process().create_time())

    def marker(self, seq: int) -> str:
        return f"{self.pid}:{self.started:.2f}:{seq}"

    def alive(self) -> bool:
        try:
            return f"{psutil.Process(self.pid).create_time():.2f}" == f"{self.started:.2f}"
        except psutil.Error:
            return False


def parse_marker(value: str) -> Owner | None:
    try:
        pid, started, _seq = value.split(":")
        return Owner(int(pid), float(started))
    except ValueError:
        return None


def launch_env(executable_path: str, marker: str) -> dict[str, str]:
    """The environment of a pooled Chromium: the passed-through variables, the marker and the
    real executable for the launcher."""
    env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    env.update({key: value for key, value in os.environ.items() if key.startswith("LC_")})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("HOME", "/tmp")  # noqa: S108 -- Chromium needs a HOME; its profile lives in its own temp dir
    env[MARKER] = marker
    env["VENUS_CHROMIUM_EXECUTABLE"] = executable_path
    return env


def _marker_of(proc: psutil.Process) -> str | None:
    try:
        return proc.environ().get(MARKER)
    except (psutil.Error, OSError):
        return None


def find_browser(marker: str) -> psutil.Process | None:
    """The browser process launched with `marker`, among this process's descendants."""
    for proc in psutil.Process().children(recursive=True):
        try:
            if _marker_of(proc) == marker and proc.name() != "chrome_crashpad_handler":
                return proc
        except psutil.Error:
            continue  # exited while we looked
    return None


def tree_pss_mb(proc: psutil.Process | None) -> float:
    """Proportional set size of a process and all its descendants, in MB (shared pages are
    split between the processes that share them, so adding trees up does not double count)."""
    if proc is None:
        return 0.0
    total = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for member in members:
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            continue  # exited while we looked
    return total / 2**20


def kill_tree(proc: psutil.Process) -> None:
    """SIGKILL a browser process, its process group (Playwright starts each browser in a
    session of its own) and any descendant that left the group."""
    try:
        members = proc.children(recursive=True)
    except psutil.Error:
        members = []
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, psutil.Error):
        pass
    for member in members:
        try:
            member.kill()
        except psutil.Error:
            pass


def marked_processes(owner_pid: int | None = None) -> list[psutil.Process]:
    """Processes carrying a browser marker (of `owner_pid` only, when given) that still run."""
    found = []
    for proc in psutil.process_iter():
        marker = _marker_of(proc)
        if marker is None:
            continue
        owner = parse_marker(marker)
        if owner_pid is not None and (owner is None or owner.pid != owner_pid):
            continue
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def orphans_sweep() -> int:
    """Kill marked Chromium processes whose owner (a worker process) is gone; return how many."""
    killed = 0
    for proc in marked_processes():
        owner = parse_marker(_marker_of(proc) or "")
        if owner is None or owner.alive():
            continue
        log.warning("killing orphaned chromium %s (its worker %s is gone)", proc.pid, owner.pid)
        kill_tree(proc)
        killed += 1
    return killed
