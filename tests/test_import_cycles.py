"""No module of venus_rpa or workers imports itself back, and the run lifecycle's apps import each
other one way only, counting imports inside functions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_module_imports_itself_back_and_the_lifecycle_apps_import_one_way():
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


def test_the_checker_reads_workers_and_every_app_and_takes_from_a_import_b_for_the_module(tmp_path):
    """A cycle outside the lifecycle apps is found (the step picker's services once imported its
    tasks module, which imports them); a package importing its own submodules is no cycle."""
    (tmp_path / "venus_rpa" / "picker").mkdir(parents=True)
    (tmp_path / "venus_rpa" / "__init__.py").write_text("from venus_rpa.celery import app\n")
    (tmp_path / "venus_rpa" / "celery.py").write_text("from venus_rpa import broker\n")
    (tmp_path / "venus_rpa" / "broker.py").write_text("")
    (tmp_path / "venus_rpa" / "picker" / "__init__.py").write_text("")
    (tmp_path / "venus_rpa" / "picker" / "services.py").write_text(
        "def enqueue():\n    from venus_rpa.picker.tasks import run\n")
    (tmp_path / "venus_rpa" / "picker" / "tasks.py").write_text("from venus_rpa.picker import services\n")
    (tmp_path / "workers").mkdir()
    (tmp_path / "workers" / "__init__.py").write_text("")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "check_import_cycles.py").write_text((ROOT / "scripts/check_import_cycles.py").read_text())
    done = subprocess.run([sys.executable, "scripts/check_import_cycles.py"], cwd=tmp_path, capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert report["module_cycles"] == [["venus_rpa.picker.services", "venus_rpa.picker.tasks"]]
    assert done.returncode == 1
