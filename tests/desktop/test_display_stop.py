"""`python -m workers.envs.xdisplay` (the display `make up` supervises) leaves no X server behind,
even when TERMs keep arriving, as when `make up` and the supervisor both stop it.
Before, the second TERM interrupted the clean-up and Xvfb kept the display, so the next
`make up` had no desktop ("display :99 is already in use")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.helpers.servers import ROOT
from workers.envs.xdisplay import display_alive, free_display


def test_repeated_terms_still_stop_xvfb_and_openbox(tmp_path):
    display = free_display()
    log = open(tmp_path / "display.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "workers.envs.xdisplay", "--display", display], cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while b"ready" not in (tmp_path / "display.log").read_bytes():
        assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "display.log").read_text()
        time.sleep(0.1)
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert display_alive(display)
    while proc.poll() is None:  # TERMs keep coming while it cleans up
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.005)
    deadline = time.monotonic() + 10
    while display_alive(display) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = [pid for pid in children if os.path.exists(f"/proc/{pid}") and
             open(f"/proc/{pid}/stat").read().split()[2] != "Z"]
    for pid in alive:  # leave nothing behind for the next test, whatever the verdict
        os.kill(int(pid), signal.SIGKILL)
    assert not display_alive(display) and not alive, (display, alive)


def test_reaping_a_display_kills_its_sessions_and_removes_every_home_of_it_only():
    """What a parked run's discarded session (or a crashed holder) left: its processes and HOME,
    and a HOME whose processes died already. Another display's HOME and unmarked processes stay."""
    import shutil
    import tempfile
    from pathlib import Path

    from workers.envs.xdisplay import MARKER, _home_prefix, reap_display

    display = free_display(start=700)
    homes = [Path(tempfile.mkdtemp(prefix=_home_prefix(display))) for _ in range(2)]
    neighbour = Path(tempfile.mkdtemp(prefix=_home_prefix(display + "0")))
    env = {"PATH": os.environ["PATH"], "HOME": str(homes[0])}
    marked = subprocess.Popen(["sleep", "60"], env={**env, MARKER: display})
    unmarked = subprocess.Popen(["sleep", "60"], env=env)
    try:
        deadline = time.monotonic() + 5
        while "HOME" not in open(f"/proc/{marked.pid}/environ").read() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert reap_display(display) == 1
        assert marked.wait(5) == -signal.SIGKILL and unmarked.poll() is None
        assert not any(home.exists() for home in homes) and neighbour.exists()
    finally:
        unmarked.kill()
        marked.kill()
        shutil.rmtree(neighbour, ignore_errors=True)


def test_a_display_that_cannot_start_its_window_manager_leaves_no_x_server(tmp_path, monkeypatch):
    """Before, only a timeout stopped Xvfb: any other error (here openbox missing from PATH,
    an OSError) left the server holding the display."""
    import shutil

    import pytest

    from workers.envs import xdisplay

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("Xvfb", "xprop"):  # everything but openbox
        (bin_dir / tool).symlink_to(shutil.which(tool))
    base = xdisplay._base_env
    monkeypatch.setattr(xdisplay, "_base_env", lambda: {**base(), "PATH": str(bin_dir)})
    server = xdisplay.XServer(free_display(start=720))
    with pytest.raises(FileNotFoundError):
        server.start()
    assert server.procs == [] and not display_alive(server.display)
    assert server._config is not None and not server._config.parent.exists()
