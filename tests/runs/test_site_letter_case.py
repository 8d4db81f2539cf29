"""What a site's verdicts taught about its text CAPTCHAs' letter case, stored per automation and
host (venus_rpa.automations.letter_case) against the real database: runs of one automation
answering at once lose none of each other's verdicts, another automation (or workspace) never
reads them, and a bad value is the prior."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import connection

from tests.runs.conftest import queue_runs
from venus_rpa.automations.letter_case import site_letter_case, site_letter_case_add
from venus_rpa.automations.models import SiteLetterCase
from venus_rpa.runs.execution import DjangoRecorder
from workers.captcha import letter_case as L
from workers.captcha.site_memory import SiteMemory

pytestmark = pytest.mark.django_db(transaction=True)
ACCEPTED = L.evidence(0.4, 0.9, True).tolist()  # a coin-toss case the site took


def _four_runs_at_once(**verdict) -> None:
    """Four threads (four runs of one automation) each adding five verdicts; `answer` may hold
    "{n}", the thread's number."""
    errors: list[BaseException] = []

    def answer(n: int):
        try:
            for _ in range(5):
                site_letter_case_add(**{**verdict, "answer": verdict.get("answer", "").format(n=n)})
        except BaseException as exc:  # noqa: BLE001 -- reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=answer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_verdicts_of_runs_at_once_all_count(two_workspaces):
    automation = two_workspaces["a"]
    _four_runs_at_once(automation_id=automation.pk, host="shop.test", loglik=ACCEPTED, accepted=True)
    row = SiteLetterCase.objects.get(automation=automation, host="shop.test")
    assert (row.accepted, row.refused) == (20, 0)
    expected = L.prior()
    for _ in range(20):
        expected = L.bounded(expected + L.evidence(0.4, 0.9, True))
    assert row.ignored == pytest.approx(L.ignored(expected), abs=1e-3) and row.ignored > 0.99


def test_one_automation_never_reads_anothers_and_a_bad_value_is_bounded(two_workspaces):
    a, b = two_workspaces["a"], two_workspaces["b"]
    site_letter_case_add(automation_id=a.pk, host="shop.test", loglik=ACCEPTED, accepted=True)
    assert site_letter_case(automation_id=a.pk, host="shop.test") is not None
    assert site_letter_case(automation_id=b.pk, host="shop.test") is None
    assert site_letter_case(automation_id=a.pk, host="other.test") is None
    site_letter_case_add(automation_id=b.pk, host="shop.test", loglik=[[1e9] * 3], accepted=False)
    row = SiteLetterCase.objects.get(automation=b)
    assert row.ignored == pytest.approx(L.PRIOR_IGNORED, abs=1e-3) and row.refused == 1  # counted, nothing learned


def test_the_recorder_reads_and_adds_for_its_runs_automation(two_workspaces):
    automation = two_workspaces["a"]
    run = queue_runs(automation, 1)[0]

    async def body():
        recorder = DjangoRecorder(run.pk)
        try:
            memory = SiteMemory(recorder.captcha_site, recorder.captcha_site_add)
            assert L.ignored(await memory.weights("shop.test")) == pytest.approx(L.PRIOR_IGNORED, abs=1e-3)
            for _ in range(10):
                memory.expect("shop.test", 0.4, 0.9)
                await memory.settle(True)
            # A later run of the automation starts from what this one learned.
            later = SiteMemory(recorder.captcha_site)
            return L.ignored(await later.weights("shop.test")), L.ignored(await memory.weights("shop.test"))
        finally:
            await recorder.close()

    stored, in_run = asyncio.run(body())
    assert stored == pytest.approx(in_run, abs=1e-3) and stored > 0.9
    assert SiteLetterCase.objects.get(automation=automation).accepted == 10


def test_an_automation_keeps_at_most_max_hosts_sites_and_a_superseded_execution_writes_nothing(
        two_workspaces, monkeypatch):
    from venus_rpa.automations import letter_case as store
    from workers.journal import Superseded

    automation = two_workspaces["a"]
    monkeypatch.setattr(store, "MAX_HOSTS", 3)
    for i in range(5):  # a wildcard domain's subdomains, one after another
        site_letter_case_add(automation_id=automation.pk, host=f"s{i}.shop.test", loglik=ACCEPTED, accepted=True)
    assert SiteLetterCase.objects.filter(automation=automation).count() == 3
    assert site_letter_case_add(automation_id=automation.pk, host="s0.shop.test", loglik=ACCEPTED, accepted=True)

    def superseded():
        raise Superseded("another execution took the run")

    with pytest.raises(Superseded):
        site_letter_case_add(automation_id=automation.pk, host="s1.shop.test", loglik=ACCEPTED, accepted=True,
                             fence=superseded)
    assert SiteLetterCase.objects.get(automation=automation, host="s1.shop.test").accepted == 1


def test_the_answers_format_is_stored_under_the_lock_and_read_by_a_later_run(two_workspaces):
    from workers.captcha import answer_format as F

    automation = two_workspaces["a"]
    run = queue_runs(automation, 1)[0]
    # a pinned letter case: no case evidence, the format only
    _four_runs_at_once(automation_id=automation.pk, host="shop.test", loglik=None, accepted=True,
                       answer="{n}{n}4{n}", applied=False)
    row = SiteLetterCase.objects.get(automation=automation, host="shop.test")
    expected = sum(F.DECAY ** k for k in range(20))
    assert row.answer_format["answers"] == pytest.approx(expected)  # all 20 counted
    assert row.ignored == pytest.approx(L.PRIOR_IGNORED, abs=1e-3) and row.accepted == 20
    assert row.format_learned == "4 characters, only 01234"  # five digits drawn, each seen often

    async def body():
        recorder = DjangoRecorder(run.pk)
        try:
            later = SiteMemory(recorder.captcha_site, recorder.captcha_site_add)
            learned = F.hints(await later.format("shop.test"))
            for _ in range(3 * F.FORGET_AFTER):  # refused answers read under the format: it lapses
                later.expect("shop.test", 0.9, 0.9, answer="9949", case=False, applied=True)
                await later.settle(False)
            return learned, F.hints(await SiteMemory(recorder.captcha_site).format("shop.test"))
        finally:
            await recorder.close()

    learned, after = asyncio.run(body())
    assert learned.length == 4 and not after
    assert SiteLetterCase.objects.get(automation=automation).refused == 3 * F.FORGET_AFTER


def test_a_verdict_that_teaches_nothing_writes_nothing(two_workspaces):
    automation = two_workspaces["a"]
    # a refused answer read without the learned format, its case not learned: no row, no slot taken
    assert not site_letter_case_add(automation_id=automation.pk, host="shop.test", loglik=None, accepted=False,
                                    answer="48x1", applied=False)
    assert not site_letter_case_add(automation_id=automation.pk, host="shop.test", loglik=None, accepted=True,
                                    answer="")
    assert not SiteLetterCase.objects.filter(automation=automation).exists()
