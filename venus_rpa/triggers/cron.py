"""Cron expressions and time zones for schedules: parse, validate, list fire times.

Celery's `crontab` parses the five fields (so beat and this module agree on what each field
means); zoneinfo turns the schedule's wall-clock ticks into instants. Two rules worth knowing:

- Like Celery (and unlike Vixie cron), a tick must match day-of-month AND day-of-week when
  both are restricted.
- Wall-clock times that do not exist (the hour skipped when clocks go forward) have no tick;
  times that happen twice (clocks go back) tick once, at the first occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone as dt_timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, available_timezones

from celery.schedules import ParseException, crontab

MACROS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}
FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")
FIELD_LABELS = ("minute", "hour", "day of month", "month", "day of week")
# Far enough for the rarest expression Celery accepts (29 February on a given weekday).
SEARCH_DAYS = 366 * 30


class CronError(ValueError):
    """A cron expression or time zone that cannot be used; the message is for people."""


@dataclass(frozen=True)
class Cron:
    """A parsed five-field expression; `fields` are the strings stored in CrontabSchedule."""

    expression: str
    fields: dict[str, str]
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]  # Sunday is 0

    def matches_date(self, day: date) -> bool:
        return day.month in self.months and day.day in self.days_of_month and day.isoweekday() % 7 in self.days_of_week


def _sunday_as_seven(field: str) -> str:
    """Celery only knows Sunday as 0; cron also allows 7 (`7`, `5-7`)."""
    items = []
    for item in field.split(","):
        if item == "7":
            items.append("0")
        elif match := re.fullmatch(r"(\d+)-7", item):
            items.extend([f"{match.group(1)}-6", "0"])
        else:
            items.append(item)
    return ",".join(items)


def cron_parse(expression: str) -> Cron:
    """Parse `minute hour day-of-month month day-of-week` (or @daily, @hourly…); CronError if bad."""
    text = " ".join(str(expression).split()).lower()
    text = MACROS.get(text, text)
    parts = text.split(" ") if text else []
    if len(parts) != 5:
        raise CronError(f"A cron expression has five fields (minute hour day-of-month month day-of-week); "
                        f"got {len(parts)}.")
    parts[4] = _sunday_as_seven(parts[4])
    fields = dict(zip(FIELDS, parts))
    for name, label in zip(FIELDS, FIELD_LABELS):
        try:
            crontab(**{name: fields[name]})
        except (ValueError, ParseException) as exc:
            raise CronError(f"Invalid {label} field {fields[name]!r}: {_reason(exc, label)}") from None
    try:
        parsed = crontab(**fields)
    except (ValueError, ParseException) as exc:
        words = " ".join(str(exc).split()).replace("Invalid crontab: ", "")
        words = words.replace("day_of_month", "day of month").replace("month_of_year", "month")
        raise CronError(f"This expression never fires: {words}") from None
    return Cron(
        expression=text, fields=fields, minutes=tuple(sorted(parsed.minute)), hours=tuple(sorted(parsed.hour)),
        days_of_month=frozenset(parsed.day_of_month), months=frozenset(parsed.month_of_year),
        days_of_week=frozenset(parsed.day_of_week),
    )


_OUT_OF_RANGE = (re.compile(r"Invalid end range: (\d+) > (\d+)"), re.compile(r"Invalid beginning range: (\d+) < (\d+)"),
                 re.compile(r"Valid range is (\d+)-(\d+)\. '(\d+)' was found"))


def _reason(exc: Exception, label: str) -> str:
    """Celery's parser's message, in the words of someone writing a schedule."""
    message = " ".join(str(exc).split())
    if label == "day of week" and any(p.search(message) for p in _OUT_OF_RANGE):
        return "not a day of the week: use 0 to 7 (0 and 7 are Sunday) or sun, mon … sat."
    if "step cannot be zero" in message:
        return "a step of 0 never moves on: use /1 or more."
    if m := _OUT_OF_RANGE[0].search(message):
        return f"{m.group(1)} is past the last {label}, {m.group(2)}."
    if m := _OUT_OF_RANGE[1].search(message):
        return f"{m.group(1)} is before the first {label}, {m.group(2)}."
    if m := _OUT_OF_RANGE[2].search(message):
        return f"{m.group(3)} is not a {label}: use {m.group(1)} to {m.group(2)}."
    if "negative numbers" in message:
        return f"a {label} cannot be negative."
    if "empty part" in message or "empty filter" in message:
        return "a part is empty (two commas or a slash with nothing after it)."
    # Celery reports any unknown word as a "weekday literal", whatever the field.
    return message.replace("weekday literal", "value") if "weekday literal" in message else message


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(available_timezones())


def timezone_get(name: str) -> ZoneInfo:
    """The IANA zone called `name` (e.g. "Europe/Berlin"); CronError if there is none."""
    if name != "UTC" and name not in _zone_names():
        raise CronError(f"Unknown time zone {name!r}: use an IANA name such as 'Europe/Berlin' or 'UTC'.")
    return ZoneInfo(name)


def _tick(day: date, hour: int, minute: int, tz: ZoneInfo) -> datetime | None:
    """The instant of a wall-clock time in `tz`, or None if clocks skip it."""
    wall = datetime.combine(day, time(hour, minute), tzinfo=tz)
    if wall.astimezone(dt_timezone.utc).astimezone(tz).replace(tzinfo=None) != wall.replace(tzinfo=None):
        return None
    return wall


def next_fire_times(cron: Cron, tz: ZoneInfo, *, after: datetime, count: int = 5) -> list[datetime]:
    """The next `count` ticks strictly after `after`, as aware datetimes in `tz`."""
    out: list[datetime] = []
    start = after.astimezone(tz).date()
    for offset in range(SEARCH_DAYS):
        day = start + timedelta(days=offset)
        if not cron.matches_date(day):
            continue
        for hour in cron.hours:
            for minute in cron.minutes:
                tick = _tick(day, hour, minute, tz)
                if tick is not None and tick > after:
                    out.append(tick)
                    if len(out) == count:
                        return out
    return out


def latest_tick(cron: Cron, tz: ZoneInfo, *, at: datetime) -> datetime | None:
    """The last tick at or before `at` (None if there was none in the search window)."""
    start = at.astimezone(tz).date()
    for offset in range(SEARCH_DAYS):
        day = start - timedelta(days=offset)
        if not cron.matches_date(day):
            continue
        for hour in reversed(cron.hours):
            for minute in reversed(cron.minutes):
                tick = _tick(day, hour, minute, tz)
                if tick is not None and tick <= at:
                    return tick
    return None
