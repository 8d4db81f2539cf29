"""runs.stats: an automation's runs over a window, aggregated by PostgreSQL (counts by state per day,
success rate, interpolated p50/p95 durations, failure reasons grouped)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.dashboard.conftest import automation, foreign_automation, make_run  # noqa: F401 (fixtures)
from venus_rpa.runs.models import Run
from venus_rpa.runs.stats import REASON_KEY_CHARS, _nearest_rank, automation_run_stats, runs_with_reason, window_days

pytestmark = pytest.mark.django_db
LONG = "Step 4 (Save) failed: " + "x" * 400


def ran(of, status, *, days_ago: int = 0, seconds: float | None = None, reason: str = "") -> Run:
    """A run created `days_ago` days ago (at noon) that ran for `seconds` (None: never started)."""
    created = timezone.localtime().replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=days_ago)
    run = make_run(of, status=status, status_reason=reason)
    started = created + timedelta(seconds=5) if seconds is not None else None
    Run.objects.filter(pk=run.pk).update(
        created_at=created, started_at=started,
        finished_at=started + timedelta(seconds=seconds) if started and status not in ("running", "queued") else None)
    return run


@pytest.fixture
def history(automation, foreign_automation):  # noqa: F811
    for seconds in (10, 20, 30):
        ran(automation, "succeeded", seconds=seconds)
    ran(automation, "failed", seconds=40, reason="Submit button not found")
    ran(automation, "running", seconds=1)
    ran(automation, "failed", days_ago=2, seconds=50, reason="Submit button not found")
    ran(automation, "timed_out", days_ago=2, seconds=300, reason="took longer than 300 s")
    ran(automation, "cancelled", days_ago=2)
    ran(automation, "succeeded", days_ago=40, seconds=7)
    ran(foreign_automation, "failed", seconds=999, reason="Submit button not found")
    return automation


def test_it_counts_states_and_interpolates_percentiles_over_the_window(history):
    stats = automation_run_stats(automation=history, days=30)
    assert stats.total == 8 and stats.in_progress == 1
    assert stats.counts == {"succeeded": 3, "failed": 2, "timed_out": 1, "cancelled": 1}
    assert stats.success_rate == pytest.approx(0.5)  # 3 of the 6 that ended on their own
    # Durations 10, 20, 30, 40, 50, 300 s (the cancelled run never started; the running one has not ended).
    assert stats.p50_s == pytest.approx(35.0) and stats.p95_s == pytest.approx(237.5)


def test_it_gives_every_day_of_the_window_with_its_own_figures(history):
    stats = automation_run_stats(automation=history, days=7)
    assert len(stats.days) == 7 and stats.days[-1].day == timezone.localdate()
    today, two_days_ago = stats.days[-1], stats.days[-3]
    assert today.counts == {"succeeded": 3, "failed": 1, "timed_out": 0, "cancelled": 0}
    assert today.p50_s == pytest.approx(25.0) and today.p95_s == pytest.approx(38.5)
    assert two_days_ago.counts == {"succeeded": 0, "failed": 1, "timed_out": 1, "cancelled": 1}
    assert two_days_ago.p50_s == pytest.approx(175.0) and two_days_ago.p95_s == pytest.approx(287.5)
    assert stats.days[0].counts == {"succeeded": 0, "failed": 0, "timed_out": 0, "cancelled": 0}
    assert stats.days[0].p50_s is None


def test_a_longer_window_reaches_older_runs(history):
    assert automation_run_stats(automation=history, days=30).counts["succeeded"] == 3
    assert automation_run_stats(automation=history, days=90).counts["succeeded"] == 4


def test_failure_reasons_are_grouped_most_first_and_stay_in_the_automation(history):
    stats = automation_run_stats(automation=history, days=30)
    assert [(g.status, g.reason, g.count) for g in stats.reasons] == [
        ("failed", "Submit button not found", 2), ("timed_out", "took longer than 300 s", 1)]


def test_long_reasons_group_by_their_start_and_filter_back_to_the_same_runs(automation):  # noqa: F811
    ran(automation, "failed", seconds=1, reason=LONG + " at 10:01")
    ran(automation, "failed", seconds=1, reason=LONG + " at 10:02")
    ran(automation, "failed", seconds=1, reason=LONG[:50])  # a shorter reason that starts the same way
    groups = automation_run_stats(automation=automation, days=7).reasons
    assert sorted(g.count for g in groups) == [1, 2]
    long_group = next(g for g in groups if g.count == 2)
    assert len(long_group.reason) == REASON_KEY_CHARS
    assert runs_with_reason(Run.objects.all(), long_group.reason).count() == 2
    assert runs_with_reason(Run.objects.all(), LONG[:50]).count() == 1  # exact for a whole reason


def test_it_aggregates_in_a_fixed_number_of_queries(automation):  # noqa: F811
    for index in range(30):
        ran(automation, "succeeded" if index % 3 else "failed", days_ago=index % 10, seconds=index + 1, reason=f"r{index % 4}")
    with CaptureQueriesContext(connection) as queries:
        stats = automation_run_stats(automation=automation, days=30)
    assert stats.total == 30 and len(queries) == 3
    assert all("PERCENTILE_CONT" in q["sql"] for q in queries.captured_queries[:2])


def test_an_unknown_window_falls_back_to_thirty_days():
    assert [window_days(v) for v in ("7", "90", "31", "abc", None, "-7")] == [7, 90, 30, 30, 30, 30]


def test_without_postgresql_the_overall_percentiles_are_read_by_nearest_rank(history):
    runs = Run.objects.filter(automation=history, created_at__date__gte=timezone.localdate() - timedelta(days=29))
    # Durations 10, 20, 30, 40, 50, 300 s: rank ⌈0.5·6⌉ = 3 and ⌈0.95·6⌉ = 6.
    assert _nearest_rank(runs, 0.5, 6) == 30.0 and _nearest_rank(runs, 0.95, 6) == 300.0
    assert _nearest_rank(runs, 0.5, 0) is None
