"""Trace-level judges (workers/judges.py, issue 16): votes read from real OpenAI-compatible answers
(the model test double over HTTP), combined by rule, and every disagreement named as "needs a look"."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers.fake_model import FakeModel, Reply
from workers.judges import Trace, TraceAction, Vote, combine, judge_trace, messages, needs_a_look, parse_vote
from workers.policies.client import ModelClient, ModelSettings

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def trace(output: dict | None = None) -> Trace:
    return Trace(goal="File the expense 'Taxi' for 30", output=output if output is not None else {"expense_id": "EXP-0042"},
                 actions=[TraceAction(0, "goto", "Open the start URL", "succeeded", url="http://127.0.0.1/expenses/new"),
                          TraceAction(1, "click", "Submit", "succeeded", "target='Submit'")],
                 screenshots=[PNG], criteria={"text_visible": {"expected": "Expense submitted", "ok": True}})


def by_rule(body: dict) -> Reply:
    """A judge that votes by a rule it can check: pass when the output line names an expense id (EXP-…)."""
    text = "".join(p.get("text", "") for m in body["messages"] if isinstance(m["content"], list) for p in m["content"])
    output = text.split("\nOutput: ", 1)[-1].split("\n", 1)[0]
    ok = "EXP-" in output
    return Reply(content=f"Verdict: {'pass' if ok else 'fail'}\nReason: the output {'names' if ok else 'lacks'} the expense id")


def test_parse_vote_reads_the_verdict_line_and_abstains_on_anything_else():
    assert parse_vote("j", "Verdict: PASS\nReason: the id is shown").vote == "pass"
    assert parse_vote("j", "Verdict: pass\nReason: the id is shown").reason == "the id is shown"
    assert parse_vote("j", "**Verdict:** fail\nReason: error banner").vote == "fail"
    assert parse_vote("j", "I think it worked").vote == "abstain"
    assert parse_vote("j", "Verdict: pass ... Verdict: fail").vote == "abstain"  # contradicts itself


@pytest.mark.parametrize("votes, rule, outcome", [
    (["pass", "pass", "pass"], "unanimous", "pass"),
    (["pass", "pass", "abstain"], "unanimous", "fail"),
    (["pass", "pass", "fail"], "majority", "pass"),
    (["pass", "fail"], "majority", "fail"),  # a tie fails
    (["pass", "abstain"], "any_fail", "pass"),
    (["pass", "pass", "fail"], "any_fail", "fail"),
    (["abstain", "abstain"], "majority", None),
])
def test_rules_combine_votes(votes, rule, outcome):
    assert combine([Vote(f"j{i}", v, "") for i, v in enumerate(votes)], rule) == outcome


def test_needs_a_look_names_every_kind_of_disagreement():
    both = [Vote("a", "pass", ""), Vote("b", "pass", "")]
    assert needs_a_look(both, "pass", criteria_passed=True) == ""
    assert "disagree: a pass, b fail" in needs_a_look([Vote("a", "pass", ""), Vote("b", "fail", "")], "fail", True)
    assert needs_a_look(both, "pass", criteria_passed=False) == "the success criteria failed but the judges say pass"
    assert needs_a_look([Vote("a", "abstain", "")], None, True) == "no judge could give a verdict"
    assert "could not give a verdict: b" in needs_a_look([Vote("a", "pass", ""), Vote("b", "abstain", "")], "pass", True)


def test_the_judge_message_carries_goal_actions_output_and_screenshots_in_our_prompt():
    msgs, sha = messages(trace())
    assert msgs[0]["role"] == "system" and "File the expense 'Taxi' for 30" in msgs[0]["content"] and len(sha) == 64
    parts = msgs[1]["content"]
    text = parts[0]["text"]
    assert "2. [succeeded] click Submit — target='Submit'" in text and "EXP-0042" in text and "Expense submitted" in text
    assert [p["image_url"]["url"][:22] for p in parts[1:]] == ["data:image/png;base64,"]


def test_prompt_is_overridable_like_the_navigation_prompts(tmp_path):
    (tmp_path / "judge.txt").write_text("Decide. Goal: {goal}\nVerdict: pass or fail", encoding="utf-8")
    msgs, _ = messages(trace(), prompt_dir=str(tmp_path))
    assert msgs[0]["content"].startswith("Decide. Goal: File the expense")


def _run(coro):
    return asyncio.run(coro)


def test_two_judges_vote_by_rule_over_http_and_a_split_vote_needs_a_look():
    with FakeModel() as one, FakeModel() as two:
        one.default = by_rule
        two.default = Reply(content="Verdict: fail\nReason: the final screen shows an error")

        async def go(output, rule):
            clients = {"venus": ModelClient(ModelSettings(url=one.url, model=one.model, tries=1)),
                       "other": ModelClient(ModelSettings(url=two.url, model=two.model, tries=1))}
            try:
                return await judge_trace(trace(output), clients, rule, criteria_passed=True)
            finally:
                for c in clients.values():
                    await c.aclose()

        split = _run(go({"expense_id": "EXP-0042"}, "majority"))
        assert [(v["judge"], v["vote"]) for v in split["votes"]] == [("venus", "pass"), ("other", "fail")]
        assert split["outcome"] == "fail" and split["needs_a_look"] and "disagree" in split["look_reason"]
        assert one.requests and one.requests[0]["messages"][1]["content"][1]["type"] == "image_url"

        two.default = by_rule
        agreed = _run(go({"expense_id": "EXP-0042"}, "unanimous"))
        assert agreed["outcome"] == "pass" and not agreed["needs_a_look"]
        wrong = _run(go({"note": "nothing filed"}, "unanimous"))
        assert wrong["outcome"] == "fail" and wrong["look_reason"] == "the success criteria passed but the judges say fail"


def test_a_judge_that_errors_or_is_not_configured_abstains_and_the_run_is_flagged():
    with FakeModel() as one:
        one.default = Reply(status=500, body=json.dumps({"error": "overloaded"}))

        async def go():
            client = ModelClient(ModelSettings(url=one.url, model=one.model, tries=1))
            try:
                return await judge_trace(trace(), {"venus": client, "gone": None}, "any_fail", criteria_passed=True)
            finally:
                await client.aclose()

        result = _run(go())
    assert [v["vote"] for v in result["votes"]] == ["abstain", "abstain"]
    assert "VENUS_JUDGES" in result["votes"][1]["reason"]
    assert result["outcome"] is None and result["needs_a_look"] and result["look_reason"] == "no judge could give a verdict"


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="unknown judge rule"):
        _run(judge_trace(trace(), {}, "most", criteria_passed=True))
