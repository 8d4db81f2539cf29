"""Start local servers the tests need as real subprocesses, on free loopback ports."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, *, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=1.0) as client:  # one client: each new one builds a TLS context (tens of ms of CPU)
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"server for {url} exited with code {proc.returncode}")
            try:
                client.get(url)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout}s")


def stop_process(proc: subprocess.Popen | None, *, timeout: float = 10.0) -> None:
    """Stop a server started in its own session (`start_new_session=True`) with all its children:
    SIGTERM to the group, SIGKILL after `timeout` seconds."""
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def practice_site(*, quiet: bool = False, test_hooks: bool = False) -> Iterator[str]:
    """Run the practice site (`python -m practice`) and yield its base URL. With test_hooks, the
    site answers `GET /api/captcha/<id>` with a challenge's solution (tests only); without, the
    hook is off whatever the environment says."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "practice", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env={**{k: v for k, v in os.environ.items() if k != "PRACTICE_TEST_HOOKS"}, "PYTHONUNBUFFERED": "1",
             **({"PRACTICE_TEST_HOOKS": "1"} if test_hooks else {})},
        stdout=subprocess.DEVNULL if quiet else None,
        stderr=subprocess.DEVNULL if quiet else None,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/login", proc=proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def alerts(html: str) -> list[str]:
    """Texts of all role="alert" elements of a practice-site page, in page order."""
    return re.findall(r'role="alert">([^<]+)<', html)
