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


@pytest.fixture
def fast_sweep(settings):
    """The sweep as the test workers see it: 3 s without a heartbeat is stale; a queued run's
    message missing for 4 s is lost."""
    settings.VENUS_HEARTBEAT_STALE_SECONDS = 3
    settings.VENUS_QUEUED_STALE_SECONDS = 4
    return settings
