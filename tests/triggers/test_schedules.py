"""Schedules: validation, the django-celery-beat PeriodicTask kept in step, next fire times in
the schedule's time zone, pause/resume, and fires that start exactly one run per tick."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from tests.api.conftest import assert_error
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.triggers import services
from venus_rpa.triggers.cron import cron_parse, latest_tick, next_fire_times, timezone_get
from venus_rpa.triggers.models import Schedule, ScheduleFire
from venus_rpa.triggers.tasks import schedule_fire_task

LIST = "/api/schedules/"
NEW_YORK = ZoneInfo("America/New_York")
UTC = dt_timezone.utc


def detail(schedule_id: int) -> str:
    return f"/api/schedules/{schedule_id}/"


def body(automation, **overrides) -> dict:
    return {"automation": automation.slug, "name": "Weekday mornings", "cron": "30 9 * * 1-5",
            "timezone": "America/New_York", "params": {"order_id": "1042"}, **overrides}


def schedule_make(automation, user, *, cron: str = "0 3 * * *", tz: str = "UTC", age: timedelta = timedelta(days=2),
                  created_at: datetime | None = None, **kwargs) -> Schedule:
    """A schedule created `age` ago, or at `created_at` (so the ticks after it are due)."""
    schedule = services.schedule_create(workspace=automation.workspace, user=user, automation=automation,
                                        name="Nightly", cron=cron, timezone_name=tz,
                                        params=kwargs.pop("params", {"order_id": "7"}), **kwargs)
    Schedule.objects.filter(pk=schedule.pk).update(created_at=created_at or timezone.now() - age)
    schedule.refresh_from_db()
    return schedule


# --- create, validate, beat wiring ----------------------------------------------------------------


@pytest.mark.django_db
def test_create_schedule_creates_an_enabled_periodic_task_on_the_default_queue(owner, automation):
    response = owner.post(LIST, body(automation), format="json")

    assert response.status_code == 201, response.json()
    schedule = Schedule.objects.get(pk=response.json()["id"])
    assert (schedule.cron, schedule.timezone, schedule.params) == ("30 9 * * 1-5", "America/New_York",
                                                                   {"order_id": "1042"})
    task = schedule.periodic_task
    assert task.task == "venus_rpa.triggers.tasks.schedule_fire_task"
    assert json.loads(task.args) == [schedule.pk]
    assert task.queue == "default"
    assert task.enabled is True
    crontab = task.crontab
    assert (crontab.minute, crontab.hour, crontab.day_of_month, crontab.month_of_year, crontab.day_of_week) == (
        "30", "9", "*", "*", "1-5")
    assert str(crontab.timezone) == "America/New_York"


@pytest.mark.django_db
def test_beat_reads_the_schedule_as_a_crontab_in_its_time_zone(automation, personas):
    from django_celery_beat.schedulers import DatabaseScheduler

    from venus_rpa.celery import app

    schedule = schedule_make(automation, personas.owner, cron="*/10 * * * 1-5", tz="America/New_York")

    entry = DatabaseScheduler(app=app, lazy=True).all_as_schedule()[schedule.periodic_task.name]

    assert entry.task == "venus_rpa.triggers.tasks.schedule_fire_task"
    assert list(entry.args) == [schedule.pk]
    assert entry.options["queue"] == "default"
    assert str(entry.schedule.tz) == "America/New_York"
    assert entry.schedule.minute == {0, 10, 20, 30, 40, 50} and entry.schedule.day_of_week == {1, 2, 3, 4, 5}


@pytest.mark.django_db
def test_next_fire_times_are_the_next_five_ticks_in_the_schedule_time_zone(owner, automation):
    before = timezone.now()
    response = owner.post(LIST, body(automation), format="json")

    times = [datetime.fromisoformat(t) for t in response.json()["next_fire_times"]]
    expected, day = [], before.astimezone(NEW_YORK).date()
    while len(expected) < 5:  # weekdays at 09:30 New York time, counted independently
        tick = datetime(day.year, day.month, day.day, 9, 30, tzinfo=NEW_YORK)
        if day.weekday() < 5 and tick > before:
            expected.append(tick)
        day += timedelta(days=1)
    assert times == expected
    assert all(t.utcoffset() == t.astimezone(NEW_YORK).utcoffset() for t in times)  # shown in New York time


def test_next_fire_times_follow_daylight_saving_time():
    berlin = timezone_get("Europe/Berlin")
    after = datetime(2026, 3, 27, 12, 0, tzinfo=UTC)  # clocks go forward on Sunday 29 March 2026

    daily = next_fire_times(cron_parse("30 9 * * *"), berlin, after=after, count=3)
    assert [t.astimezone(UTC) for t in daily] == [
        datetime(2026, 3, 28, 8, 30, tzinfo=UTC), datetime(2026, 3, 29, 7, 30, tzinfo=UTC),
        datetime(2026, 3, 30, 7, 30, tzinfo=UTC)]
    # 02:30 does not exist on the 29th in Berlin: no tick that day.
    skipped = next_fire_times(cron_parse("30 2 * * *"), berlin, after=after, count=2)
    assert [t.date().isoformat() for t in skipped] == ["2026-03-28", "2026-03-30"]


def test_cron_macros_and_sunday_as_seven_are_understood():
    assert cron_parse("@daily").expression == "0 0 * * *"
    assert cron_parse("0 9 * * 5-7").days_of_week == frozenset({5, 6, 0})
    tick = latest_tick(cron_parse("*/15 * * * *"), timezone_get("UTC"), at=datetime(2026, 6, 1, 10, 7, 30, tzinfo=UTC))
    assert tick == datetime(2026, 6, 1, 10, 0, tzinfo=UTC)


@pytest.mark.django_db
@pytest.mark.parametrize("cron", ["* * *", "61 * * * *", "every day", "0 0 31 2 *", "* * * * 8", "*/0 * * * *"])
def test_a_bad_cron_expression_is_400_on_the_cron_field(owner, automation, cron):
    error = assert_error(owner.post(LIST, body(automation, cron=cron), format="json"), 400, "invalid")
    assert list(error["fields"]) == ["cron"]
    assert error["fields"]["cron"][0]
    assert not Schedule.objects.exists() and not PeriodicTask.objects.filter(name__startswith="venus-").exists()


@pytest.mark.parametrize("cron, said", [
    ("61 * * * *", "Invalid minute field '61': 61 is past the last minute, 59."),
    ("0 9 0 * *", "Invalid day of month field '0': 0 is before the first day of month, 1."),
    ("0 9 * * 8", "Invalid day of week field '8': not a day of the week: use 0 to 7 (0 and 7 are Sunday) or sun, mon … sat."),
    ("*/0 * * * *", "Invalid minute field '*/0': a step of 0 never moves on: use /1 or more."),
    ("0 9 * * 1,,2", "Invalid day of week field '1,,2': a part is empty (two commas or a slash with nothing after it)."),
    ("0 0 31 2 *", "This expression never fires: day of month '31' never occurs in month '2'.")])
def test_a_bad_cron_expression_is_said_in_words_not_the_parsers(cron, said):
    from venus_rpa.triggers.cron import CronError, cron_parse

    with pytest.raises(CronError) as exc:
        cron_parse(cron)
    assert str(exc.value) == said


@pytest.mark.django_db
@pytest.mark.parametrize("tz", ["Mars/Olympus_Mons", "../../etc/passwd", "EST5EDT-nope"])
def test_an_unknown_time_zone_is_400_on_the_timezone_field(owner, automation, tz):
    error = assert_error(owner.post(LIST, body(automation, timezone=tz), format="json"), 400, "invalid")
    assert list(error["fields"]) == ["timezone"]


@pytest.mark.django_db
def test_params_are_validated_against_the_automation_schema(owner, automation):
    error = assert_error(owner.post(LIST, body(automation, params={"order_id": "abc", "colour": "red"}),
                                    format="json"), 400, "invalid")
    assert "params.order_id" in error["fields"] and "params" in error["fields"]

    error = assert_error(owner.post(LIST, body(automation, params={}), format="json"), 400, "invalid")
    assert error["fields"] == {"params.order_id": ["This parameter is required."]}


@pytest.mark.django_db
def test_every_bad_field_is_reported_at_once(owner, automation):
    error = assert_error(owner.post(LIST, body(automation, cron="nope", timezone="Nowhere", params={}), format="json"),
                         400, "invalid")
    assert set(error["fields"]) == {"cron", "timezone", "params.order_id"}


@pytest.mark.django_db
def test_create_rejects_unknown_fields_and_other_workspaces_automations(owner, automation, other_automation):
    assert_error(owner.post(LIST, body(automation, every="day"), format="json"), 400)
    error = assert_error(owner.post(LIST, body(other_automation), format="json"), 400)
    assert "automation" in error["fields"]


# --- update, pause, resume, delete ----------------------------------------------------------------


@pytest.mark.django_db
def test_patch_updates_the_periodic_task(owner, automation):
    created = owner.post(LIST, body(automation), format="json").json()

    response = owner.patch(detail(created["id"]), {"cron": "0 18 * * *", "timezone": "Asia/Tokyo"}, format="json")

    assert response.status_code == 200, response.json()
    assert datetime.fromisoformat(response.json()["next_fire_times"][0]).hour == 18
    crontab = Schedule.objects.get(pk=created["id"]).periodic_task.crontab
    assert (crontab.minute, crontab.hour, crontab.day_of_week, str(crontab.timezone)) == ("0", "18", "*", "Asia/Tokyo")
    assert CrontabSchedule.objects.count() == 1
    assert_error(owner.patch(detail(created["id"]), {"cron": "0 25 * * *"}, format="json"), 400)
    assert_error(owner.patch(detail(created["id"]), {"params": {"order_id": 5}}, format="json"), 400)


@pytest.mark.django_db
def test_pause_and_resume_toggle_the_periodic_task(owner, automation):
    created = owner.post(LIST, body(automation), format="json").json()

    paused = owner.post(f"{detail(created['id'])}pause/")
    assert paused.status_code == 200
    assert paused.json()["enabled"] is False and paused.json()["next_fire_times"] == []
    assert Schedule.objects.get(pk=created["id"]).periodic_task.enabled is False
    assert owner.post(f"{detail(created['id'])}pause/").status_code == 200  # idempotent

    resumed = owner.post(f"{detail(created['id'])}resume/")
    assert resumed.json()["enabled"] is True and len(resumed.json()["next_fire_times"]) == 5
    assert Schedule.objects.get(pk=created["id"]).periodic_task.enabled is True


@pytest.mark.django_db
def test_delete_removes_the_periodic_task_and_its_crontab(owner, automation):
    created = owner.post(LIST, body(automation), format="json").json()
    assert owner.delete(detail(created["id"])).status_code == 204
    assert not Schedule.objects.exists()
    assert not PeriodicTask.objects.filter(name=f"venus-schedule-{created['id']}").exists()
    assert not CrontabSchedule.objects.exists()


# --- firing ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_due_schedule_fires_one_run_even_when_the_task_runs_twice(automation, personas):
    schedule = schedule_make(automation, personas.owner, cron="0 3 * * *")

    schedule_fire_task(schedule.pk)
    schedule_fire_task(schedule.pk)

    run = Run.objects.get()
    assert run.trigger == Trigger.SCHEDULE
    assert run.params == {"order_id": "7", "priority": "low"}
    fire = ScheduleFire.objects.get()
    assert fire.run == run and fire.error == ""
    expected_tick = latest_tick(cron_parse("0 3 * * *"), timezone_get("UTC"), at=timezone.now())
    assert fire.fire_time == expected_tick
    schedule.refresh_from_db()
    assert schedule.last_fired_at == expected_tick and schedule.last_error == ""


@pytest.mark.django_db(transaction=True)
def test_concurrent_fires_of_one_tick_start_exactly_one_run(automation, personas, no_run_enqueue):
    schedule = schedule_make(automation, personas.owner, cron="*/5 * * * *")
    now, barrier, results = timezone.now(), threading.Barrier(4), []

    def fire() -> None:
        try:
            barrier.wait()
            results.append(services.schedule_fire(schedule_id=schedule.pk, now=now))
        finally:
            connection.close()

    threads = [threading.Thread(target=fire) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sum(result is not None for result in results) == 1
    assert Run.objects.filter(trigger=Trigger.SCHEDULE).count() == 1
    assert ScheduleFire.objects.count() == 1
    assert len(no_run_enqueue) == 1


@pytest.mark.django_db
def test_each_tick_fires_once_at_the_latest_tick_before_now(automation, personas):
    schedule = schedule_make(automation, personas.owner, cron="*/15 * * * *", tz="Europe/Berlin",
                             created_at=datetime(2026, 5, 1, tzinfo=UTC))

    first = services.schedule_fire(schedule_id=schedule.pk, now=datetime(2026, 6, 1, 10, 7, 30, tzinfo=UTC))
    late_duplicate = services.schedule_fire(schedule_id=schedule.pk, now=datetime(2026, 6, 1, 10, 14, 59, tzinfo=UTC))
    next_tick = services.schedule_fire(schedule_id=schedule.pk, now=datetime(2026, 6, 1, 10, 15, 0, 400, tzinfo=UTC))

    assert first.fire_time == datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
    assert late_duplicate is None
    assert next_tick.fire_time == datetime(2026, 6, 1, 10, 15, tzinfo=UTC)
    assert Run.objects.count() == 2


@pytest.mark.django_db
def test_ticks_before_the_schedule_existed_do_not_fire(automation, personas):
    schedule = schedule_make(automation, personas.owner, cron="0 3 * * *", age=timedelta(0))
    assert services.schedule_fire(schedule_id=schedule.pk, now=timezone.now()) is None
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_fire_whose_params_no_longer_validate_records_an_error_and_starts_no_run(automation, personas):
    from venus_rpa.automations.services import automation_update

    schedule = schedule_make(automation, personas.owner, params={"order_id": "7"})
    schema = {**automation.current_version.param_schema}
    schema["properties"] = {**schema["properties"], "order_id": {"type": "string", "pattern": "^ORD-[0-9]+$"}}
    automation_update(automation=automation, user=personas.owner, definition={"param_schema": schema})

    schedule_fire_task(schedule.pk)  # does not raise

    assert not Run.objects.exists()
    fire = ScheduleFire.objects.get()
    assert fire.run is None and "params.order_id" in fire.error
    schedule.refresh_from_db()
    assert "params.order_id" in schedule.last_error and schedule.last_fired_at == fire.fire_time


@pytest.mark.django_db
def test_a_paused_schedule_does_not_fire(owner, automation, personas):
    schedule = schedule_make(automation, personas.owner)
    owner.post(f"{detail(schedule.pk)}pause/")
    schedule_fire_task(schedule.pk)
    assert not Run.objects.exists() and not ScheduleFire.objects.exists()


@pytest.mark.django_db
def test_the_beat_entry_of_a_vanished_schedule_removes_itself(automation, personas):
    schedule = schedule_make(automation, personas.owner)
    task_name = schedule.periodic_task.name
    Schedule.objects.filter(pk=schedule.pk).delete()  # e.g. deleted along with its automation

    schedule_fire_task(schedule.pk)

    assert not PeriodicTask.objects.filter(name=task_name).exists()
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_detail_lists_recent_fires(owner, automation, personas):
    schedule = schedule_make(automation, personas.owner)
    schedule_fire_task(schedule.pk)
    fires = owner.get(detail(schedule.pk)).json()["recent_fires"]
    assert [f["run"] for f in fires] == [Run.objects.get().pk]


# --- roles and isolation --------------------------------------------------------------------------


@pytest.mark.django_db
def test_viewers_can_read_but_not_write(viewer, owner, automation):
    created = owner.post(LIST, body(automation), format="json").json()
    assert viewer.get(LIST).status_code == 200 and viewer.get(detail(created["id"])).status_code == 200
    assert_error(viewer.post(LIST, body(automation), format="json"), 403)
    assert_error(viewer.patch(detail(created["id"]), {"name": "x"}, format="json"), 403)
    assert_error(viewer.post(f"{detail(created['id'])}pause/"), 403)
    assert_error(viewer.delete(detail(created["id"])), 403)
    assert Schedule.objects.get().enabled is True


@pytest.mark.django_db
def test_editors_can_create_and_pause(editor, automation):
    created = editor.post(LIST, body(automation), format="json")
    assert created.status_code == 201
    assert editor.post(f"{detail(created.json()['id'])}pause/").json()["enabled"] is False


@pytest.mark.django_db
def test_other_workspaces_get_404(outsider, owner, automation):
    created = owner.post(LIST, body(automation), format="json").json()
    assert outsider.get(LIST).json()["results"] == []
    for response in (outsider.get(detail(created["id"])), outsider.patch(detail(created["id"]), {"name": "x"},
                                                                         format="json"),
                     outsider.post(f"{detail(created['id'])}pause/"), outsider.delete(detail(created["id"]))):
        assert_error(response, 404)
    assert Schedule.objects.get().enabled is True
