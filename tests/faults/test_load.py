"""200 demo runs submitted at once through the API (slow: `scripts/test.sh -m load tests/faults`)."""

from __future__ import annotations

import pytest

from tests.helpers.faults import settle, submit_batch, tally
from tests.faults.conftest import fault_worker

pytestmark = [pytest.mark.e2e, pytest.mark.load]


@pytest.mark.timeout(3600)
def test_two_hundred_runs_at_once_all_end_and_file_each_expense_once(api, practice_url, fast_sweep, tmp_path):
    with fault_worker(name="load", log_path=tmp_path / "worker.log"):
        batch = submit_batch(api, 200, tag="load")
        settle(batch, timeout=3000, sweep_every=5)
        result = tally(batch, practice_url)
    assert result["terminal"] == 200 and result["lost"] == 0, result
    assert result["duplicated"] == 0 and result["missing"] == 0, result
    assert result["statuses"] == {"succeeded": 200}, result
