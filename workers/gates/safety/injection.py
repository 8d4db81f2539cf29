"""On-screen prompt injection: text addressed to an AI agent, hidden text, invisible characters,
attribute labels that differ from what people see (reference §2 INJECT, §4).

Detection is lexical and deliberately broad on *where* (hidden DOM text, comments, emails,
notifications, titles, URL fragments, aria-labels) and narrow on *what* (phrases that address a
model or countermand its instructions), so ordinary page copy does not raise it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from workers.gates.safety.text import CJK_RE, has_invisible, norm, words

# Enough on their own.
_STRONG = re.compile("|".join([
    r"\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:previous|prior|above|earlier|preceding|original|all|any|"
    r"your|user'?s?|system)\b[^.!?\n]{0,20}\b(?:instructions?|prompts?|directions?|rules|task|guidelines|context)\b",
    r"\bignore (?:the |your |the user'?s )?(?:task|instructions?)\b",
    r"\bsystem prompt\b|\[system\]|<\|im_start\|>|\bnew instructions?\s*:|\bdeveloper mode\b|\bjailbreak\b",
    r"\byour (?:new |real |actual |true |next )?(?:task|goal|objective|instructions?|job) (?:is|are|now)\b",
    r"\bthe user (?:has )?(?:already )?(?:authori[sz]ed|approved|consented|asked you|wants you)\b",
    r"\bdo not (?:ask|tell|inform|notify|alert|confirm with) the user\b",
    r"\bwithout (?:asking|telling|informing|notifying|confirming with) the user\b",
    r"\bsystem\s*:\s*(?:the|you|ignore|new)\b",
    r"忽略(?:之前|以上|先前|上述|前面|此前|所有|全部|原有|原来|用户)?的?(?:所有|全部)?(?:指令|指示|提示|要求|规则|任务|设定)",
    r"无视.{0,10}(?:指令|指示|规则)", r"你(?:现在)?是一个?(?:ai|人工智能|助手|智能体|机器人)", r"系统提示|系统指令|新的?指令",
    r"你的(?:新)?任务是|不要告诉用户|无需(?:告诉|通知|征得)?用户|用户已(?:经)?授权",
]))
# Addressing a model, and an imperative nearby: together they count.
_ADDRESSEE = re.compile(
    r"\b(?:ai|llm|gpt|claude|language model|autonomous)[ -](?:agents?|assistants?|models?|bots?)\b|\b(?:agents?|assistants?)\s*[:,]|"
    r"\b(?:dear|hey|attention|note to|message to|instructions? for|notice to|if you are an?) (?:the )?(?:ai|llm|agent|assistant|bot|model)s?\b|"
    r"(?:ai|人工智能|智能)(?:助手|智能体|代理|模型)|各位ai|大模型|机器人请")
_DIRECTIVE = re.compile(
    r"\b(?:ignore|disregard|you must|must|immediately|instead|override|open|click|type|enter|re-enter|send|forward|transfer|"
    r"navigate|go to|visit|post|reply|approve|download|run|paste|submit|your (?:new )?task)\b|"
    r"忽略|无视|任务|必须|立即|不要告诉|无需|请将|打开|点击|输入|转发|发送|登录|转账|改为|请注意")


@dataclass(frozen=True)
class Injection:
    """One injection signal: where it was read and the text (normalised, clipped)."""

    source: str
    kind: str  # "instruction" | "invisible_text"
    text: str


def _instruction(text: str) -> str | None:
    m = _STRONG.search(text)
    if m:
        return text[max(0, m.start() - 60): m.end() + 140]
    a = _ADDRESSEE.search(text)
    if a:
        window = text[max(0, a.start() - 40): a.end() + 200]
        if _DIRECTIVE.search(window):
            return window
    return None


def find_injections(sources: list[tuple[str, str]]) -> list[Injection]:
    """Injection signals in (source, raw text) pairs of untrusted screen text."""
    found = []
    for source, raw in sources:
        if not raw:
            continue
        if source == "url":
            raw = unquote(urlsplit(raw).fragment)
        if has_invisible(raw):
            found.append(Injection(source, "invisible_text", "invisible characters"))
        snippet = _instruction(norm(raw))
        if snippet:
            found.append(Injection(source, "instruction", snippet))
    return found


_STOP = {"the", "and", "you", "your", "this", "that", "now", "all", "for", "with", "are", "was", "can", "our", "not", "yes",
         "continue", "next", "open", "page", "user", "users"}


def mentions(snippet: str, text: str) -> bool:
    """True if the injected snippet names `text` (a label, a typed value, an address): a shared
    word of 3+ letters, a shared pair of CJK characters, or the whole text."""
    text = norm(text)
    if not text or not snippet:
        return False
    if len(text) >= 4 and text in snippet:
        return True
    if any(w in snippet.split() or f" {w}" in snippet for w in words(text) if len(w) >= 3 and w not in _STOP):
        return True
    cjk = "".join(CJK_RE.findall(text))
    return any(cjk[i:i + 2] in snippet for i in range(len(cjk) - 1))
