"""The safety holdout is honest only if the rules never saw it: no holdout string of 3+ words or
4+ CJK characters may appear literally anywhere in `workers/gates/safety/`.

The holdout (`benchmarks/safety_cases/holdout/*.jsonl`) is written after the rules are frozen, by
someone who did not write them; this test reads it at test time only. Until it exists, the same
check runs on `tuning_former_holdout.jsonl` (the old holdout, read while writing the rules), for
the strings found in no other tuning file: those were the leak. Phrases from the published
taxonomy (reference/safety-and-captcha.md §2, which predates any holdout) are not leaks. The rules'
data files (`lexicon_i18n.json`) are checked like their code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "workers" / "gates" / "safety"
CASES = ROOT / "benchmarks" / "safety_cases"
FORMER = CASES / "tuning_former_holdout.jsonl"
CJK = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
# The taxonomy's own labels (reference §2), known before any holdout was written.
TAXONOMY = {
    "place order", "buy now", "confirm payment", "top up", "delete permanently", "empty trash", "clear all", "factory reset",
    "cancel order", "reply all", "make public", "anyone with the link", "grant access", "change permissions", "sign in",
    "continue with google", "authorize", "trust this device", "disable 2fa", "change password or recovery",
    "disable firewall", "usb debugging", "open anyway", "always allow", "enable accessibility", "device admin", "i agree",
    "agree and continue", "submit application", "sign up", "delete account", "confirm booking", "reserve", "book now",
    "change flight", "i'm not a robot", "verify you are human", "drag the slider", "send code", "ignore previous",
    "立即支付", "确认付款", "提交订单", "立即购买", "免密支付", "确认收货", "永久删除", "恢复出厂设置", "取消订单", "设为公开", "授权访问",
    "修改权限", "一键登录", "同意授权", "关闭两步验证", "修改密码", "更换手机号", "开发者选项", "始终允许", "仍要打开", "开启无障碍",
    "我已阅读并同意", "同意并继续", "注销账号", "确认预订", "拖动滑块完成拼图", "向右滑动验证", "请依次点击", "安全验证", "忽略之前的指令",
    "发送验证码", "无法恢复",
}
# Named in issue 12: literal in the lexicons, found only in the former holdout.
FORMER_LEAKS = ["塞钱进红包", "security checkup", "type a message", "add a comment", "找回密码", "账号保护", "仅允许一次", "订单中心",
                "官方客服"]


def normalise(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").casefold()
    return re.sub(r"\s+", " ", text).strip(" .!?。！？:：")


def long_enough(text: str) -> bool:
    """3+ words, or 4+ CJK characters."""
    return len(CJK.findall(text)) >= 4 or len(WORD.findall(CJK.sub(" ", text))) >= 3


def strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def case_strings(path: Path) -> set[str]:
    """Every string a case shows the gate (its context and policy), normalised."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            out |= {normalise(s) for s in strings([case.get("context"), case.get("policy")])}
    return {s for s in out if s}


def rules_text() -> str:
    """The rule sources as one normalised text; regex escapes dropped so `a\\ b` reads `a b`."""
    raw = "\n".join(p.read_text(encoding="utf-8") for p in sorted(RULES.rglob("*")) if p.is_file() and p.suffix in (".py", ".txt", ".json"))
    return normalise(raw.replace("\\s", " ").replace("\\ ", " ").replace("\\b", ""))


def leaks(candidates: set[str], rules: str) -> list[str]:
    return sorted(s for s in candidates if long_enough(s) and s not in TAXONOMY and s in rules)


def test_the_length_rule_counts_words_and_cjk_characters():
    assert long_enough("type a message") and not long_enough("security checkup")
    assert long_enough("找回密码") and not long_enough("发弹幕") and long_enough("Don’t send it")


def test_the_check_finds_a_planted_string():
    assert leaks({"塞钱进红包", "type a message"}, normalise("r'塞钱进红包|foo' + r'\\btype a message\\b'")) == [
        "type a message", "塞钱进红包"]


def test_no_holdout_string_appears_in_the_rules():
    files = sorted((CASES / "holdout").glob("*.jsonl"))
    if not files:
        pytest.skip("no holdout yet: benchmarks/safety_cases/holdout/ is written after the rules are frozen")
    rules = rules_text()
    found = {f.name: leaks(case_strings(f), rules) for f in files}
    # Only the count and the file are reported: printing the strings would show the holdout to whoever fixes this.
    assert not any(found.values()), {name: f"{len(hits)} holdout strings are literal in workers/gates/safety/"
                                     for name, hits in found.items() if hits}


def test_the_former_holdouts_own_strings_are_not_in_the_rules():
    rules = rules_text()
    elsewhere = set().union(*(case_strings(p) for p in CASES.glob("*.jsonl") if p != FORMER))
    own = case_strings(FORMER) - elsewhere
    assert leaks(own, rules) == []
    assert [p for p in FORMER_LEAKS if normalise(p) in rules] == []
