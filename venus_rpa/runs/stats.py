"""Figures of one automation's runs over a window of days, for its overview page: runs per day by
terminal state, success rate, duration percentiles (p50/p95) and failure reasons grouped.

Everything is aggregated in the database, bounded to the window: a query per figure, never a
loop over the runs. Days are calendar days of the current time zone, by the run's creation time,
as the runs list's "From"/"To" filters count them, so a figure links to the runs it counts.
Durations are from start to finish of runs that ended after starting. On PostgreSQL the
percentiles are `percentile_cont` (interpolated, per day and overall); other databases (the
embedded SQLite default) get the overall ones by nearest rank and none per day.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db import connection
from django.db.models import Aggregate, Count, DurationField, ExpressionWrapper, F, FloatField, Func, Q, QuerySet
from django.db.models.functions import Left, TruncDate
from django.utils import timezone

from venus_rpa.automations.models import Automation
from venus_rpa.runs.models import TERMINAL, Run, RunStatus

WINDOWS = (7, 30, 90)
DEFAULT_WINDOW = 30
# States drawn per day, in the order of the chart's stacks.
TERMINAL_ORDER = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.TIMED_OUT, RunStatus.CANCELLED)
# A failure reason is grouped (and filtered from the runs list) by this many first characters.
REASON_KEY_CHARS = 300
REASON_GROUPS = 20


class Percentile(Aggregate):
    """PostgreSQL's `percentile_cont(fraction) WITHIN GROUP (ORDER BY expression)`."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression, *, fraction: float, **extra) -> None:
        if not 0.0 <= fraction <= 1.0:
            raise ValueError("a percentile's fraction is between 0 and 1")
        super().__init__(expression, fraction=f"{float(fraction):.4f}", **extra)


class EpochSeconds(Func):
    """Seconds in an interval (PostgreSQL `EXTRACT(EPOCH FROM …)`)."""

    template = "EXTRACT(EPOCH FROM %(expressions)s)"
    output_field = FloatField()


@dataclass(frozen=True)
class DayFigures:
    day: date
    counts: dict[str, int]  # terminal state -> runs created that day that ended so
    p50_s: float | None
    p95_s: float | None


@dataclass(frozen=True)
class ReasonGroup:
    status: str
    reason: str  # the first REASON_KEY_CHARS characters ("" when none was recorded)
    count: int


@dataclass(frozen=True)
class RunStats:
    window: int
    since: date
    until: date
    total: int  # runs created in the window, in any state
    counts: dict[str, int]  # terminal state -> runs
    in_progress: int
    success_rate: float | None  # succeeded / (ended, not cancelled), 0–1; None without such runs
    p50_s: float | None
    p95_s: float | None
    days: list[DayFigures] = field(default_factory=list)
    reasons: list[ReasonGroup] = field(default_factory=list)

    @property
    def ended(self) -> int:
        return sum(self.counts.values())


def window_days(value: object) -> int:
    """The window asked for (`?days=`), one of WINDOWS; anything else is the default."""
    try:
        days = int(str(value))
    except (TypeError, ValueError):
        return DEFAULT_WINDOW
    return days if days in WINDOWS else DEFAULT_WINDOW


def _runs_in(automation: Automation, since: date, until: date) -> QuerySet[Run]:
    return Run.objects.filter(automation=automation, created_at__date__gte=since,
                              created_at__date__lte=until).order_by()


def _duration():
    return ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())


def _timed(runs: QuerySet[Run]) -> QuerySet[Run]:
    return runs.filter(status__in=TERMINAL, started_at__isnull=False, finished_at__isnull=False)


def _state_counts() -> dict[str, Count]:
    return {str(status): Count("pk", filter=Q(status=status)) for status in TERMINAL_ORDER}


def _percentiles_pg() -> dict[str, Percentile]:
    seconds = EpochSeconds(_duration())
    return {"p50": Percentile(seconds, fraction=0.5, filter=_timed_q()),
            "p95": Percentile(seconds, fraction=0.95, filter=_timed_q())}


