"""Persistent logins: how much faster a run is when it starts with its saved session.

Runs the demo expense automation with its sign-in steps marked (`demo_signed_in_expense_definition`)
on the production path: `run_execute` as the Celery task calls it (claim, spec, secrets, the saved
session store, the runner with every gate, DjangoRecorder, finish), against the practice site.
Rounds alternate a run that signs in (its saved session revoked first) with a run that reuses
the session the previous one saved; the first round warms up and is dropped. Prints JSON:
`login_reuse_speedup` = median signing-in run time / median reusing run time.

    .venv/bin/python benchmarks/login_reuse.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from _stack import practice_site, setup_django


def timed_run(automation, params: dict) -> tuple[float, list[str]]:
    """Wall time of one run through `run_execute`, and its sign-in records ("saved", "reused"...)."""
    from venus_rpa.runs.execution import run_execute
    from venus_rpa.runs.models import Run

    from django.utils import timezone

    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, params=params,
                             admitted_at=timezone.now())  # run here directly, past the dispatcher
    started = time.perf_counter()
    run_execute(run_id=run.pk)
    elapsed = time.perf_counter() - started
    run.refresh_from_db()
    assert run.status == "succeeded", run.status_reason
    return elapsed, [s.action["session"] for s in run.steps.filter(kind="sign_in").order_by("index")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="measured rounds (one run of each kind per round)")
    args = parser.parse_args()
    os.environ.setdefault("VENUS_EGRESS_ALLOW_PRIVATE", "127.0.0.1")  # the practice site is on loopback
    setup_django()
    from django.core.management import call_command

    from venus_rpa.automations.models import Automation, LoginSession
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_signed_in_expense_definition
    from venus_rpa.runs.services import params_validate

    with practice_site(quiet=True) as base:
        call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
        demo = Automation.objects.select_related("workspace").get(slug="demo-expense")
        automation = automation_create(workspace=demo.workspace, user=None, slug="demo-expense-signed-in",
                                       name="Demo expense (persistent login)",
                                       definition=demo_signed_in_expense_definition(base))
        params = params_validate(schema=automation.current_version.param_schema, params={})
        sign_in, reuse = [], []
        for round_ in range(args.runs + 1):
            LoginSession.objects.filter(workspace=automation.workspace).delete()
            fresh, fresh_records = timed_run(automation, params)
            reused, reused_records = timed_run(automation, params)
            assert fresh_records == ["saved"] and reused_records == ["reused"], (fresh_records, reused_records)
            if round_:
                sign_in.append(fresh)
                reuse.append(reused)
    sign_in_s, reuse_s = statistics.median(sign_in), statistics.median(reuse)
    print(json.dumps({
        "benchmark": "login_reuse",
        "runs": args.runs,
        "sign_in_run_s_p50": round(sign_in_s, 3),
        "reuse_run_s_p50": round(reuse_s, 3),
        "login_reuse_speedup": round(sign_in_s / reuse_s, 3),
        "sign_in_run_s": [round(v, 3) for v in sign_in],
        "reuse_run_s": [round(v, 3) for v in reuse],
    }, indent=2))


if __name__ == "__main__":
    main()
