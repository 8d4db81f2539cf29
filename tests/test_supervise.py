"""`make up` supervises its processes (scripts/supervise.sh): a process that exits is restarted
with a log line; stopping the supervisor stops the process."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_crashed_process_is_restarted_with_a_log_line_and_stopped_with_its_supervisor(tmp_path):
    script = (f". {ROOT}/scripts/supervise.sh; SUPERVISE_LOG_DIR={tmp_path} "
              f"supervise flaky sh -c 'echo started $$ >> {tmp_path}/pids; sleep 0.3; exit 3'")
    proc = subprocess.Popen(["bash", "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len((tmp_path / "pids").read_text().splitlines()
                                                  if (tmp_path / "pids").exists() else []) < 2:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0
    assert len((tmp_path / "pids").read_text().splitlines()) >= 2  # it ran again after exiting
    assert "flaky exited (code 3); restarting in 1s" in out
    assert "flaky exited (code 3)" in (tmp_path / "flaky.log").read_text()


def test_a_long_running_process_is_stopped_with_its_supervisor(tmp_path):
    script = f". {ROOT}/scripts/supervise.sh; SUPERVISE_LOG_DIR={tmp_path} supervise sleeper sleep 300"
    proc = subprocess.Popen(["bash", "-c", script], start_new_session=True)
    try:
        time.sleep(1)
        children = subprocess.run(["pgrep", "-s", str(proc.pid), "sleep"], capture_output=True, text=True).stdout.split()
        assert children
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        time.sleep(0.3)
        assert not any(Path(f"/proc/{pid}").exists() for pid in children)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_make_up_supervises_every_component_and_keeps_redis_data():
    up = (ROOT / "scripts/up.sh").read_text()
    assert ". scripts/supervise.sh" in up and "supervise \"$name\"" in up
    assert "--appendonly yes" in up
