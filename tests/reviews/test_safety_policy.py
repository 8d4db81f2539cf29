"""The automation's `safety` policy: validated and normalised when saved, versioned like the rest of
the definition, and handed to the runtime as `SafetySettings`."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from tests.reviews.conftest import PRACTICE_URL

pytestmark = pytest.mark.django_db

BASE = {"slug": "buy", "name": "Buy", "start_url": PRACTICE_URL + "/shop", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "click", "target": "Place order"}]}


def test_a_policy_is_stored_normalised_and_reaches_the_runtime(clients, personas):
    from venus_rpa.automations.models import Automation
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import spec_for

    safety = {"pre_approved": [["PAY", "place order"], "SEND"], "blocked": ["DEL", "SEC", "DEL"],
              "on_reject": "skip", "review_timeout_s": 120}
    response = clients["owner"].post("/api/automations/", {**BASE, "safety": safety}, format="json")
    assert response.status_code == 201, response.content
    stored = response.json()["version"]["safety"]
    assert stored["pre_approved"] == [{"category": "PAY", "phrase": "place order"}, {"category": "SEND"}]
    assert stored["blocked"] == ["DEL", "SEC"] and stored["on_reject"] == "skip"
    assert stored["review"][:3] == ["PAY", "DEL", "SEND"] and stored["credential_sign_in"] is True

    automation = Automation.objects.get(slug="buy")
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=automation.current_version)
    spec = spec_for(run=run)
    assert spec.safety.blocked == ["DEL", "SEC"] and spec.safety.review_timeout_s == 120
    assert spec.safety.policy().pre_approved[0].phrase == "place order"


def test_a_changed_policy_makes_a_new_version_and_an_unchanged_one_does_not(clients):
    assert clients["owner"].post("/api/automations/", BASE, format="json").status_code == 201
    same = clients["owner"].patch("/api/automations/buy/", {"safety": {}}, format="json")
    assert same.json()["version"]["number"] == 1
    changed = clients["owner"].patch("/api/automations/buy/", {"safety": {"blocked": ["PAY"]}}, format="json")
    assert changed.json()["version"]["number"] == 2 and changed.json()["version"]["safety"]["blocked"] == ["PAY"]


@pytest.mark.parametrize(("safety", "field"), [
    ({"blocked": ["WIRE"]}, "safety.blocked"),
    ({"pre_approved": [["NOPE", "x"]]}, "safety.pre_approved"),
    ({"on_reject": "ignore"}, "safety.on_reject"),
    ({"review_timeout_s": 0}, "safety.review_timeout_s"),
    ({"allow_everything": True}, "safety.allow_everything"),
])
def test_an_invalid_policy_is_refused_naming_the_field(clients, safety, field):
    error = assert_error(clients["owner"].post("/api/automations/", {**BASE, "safety": safety}, format="json"), 400)
    assert field in error["fields"], error
