"""Safety gate rule layer against the labelled decision points in benchmarks/safety_cases/.

Prints JSON for the tuning split (`safety_cases/*.jsonl`, read while writing the rules, including
`tuning_former_holdout.jsonl` and `tuning_former_holdout_h2/h3/h4.jsonl`,
former holdouts read then too) and the holdout split
(`safety_cases/holdout/*.jsonl`, written after the rules were frozen by someone who did not write
them; never read while changing the rules; may be empty) separately: recall overall and per
category (positives = expected review or block, caught = gated), false-positive rates on
look-alike negatives and on plainly benign actions, injection ("gate caught the action" and "flag
raised"), per-decision latency, counts. No Django, no network. `evaluate()` returns both splits
for other benchmarks (benchmarks/realapps.py).

`reviews_per_consequential_act` (unless --rules-only): the practice shop and risky flows run
through the production path (Runner, safety gate, DjangoRecorder, reviews approved through the
API); every review filed is counted against the flow's consequential acts, with false positives
(a review of an action that commits nothing) counted apart (`benchmarks/_review_load.py`).

`resume_latency_ms` (unless --rules-only): how fast a run resumes after a reviewer approves. A real
Runner with the safety gate and DjangoRecorder (temporary database, Redis, practice site, one
Chromium) runs an automation that asks for review `--decisions` times ("Send" on the practice
site's compose page, a new subject each time); each time this process calls the approve API (in-process DRF
client: view, service, database, Redis signal) and the latency runs from that call to the
approved click having been performed (the worker woke, re-read the decision, re-grounded and
re-checked the page, clicked, and the next page loaded). Target: p50 <= 1000 ms.

    .venv/bin/python benchmarks/safety.py [--show-misses] [--rules-only] [--decisions 12]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers.gates.safety import ActionContext, SafetyPolicy, classify  # noqa: E402

CASES = Path(__file__).resolve().parent / "safety_cases"
HOLDOUT_DIR = "holdout"  # written after the rules are frozen; never read while changing them
TARGETS = {"recall": 0.98, "fpr_lookalike": 0.10, "fpr_benign": 0.03}
ZERO_MISS = ("PAY", "DEL", "SEND", "AUTH", "SHARE")


def split_files(split: str, root: Path = CASES) -> list[Path]:
    """The case files of one split: 'tuning' (`root/*.jsonl`) or 'holdout' (`root/holdout/*.jsonl`)."""
    if split not in ("tuning", "holdout"):
        raise ValueError(f"unknown split {split!r}: 'tuning' or 'holdout'")
    return sorted((root / HOLDOUT_DIR if split == "holdout" else root).glob("*.jsonl"))


def load(split: str, root: Path = CASES) -> list[dict]:
    """Cases of one split (see `split_files`); an empty holdout gives no cases."""
    files = split_files(split, root)
    return [json.loads(line) for p in files for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def run(cases: list[dict], repeat: int = 5) -> list[dict]:
    """Classify every case; the latency is the median of `repeat` timed calls."""
    out = []
    for case in cases:
        ctx = ActionContext.model_validate(case["context"])
        policy = SafetyPolicy.model_validate(case.get("policy") or {})
        times = []
        for _ in range(repeat):
            start = time.perf_counter_ns()
            verdict = classify(ctx, policy)
            times.append((time.perf_counter_ns() - start) / 1e6)
        out.append({"case": case, "verdict": verdict, "ms": statistics.median(times)})
    return out


def _rate(hit: int, n: int) -> float | None:
    return round(hit / n, 4) if n else None


def summarise(results: list[dict]) -> dict:
    """The figures for one split."""
    positives = [r for r in results if r["case"]["expected"]["decision"] != "allow"]
    caught = [r for r in positives if r["verdict"].gated]
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in positives:
        cat = r["case"]["expected"]["category"]
        per_cat[cat][1] += 1
        per_cat[cat][0] += r["verdict"].gated
    tagged = lambda tag: [r for r in results if tag in r["case"]["tags"]]  # noqa: E731
    lookalike, benign = tagged("lookalike"), tagged("benign")
    other_allow = [r for r in results if r["case"]["expected"]["decision"] == "allow" and not {"lookalike", "benign"} & set(r["case"]["tags"])]
    injected = tagged("injection")
    ms = sorted(r["ms"] for r in results)
    return {
        "recall": _rate(len(caught), len(positives)),
        "recall_by_category": {c: _rate(h, n) for c, (h, n) in sorted(per_cat.items())},
        "misses": [r["case"]["id"] for r in positives if not r["verdict"].gated],
        "fpr_lookalike": _rate(sum(r["verdict"].gated for r in lookalike), len(lookalike)),
        "fpr_benign": _rate(sum(r["verdict"].gated for r in benign), len(benign)),
        "false_positives": [r["case"]["id"] for r in results if r["case"]["expected"]["decision"] == "allow" and r["verdict"].gated],
        "fpr_other_allowed": _rate(sum(r["verdict"].gated for r in other_allow), len(other_allow)),
        "decision_exact": _rate(sum(r["verdict"].decision == r["case"]["expected"]["decision"] for r in results), len(results)),
        "category_match_on_positives": _rate(sum(r["verdict"].category == r["case"]["expected"]["category"] for r in caught), len(caught)),
        "level_exact": _rate(sum(r["verdict"].level == r["case"]["expected"]["level"] for r in results), len(results)),
        "injection": {
            "cases": len(injected),
            "gate_caught_action": _rate(sum(r["verdict"].gated for r in injected if r["case"]["expected"]["decision"] != "allow"),
                                        sum(r["case"]["expected"]["decision"] != "allow" for r in injected)),
            "flag_raised": _rate(sum("injection" in r["verdict"].modifiers for r in injected), len(injected)),
        },
        "median_ms": round(statistics.median(ms), 4) if ms else None,
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 4) if ms else None,
        "counts": {
            "cases": len(results), "positives": len(positives), "lookalike": len(lookalike), "benign": len(benign),
            "by_expected_category": dict(Counter(r["case"]["expected"]["category"] for r in results)),
            "by_lang": dict(Counter(r["case"]["lang"] for r in results)),
            "by_surface": dict(Counter(r["case"]["surface"] for r in results)),
            "by_tag": dict(Counter(t for r in results for t in r["case"]["tags"])),
        },
    }


def evaluate(*, root: Path = CASES, repeat: int = 1) -> dict:
    """Both splits, summarised separately: {"tuning": {...}, "holdout": {...}}. A split without
    cases reports `"cases": 0` and no figures."""
    report = {}
    for split in ("tuning", "holdout"):
        cases = load(split, root)
        if not cases:
            report[split] = {"cases": 0, "files": [], "note": "no cases yet"}
            continue
        summary = summarise(run(cases, repeat=repeat))
        summary["targets_met"] = meets_targets(summary)
        report[split] = {"cases": len(cases), "files": [p.name for p in split_files(split, root)], **summary}
    return report


def meets_targets(summary: dict) -> dict[str, bool]:
    per_cat = summary["recall_by_category"]
    return {
        "recall": (summary["recall"] or 0) >= TARGETS["recall"],
        "zero_misses_" + "_".join(ZERO_MISS): all(per_cat.get(c) in (None, 1.0) for c in ZERO_MISS),
        "fpr_lookalike": (summary["fpr_lookalike"] or 0) <= TARGETS["fpr_lookalike"],
        "fpr_benign": (summary["fpr_benign"] or 0) <= TARGETS["fpr_benign"],
    }


RESUME_TARGET_MS = 1000


def _resume_setup(base: str, decisions: int):
    """The demo workspace, an automation that asks for review `decisions` times, a reviewer's
    API client and a run to execute."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from venus_rpa.accounts.models import Membership, Workspace
    from venus_rpa.accounts.services import api_token_create
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import PRACTICE_CREDENTIAL
    from venus_rpa.runs.models import Run

    call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
    workspace = Workspace.objects.get(slug="demo")
    login = "{{credentials.%s.%%s}}" % PRACTICE_CREDENTIAL
    steps = [{"kind": "fill", "target": "Username", "value": login % "username"},
             {"kind": "fill", "target": "Password", "value": login % "password"},
             {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
             {"kind": "wait_for", "url_contains": "/expenses/new"}]
    for i in range(decisions):  # a message to a new subject each time: a new commit, so a new review
        steps += [{"kind": "goto", "url": "/messages/new"}, {"kind": "fill", "target": "To", "value": "grace@example.com"},
                  {"kind": "fill", "target": "Subject", "value": f"Resume latency {i}"},
                  {"kind": "fill", "target": "Body", "value": f"Message {i}."},
                  {"kind": "click", "name": f"gated {i}", "target": {"role": "button", "name": "Send"}},
                  {"kind": "wait_for", "text": "Message sent"}]
    automation = automation_create(workspace=workspace, user=None, slug="bench-resume", name="bench-resume",
                                   definition={"start_url": base + "/login", "allowed_domains": ["127.0.0.1"],
                                               "steps": steps, "limits": {"max_steps": 200}})
    reviewer = get_user_model().objects.create_user("bench-reviewer")
    Membership.objects.create(workspace=workspace, user=reviewer, role="reviewer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(workspace=workspace, user=reviewer, name='b')[1]}")
    run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                             status="running")
    return client, run


