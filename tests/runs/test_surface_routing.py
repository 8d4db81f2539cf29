"""One queue per surface: run tasks go to their surface's queue; a worker serves the surfaces of
the queues it consumes; a runner refuses a surface it has no host for."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers.runtime import ListRecorder
from venus_rpa.runs.queues import route_run_task, surfaces_served
from workers.runner import Runner
from workers.secrets import SecretBox
from workers.steps import AutomationSpec


@pytest.mark.django_db
@pytest.mark.parametrize("surface, queue", [("web", "agent"), ("android", "android"), ("desktop", "desktop")])
def test_run_tasks_are_routed_to_their_surfaces_queue(personas, surface, queue):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.services import run_start

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug=f"on-{surface}", name="x",
                                   definition={"surface": surface, "allowed_domains": ["example.com"],
                                               "steps": [{"kind": "wait_for", "text": "x"}]})
    run = run_start(automation=automation, params={})
    for task in ("venus_rpa.runs.tasks.run_execute_task", "venus_rpa.runs.tasks.run_resume_task"):
        assert route_run_task(task, [run.pk], {}, {}) == {"queue": queue}
    assert route_run_task("venus_rpa.triggers.tasks.deliver", [run.pk], {}, {}) is None


@pytest.mark.django_db
def test_an_explicit_queue_wins_over_the_surface_route():
    from venus_rpa import celery_app

    route = celery_app.amqp.router.route({"queue": "hold"}, "venus_rpa.runs.tasks.run_execute_task", args=[10**9])
    assert route["queue"].name == "hold"


def test_a_worker_serves_the_surfaces_of_the_queues_it_consumes(settings):
    assert surfaces_served({"agent", "default"}) == {"web"}
    assert surfaces_served({"android"}) == {"android"}
    assert surfaces_served({"android", "desktop", "default"}) == {"android", "desktop"}
    assert surfaces_served({"default"}) == set()
    assert surfaces_served({"my-own-web-queue"}) == {"web"}  # operators and tests route web runs to queues of their own
    settings.VENUS_ANDROID_QUEUE = "phones"
    assert surfaces_served({"phones", "android"}) == {"android", "web"}


def test_a_runner_refuses_a_surface_it_has_no_host_for():
    spec = AutomationSpec.model_validate({"surface": "android", "steps": [{"kind": "wait_for", "text": "x"}]})
    recorder = ListRecorder()
    result = asyncio.run(Runner({}).run(spec, params={}, secrets=SecretBox(), recorder=recorder))
    assert result.status == "failed"
    assert result.reason == ("this worker cannot run 'android' automations (it serves: none); start a worker on the "
                             "'android' queue (docs/surfaces.md)")
