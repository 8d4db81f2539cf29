"""Faults mid-batch with real processes: every run ends terminal with a reason (or is retried),
none is lost, no expense is filed twice. Fast versions (8 runs each); the 200-run batch is in
test_load.py (`scripts/test.sh -m load tests/faults`)."""

from __future__ import annotations

import pytest

from tests.helpers.faults import (
    kill_chromium, kill_worker, restart_postgres, restart_redis, running_count, settle, submit_batch, tally, wait_until,
)
from tests.faults.conftest import fault_worker
from tests.helpers.worker import log_tail

pytestmark = pytest.mark.e2e
SIZE = 8


def assert_nothing_lost_or_done_twice(result: dict, worker=None) -> None:
    assert result["lost"] == 0, (result, log_tail(worker) if worker is not None else "")
    assert result["duplicated"] == 0, result
    assert result["missing"] == 0, result  # a succeeded run filed its expense exactly once


def assert_every_failure_has_a_reason(batch) -> None:
    from venus_rpa.runs.models import Run

    assert not Run.objects.filter(pk__in=batch.run_ids).exclude(status="succeeded").filter(status_reason="").exists()


def test_a_worker_killed_mid_batch_loses_nothing_and_repeats_nothing(api, practice_url, fast_sweep, tmp_path):
    with fault_worker(name="doomed", log_path=tmp_path / "doomed.log") as doomed:
        batch = submit_batch(api, SIZE, tag="kill")
        wait_until(lambda: running_count(batch) >= 2, timeout=60, what="two runs under way")
        kill_worker(doomed)
    with fault_worker(name="spare", log_path=tmp_path / "spare.log"):
        settle(batch, timeout=120)
        result = tally(batch, practice_url)
    assert_nothing_lost_or_done_twice(result)
    assert_every_failure_has_a_reason(batch)
    assert result["retried"] >= 1, result  # the killed runs were taken up again, not just failed


def test_redis_restarted_mid_batch_strands_no_queued_run(api, practice_url, fast_sweep, tmp_path):
    with fault_worker(name="redis-fault", log_path=tmp_path / "worker.log"):
        batch = submit_batch(api, SIZE, tag="redis")
        wait_until(lambda: running_count(batch) >= 2, timeout=60, what="two runs under way")
        restart_redis(fast_sweep.REDIS_URL)  # the queued runs' messages are gone with its data
        settle(batch, timeout=120)
        result = tally(batch, practice_url)
    assert_nothing_lost_or_done_twice(result)
    assert_every_failure_has_a_reason(batch)
    assert result["statuses"].get("succeeded", 0) >= SIZE - 4, result


def test_postgres_restarted_mid_batch_loses_nothing_and_repeats_nothing(api, practice_url, fast_sweep, tmp_path):
    with fault_worker(name="pg-fault", log_path=tmp_path / "worker.log"):
        batch = submit_batch(api, SIZE, tag="pg")
        wait_until(lambda: running_count(batch) >= 2, timeout=60, what="two runs under way")
        restart_postgres()
        settle(batch, timeout=120)
        result = tally(batch, practice_url)
    assert_nothing_lost_or_done_twice(result)
    assert_every_failure_has_a_reason(batch)


def test_chromium_killed_mid_batch_fails_its_runs_with_a_reason(api, practice_url, fast_sweep, tmp_path):
    with fault_worker(name="chromium-fault", log_path=tmp_path / "worker.log") as worker:
        batch = submit_batch(api, SIZE, tag="chromium")
        wait_until(lambda: running_count(batch) >= 2, timeout=60, what="two runs under way")
        assert kill_chromium(worker) >= 1
        settle(batch, timeout=120)
        result = tally(batch, practice_url)
    assert_nothing_lost_or_done_twice(result, worker)
    assert_every_failure_has_a_reason(batch)