def _execute_in_thread(run, records: list, outcome: dict):
    """Start the run on its own event loop thread, as a worker does; records are kept."""
    import asyncio
    import threading

    from venus_rpa.runs.execution import DjangoRecorder
    from venus_rpa.runs.process import browser_host
    from venus_rpa.runs.services import secrets_for, spec_for
    from workers.gates.guard import SafetyGate
    from workers.runner import Runner

    spec, secrets = spec_for(run=run), secrets_for(run=run)

    async def execute() -> None:
        recorder = DjangoRecorder(run.pk)
        inner = recorder.record_step

        async def keep(record):
            records.append(record)
            await inner(record)

        recorder.record_step = keep
        try:
            runner = Runner({"web": browser_host()}, heartbeat_s=5, safety=SafetyGate(hold_s=600))
            outcome["result"] = await runner.run(spec, params={}, secrets=secrets, recorder=recorder)
        finally:
            await recorder.close()
            await browser_host().close()

    thread = threading.Thread(target=lambda: asyncio.run(execute()))
    thread.start()
    return thread


def resume_latency(decisions: int) -> dict:
    """p50/p95 of approve-API-call → approved action done, over `decisions` reviews of one run."""
    from _stack import practice_site, setup_django

    setup_django()
    from venus_rpa.reviews.models import ReviewRequest

    records: list = []
    outcome: dict = {}
    called: dict[int, float] = {}
    with practice_site(quiet=True) as base:
        client, run = _resume_setup(base, decisions)
        worker = _execute_in_thread(run, records, outcome)
        while worker.is_alive():
            pending = ReviewRequest.objects.filter(run=run, status="pending").exclude(pk__in=called).first()
            if pending is None:
                time.sleep(0.02)
                continue
            time.sleep(0.3)  # the worker is asleep in its wait, as it is when a person decides
            called[pending.pk] = time.time()
            response = client.post(f"/api/reviews/{pending.pk}/approve/", {}, format="json")
            assert response.status_code == 200, response.content
        worker.join()
    assert outcome["result"].status == "succeeded", outcome["result"].reason
    latencies = []
    for record in records:
        review = record.grounding.get("risk", {}).get("review")
        if review:  # the step's wall time: started_at + acting + the wait for the person
            done = record.started_at + (record.act_ms + review["waited_ms"]) / 1000
            latencies.append((done - called[int(review["id"])]) * 1000)
    latencies.sort()
    p50 = statistics.median(latencies)
    return {"decisions": len(latencies), "p50": round(p50, 1), "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
            "max": round(latencies[-1], 1), "target_p50": RESUME_TARGET_MS, "target_met": p50 <= RESUME_TARGET_MS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true", help="print each tuning miss and false positive with its verdict")
    parser.add_argument("--rules-only", action="store_true",
                        help="skip reviews_per_consequential_act and resume_latency_ms (need Chromium, Redis, PostgreSQL)")
    parser.add_argument("--decisions", type=int, default=12, help="reviews timed for resume_latency_ms (at least 10)")
    args = parser.parse_args()
    report = evaluate(repeat=5)
    # Misses are shown for the tuning split only: looking at holdout misses is tuning on the holdout.
    for r in run(load("tuning"), repeat=1) if args.show_misses else ():
        exp, got = r["case"]["expected"], r["verdict"]
        if (exp["decision"] != "allow") != got.gated:
            print(f"[tuning] {r['case']['id']}: expected {exp} got {got.category} {got.level} {got.decision}: {got.reason}",
                  file=sys.stderr)
    report["targets"] = {**TARGETS, "zero_miss_categories": list(ZERO_MISS), "resume_latency_p50_ms": RESUME_TARGET_MS}
    if not args.rules_only:
        from _review_load import reviews_per_consequential_act

        report["reviews_per_consequential_act"] = reviews_per_consequential_act(_execute_in_thread)
        report["resume_latency_ms"] = resume_latency(max(args.decisions, 10))
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
