"""A rotation widget that shows its answer: the practice site's ring variant
(`/captcha/image_rotation?variant=ring`, a turned disc inside an upright ring of the same
picture) through a real worker, Chromium and the practice site. The widget is typed by its
structure, the local route matches the disc against the ring (not the scene priors) and
drags the handle, and the page verifies the turn."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import wait_for_run

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


def rotation_automation(demo, practice_url: str, query: str, solvers: list[str], tries: int):
    """A one-page automation through the practice rotation widget (`query`: its variant)."""
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=demo["workspace"], user=None, slug=f"rotation-{'-'.join(solvers)}-{tries}", name="Rotation",
        definition={
            "surface": "web", "start_url": f"{practice_url}/captcha/image_rotation?{query}lang=none",
            "allowed_domains": ["127.0.0.1"],
            "steps": [{"kind": "click", "target": {"role": "button", "name": "Verify"}},
                      {"kind": "wait_for", "text": "Verified", "timeout_s": 5}],
            "captcha": {"solvers": solvers, "max_attempts": tries},
            "safety": {"review": []},  # these tests are about the CAPTCHA, not the Verify button's review
        })


def test_a_turned_disc_in_an_upright_ring_is_matched_against_the_ring_and_verified(worker, demo, practice_url):
    from venus_rpa.runs.services import run_start

    automation = rotation_automation(demo, practice_url, "variant=ring&", ["local"], 3)
    run = wait_for_run(run_start(automation=automation, params={}).pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    first = run.steps.filter(kind="captcha").order_by("index").first()
    assert first.action["kind"] == "image_rotation" and first.action["solver"] == "local"
    assert first.grounding["method"] == "reference (over)", first.grounding
