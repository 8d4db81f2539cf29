"""The run lifecycle's apps import each other one way only, counting imports inside functions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_runs_reviews_triggers_and_dashboard_have_no_import_cycle():
    done = subprocess.run([sys.executable, "scripts/check_import_cycles.py"], cwd=ROOT, capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert report["module_cycles"] == [] and report["app_cycles"] == [], report
    assert done.returncode == 0
    assert report["app_edges"]["runs"] == []  # runs knows none of its listeners
    assert report["app_edges"]["reviews"] == ["runs"] and report["app_edges"]["triggers"] == ["runs"]


def test_the_checker_finds_a_cycle_hidden_inside_a_function(tmp_path):
    for app in ("runs", "reviews", "triggers", "dashboard"):
        (tmp_path / "venus_rpa" / app).mkdir(parents=True)
        (tmp_path / "venus_rpa" / app / "__init__.py").write_text("")
    (tmp_path / "venus_rpa" / "runs" / "services.py").write_text(
        "def finish():\n    from venus_rpa.triggers.services import hook\n")
    (tmp_path / "venus_rpa" / "triggers" / "services.py").write_text("from venus_rpa.runs.services import finish\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "check_import_cycles.py").write_text((ROOT / "scripts/check_import_cycles.py").read_text())
    done = subprocess.run([sys.executable, "scripts/check_import_cycles.py"], cwd=tmp_path, capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert report["module_cycles"] == [["venus_rpa.runs.services", "venus_rpa.triggers.services"]]
    assert report["app_cycles"] == [["runs", "triggers"]]
