"""Field kinds of the focused input: card, payment PIN, password, one-time code, type-to-confirm,
search, message composer, terminal, or plain text. Read from autocomplete, input type, ids and
names, placeholder, aria-label and the nearest label text."""

from __future__ import annotations

import re

from workers.gates.safety.text import hint_words, norm
from workers.gates.safety.view import View

_CARD = re.compile(r"\b(?:card ?number|cardnumber|card-number|ccnum|cc-?num|cc-number|credit card|debit card|cvv|cvc|csc|"
                   r"expiry|expiration|exp(?:iry)? date|name on card)\b|卡号|银行卡|信用卡|储蓄卡|安全码|cvv")
_PAY_PIN = re.compile(r"支付密码|交易密码|付款密码|\bpayment (?:password|pin)\b|\btransaction (?:password|pin)\b|\bupi pin\b|\bwallet pin\b")
_PASSWORD = re.compile(r"\bpass(?:word|wd|code)?\b|\bpwd\b|密码|口令")
_OTP = re.compile(r"\b(?:otp|one-time|verification code|verify code|2fa|totp|mfa|sms code|auth(?:entication)? code|"
                  r"enter (?:the )?code|security code|code)\b|验证码|动态码|校验码|动态密码")
_NOT_OTP = re.compile(r"promo|coupon|zip|postal|discount|gift|referral|invite|country|area|voucher|优惠|邮编|邀请|兑换")
_CONFIRM = re.compile(r"\btype\b.{0,60}\bto confirm\b|\benter\b.{0,40}\bto confirm\b|\bto confirm,? (?:please )?type\b|"
                      r"输入.{0,30}(?:以|来)?确认|请输入.{0,20}确认")
_SEARCH = re.compile(r"\bsearch\b|\bquery\b|\bkeywords?\b|\bfind\b|^q$|\bq\b|搜索|查找|搜一搜|搜")
COMPOSER = re.compile(r"\b(?:message|messages|chat|reply|comment|write a|say something|tweet|what'?s (?:on your mind|happening)|"
                       r"compose|message body)\b|发消息|消息|评论|回复|说点什么|弹幕|写下|聊天|"
                       r"press enter to send|按\s*enter\s*发送|"
                       # "message" / "write a message" in the other UI languages (stems: inflection tolerant)
                       r"\b(?:nachricht|mensaje|messaggio|mensagem|bericht|wiadomoś\w*|сообщени\w*|повідомлен\w*|mesaj\w*|"
                       r"meddelande|zpráv\w*|besked|melding|viesti\w*|üzenet\w*|μήνυμα|رسالة|הודעה|संदेश|pesan|tin nhắn|mesej)\b|"
                       r"メッセージ|메시지|ข้อความ")


def card_like(*descriptors: str) -> bool:
    """Do a field's label, autocomplete or name say it holds payment card details?"""
    words = [norm(d) for d in descriptors if d]
    return any(w.startswith("cc-") for w in words) or bool(_CARD.search(" | ".join(words)))


def describe_field(v: View) -> str:
    """The field's own descriptors, normalised (never its value)."""
    t = v.ctx.target
    if t is None:
        return " | ".join(norm(x) for x in v.ctx.nearby_text[:2])
    parts = [t.autocomplete, t.input_type, t.placeholder, t.name, t.aria_label, t.content_desc, hint_words(t.resource_id)]
    parts += [hint_words(t.attributes.get(a)) if a != "title" else t.attributes.get(a, "")
              for a in ("id", "name", "class", "data-testid", "title", "aria-describedby", "inputmode")]
    if v.ctx.surface != "android" or t.class_name == "":
        parts.append(t.text)
    parts += v.ctx.nearby_text[:2]
    return " | ".join(norm(p) for p in parts if p)


def field_kind(v: View) -> str:
    """terminal | card | pay_pin | password | otp | confirm_text | search | composer | text."""
    if v.terminal:
        return "terminal"
    t = v.ctx.target
    desc = describe_field(v)
    auto = (t.autocomplete if t else "").lower()
    itype = (t.input_type if t else "").lower()
    if auto.startswith("cc-") or _CARD.search(desc):
        return "card"
    if _PAY_PIN.search(desc) or _PAY_PIN.search(v.dialog):
        return "pay_pin"
    if auto == "one-time-code" or (_OTP.search(desc) and not _NOT_OTP.search(desc) and not _PASSWORD.search(desc)):
        return "otp"
    if itype == "password" or auto.endswith("-password") or (t and t.attributes.get("password") == "true") or _PASSWORD.search(desc):
        return "password"
    if _CONFIRM.search(desc) or _CONFIRM.search(v.dialog):
        return "confirm_text"
    role = norm(t.role) if t else ""
    if role == "searchbox" or itype == "search" or _SEARCH.search(desc):
        return "search"
    if COMPOSER.search(desc) or v.chat_window:
        return "composer"
    return "text"
