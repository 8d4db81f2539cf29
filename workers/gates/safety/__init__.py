"""The safety gate's rule layer: every action is classified before it runs.

    verdict = classify(ActionContext(action_type="click", target=TargetInfo(role="button", name="Place order"),
                                     url="https://shop.example.com/checkout"), policy)
    verdict.category, verdict.level, verdict.decision   # "PAY", "R3", "review"

Categories and levels follow reference/safety-and-captcha.md. Consequential actions (R3) are held
for review unless the automation's policy pre-approves or exempts them; prohibited ones (R4),
blocked categories and navigation outside the allowed domains are blocked. What cannot be judged
is R3 (fail closed). Screen text is read as data: text addressed to an AI agent only raises.
"""

from workers.gates.safety.context import ACTION_TYPES, ActionContext, TargetInfo, action_fields
from workers.gates.safety.gate import classify
from workers.gates.safety.policy import DEFAULT_POLICY, PreApproval, SafetyPolicy
from workers.gates.safety.values import card_numbers, luhn_ok
from workers.gates.safety.verdict import CATEGORIES, Evidence, Verdict

__all__ = [
    "ACTION_TYPES", "ActionContext", "CATEGORIES", "DEFAULT_POLICY", "Evidence", "PreApproval", "SafetyPolicy", "TargetInfo",
    "Verdict", "action_fields", "card_numbers", "classify", "luhn_ok",
]