def _timed_q() -> Q:
    return Q(status__in=TERMINAL, started_at__isnull=False, finished_at__isnull=False)


def _nearest_rank(runs: QuerySet[Run], fraction: float, count: int) -> float | None:
    """The `fraction` percentile of the durations by nearest rank, read at one offset."""
    if not count:
        return None
    offset = min(count - 1, max(0, math.ceil(fraction * count) - 1))  # rank ⌈p·n⌉, 1-based
    row = _timed(runs).annotate(d=_duration()).order_by("d").values_list("d", flat=True)[offset:offset + 1]
    value = next(iter(row), None)
    return value.total_seconds() if value is not None else None


def automation_run_stats(*, automation: Automation, days: int = DEFAULT_WINDOW, today: date | None = None) -> RunStats:
    """The figures of `automation`'s runs created in the last `days` days (today included)."""
    until = today or timezone.localdate()
    since = until - timedelta(days=days - 1)
    runs = _runs_in(automation, since, until)
    postgres = connection.vendor == "postgresql"
    totals = runs.aggregate(total=Count("pk"), timed=Count("pk", filter=_timed_q()), **_state_counts(),
                            **(_percentiles_pg() if postgres else {}))
    counts = {str(s): totals[str(s)] for s in TERMINAL_ORDER}
    if not postgres:
        totals["p50"] = _nearest_rank(runs, 0.5, totals["timed"])
        totals["p95"] = _nearest_rank(runs, 0.95, totals["timed"])
    judged = counts[RunStatus.SUCCEEDED] + counts[RunStatus.FAILED] + counts[RunStatus.TIMED_OUT]
    return RunStats(
        window=days, since=since, until=until, total=totals["total"], counts=counts,
        in_progress=totals["total"] - sum(counts.values()),
        success_rate=counts[RunStatus.SUCCEEDED] / judged if judged else None,
        p50_s=_rounded(totals["p50"]), p95_s=_rounded(totals["p95"]),
        days=_per_day(runs, since, until, postgres), reasons=_reasons(runs),
    )


def _rounded(seconds: float | None) -> float | None:
    return round(float(seconds), 3) if seconds is not None else None


def _per_day(runs: QuerySet[Run], since: date, until: date, postgres: bool) -> list[DayFigures]:
    """One entry per day of the window, days without runs included (zeros, no percentiles)."""
    rows = (runs.annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
            .values("day").annotate(**_state_counts(), **(_percentiles_pg() if postgres else {})))
    by_day = {row["day"]: row for row in rows}
    out = []
    for offset in range((until - since).days + 1):
        day = since + timedelta(days=offset)
        row = by_day.get(day, {})
        out.append(DayFigures(day=day, counts={str(s): row.get(str(s), 0) for s in TERMINAL_ORDER},
                              p50_s=_rounded(row.get("p50")), p95_s=_rounded(row.get("p95"))))
    return out


def _reasons(runs: QuerySet[Run]) -> list[ReasonGroup]:
    """Failed and timed-out runs grouped by state and the start of their reason, most first."""
    rows = (runs.filter(status__in=[RunStatus.FAILED, RunStatus.TIMED_OUT])
            .annotate(key=Left("status_reason", REASON_KEY_CHARS)).values("status", "key")
            .annotate(n=Count("pk")).order_by("-n", "status", "key")[:REASON_GROUPS])
    return [ReasonGroup(status=r["status"], reason=r["key"], count=r["n"]) for r in rows]


def runs_with_reason(runs: QuerySet[Run], reason: str) -> QuerySet[Run]:
    """The runs of a failure-reason group (`ReasonGroup.reason`): the exact reason, or for a reason
    cut at REASON_KEY_CHARS, every reason that starts with it."""
    reason = reason[:REASON_KEY_CHARS]
    if len(reason) < REASON_KEY_CHARS:
        return runs.filter(status_reason=reason)
    return runs.filter(status_reason__startswith=reason)
