from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import demo  # noqa: F401  (the seeded demo workspace, committed)


@pytest.fixture
def api(demo):  # noqa: F811
    """An API client with a token of the demo workspace's owner."""
    from venus_rpa.accounts.models import Membership
    from venus_rpa.accounts.services import api_token_create

    owner = Membership.objects.filter(workspace=demo["workspace"], role="owner").first().user
    _, raw = api_token_create(workspace=demo["workspace"], user=owner, name="faults")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


QUEUE = "faults"


@pytest.fixture
def fast_sweep(settings):
    """The sweep as the test workers see it: 3 s without a heartbeat is stale; a queued run's
    message missing for 4 s is lost. The runs go to this directory's queue: only the workers
    these tests start and kill take them (`fault_worker`), never another worker of the session."""
    settings.VENUS_HEARTBEAT_STALE_SECONDS = 3
    settings.VENUS_QUEUED_STALE_SECONDS = 4
    settings.VENUS_AGENT_QUEUE = QUEUE
    return settings


def fault_worker(*, name: str, log_path, env: dict | None = None):
    """A real worker on this directory's queue (tests.helpers.worker.celery_worker), with `env`."""
    from tests.helpers.worker import celery_worker

    return celery_worker(queues=QUEUE, name=name, log_path=log_path,
                         extra_env={"VENUS_AGENT_QUEUE": QUEUE, **(env or {})})
