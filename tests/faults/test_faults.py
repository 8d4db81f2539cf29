"""Faults mid-batch with real processes: every run ends terminal with a reason (or is retried),
none is lost, no expense is filed twice; a worker that lived through both restarts still takes
a run through a person's review, held and parked. Fast versions (8 runs each); the 200-run batch
is in test_load.py (`scripts/test.sh -m load tests/faults`)."""

from __future__ import annotations

import pytest

from tests.helpers.faults import (
    TERMINAL, kill_chromium, kill_worker, restart_postgres, restart_redis, running_count, settle, submit_batch, tally, wait_until,
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


def test_a_worker_that_lived_through_redis_and_postgres_restarts_takes_runs_through_reviews(
        api, demo, practice_url, fast_sweep, tmp_path):
    """The worker keeps its pooled connections to both servers across their restarts; a review
    decided while the run holds its thread (Redis wakes the wait) and one decided after the run
    parked (the decision enqueues its continuation through the broker) both run to the end."""
    from tests.e2e.conftest import wait_for_run
    from tests.e2e.test_safety_end_to_end import checkout_automation, client_for, pending_review
    from venus_rpa.runs.services import run_start

    hold_s = 6
    with fault_worker(name="survivor", log_path=tmp_path / "worker.log",
                      env={"VENUS_REVIEW_HOLD_SECONDS": str(hold_s)}) as worker:
        batch = submit_batch(api, 2, tag="survivor")
        wait_until(lambda: running_count(batch) >= 1, timeout=60, what="a run under way")
        restart_redis(fast_sweep.REDIS_URL)
        restart_postgres()
        settle(batch, timeout=120)
        assert_nothing_lost_or_done_twice(tally(batch, practice_url), worker)
        # An acknowledgement lost with the connection heals itself: a warning, never CRITICAL.
        lost_acks = [line for line in (tmp_path / "worker.log").read_text(errors="replace").splitlines()
                     if "Couldn't ack" in line or "Couldn't acknowledge" in line]
        assert not [line for line in lost_acks if "CRITICAL" in line], lost_acks

        rita = client_for(demo["workspace"], "rita", "reviewer")
        automation = checkout_automation(demo, practice_url)
        for held in (True, False):
            run = run_start(automation=automation, params={})
            review = pending_review(run)
            if not held:  # past the hold window: parked, no thread held
                wait_until(lambda: run.refresh_from_db() or "parked after" in run.status_reason,
                           timeout=hold_s + 30, what="the run parked")
            answer = rita.post(f"/api/reviews/{review.pk}/approve/", {"comment": "ok"}, format="json")
            assert answer.status_code == 200, answer.content
            run = wait_for_run(run.pk, statuses=set(TERMINAL), timeout=90)
            assert run.status == "succeeded", (held, run.status_reason, log_tail(worker))
