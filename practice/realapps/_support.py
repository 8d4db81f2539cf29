"""What the real-app packages share: their own pinned virtualenvs and their server processes."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCAL = Path(os.environ.get("VENUS_REALAPPS_DIR", ROOT / ".local" / "realapps"))


class InstallError(RuntimeError):
    """An application's virtualenv could not be made (no network to PyPI, a pin that is gone…)."""


def ensure_venv(name: str, pins: list[str]) -> Path:
    """`.local/realapps/<name>/venv` holding exactly `pins` (pip requirement strings); returns the
    venv's directory. Idempotent: a stamp of the pins skips pip when nothing changed."""
    venv = LOCAL / name / "venv"
    stamp = venv / f".pins-{hashlib.sha256(' '.join(pins).encode()).hexdigest()[:16]}"
    if stamp.is_file() and (venv / "bin" / "python").is_file():
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = ([sys.executable, "-m", "venv", str(venv)],
             [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", *pins])
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise InstallError(f"{name}: `{' '.join(cmd[:4])} …` failed ({done.returncode}): " + " | ".join(tail))
    stamp.touch()
    return venv


def run_tool(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None) -> str:
    """Run an application's own command-line tool; its output, or a clear error with its stderr."""
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env={**os.environ, **(env or {})})
    if done.returncode != 0:
        raise RuntimeError(f"{Path(cmd[0]).name} {' '.join(cmd[1:3])} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout


def spawn(cmd: list[str], *, log: Path, cwd: Path | None = None) -> subprocess.Popen:
    """Start a server process in its own session (so `terminate` reaches all its children)."""
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})


def terminate(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
