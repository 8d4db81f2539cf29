"""Context cues: what the dialog, the form, the page address or the app say an action is about.

Used only where the target's own label does not say it (generic "OK"/确定/"Submit", unlabeled
icons, key commits): reference §2 matches the target's label, "never text elsewhere on the page",
and §2's hard negatives say risky words in page content must not gate. Cues are *strong*
(specific phrases) or *weak* (single ambiguous words, amounts); progress labels ("Save", "Next")
only listen to strong ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from workers.gates.safety import i18n
from workers.gates.safety.text import norm
from workers.gates.safety.verdict import PRIORITY

_B = r"\b"


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in parts))


# category -> (strong, weak)
_CUES: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "PAY": (_rx(r"\b(?:pay|payment|paying|charged?|purchase|checkout|transfers?|transferring|send money|order total|amount due|"
                r"you'?ll be charged|will be charged|billing|sending \$)\b",
                r"支付|付款|转账|收银台|扣款|实付|应付|充值|付费|购买|下单|零钱|红包|免密"),
            _rx(r"[$€£¥₹]\s?\d", r"\d\s?(?:usd|eur|gbp|cny|rmb)\b", r"\btotal\b", r"金额|价格|总计|合计|\d\s?元")),
    "DEL": (_rx(r"\b(?:delete|deleted|deletion|deleting|erase|wipe|remove|removing|retire|retired|retiring|uninstall|terminate|terminated|destroy|"
                r"permanently|cannot be undone|can'?t be undone|can not be undone|irreversible|factory reset|format(?:ting)?)\b",
                r"won'?t be able to (?:restore|recover|undo)|not be able to (?:restore|recover|undo)",
                r"删除|清空|清除|移除|移出|卸载|无法恢复|不可恢复|无法撤销|不可撤销|格式化|出厂|销毁"), None),
    "SEND": (_rx(r"\b(?:send|sending|reply|forward|post|publish|publishing|comment|broadcast|invite|contact (?:us|sales|support)|"
                 r"feedback|expense report|approval|approve)\b", r"发送|发布|发表|回复|转发|评论|群发|审批|报销|反馈|留言|请假"),
             _rx(r"\b(?:message|email|e-mail|recipients?|to:)\b", r"消息|邮件|收件人")),
    "SHARE": (_rx(r"\b(?:share|sharing|make (?:it )?public|anyone with the link|visibility|permissions?|grant|collaborators?|upload|"
                  r"export|publish to the web)\b", r"分享|公开|权限|上传|导出|协作|所有人可|任何人|授权主体|被授权"),
              _rx(r"\b(?:public|access)\b")),
    "AUTH": (_rx(r"\b(?:sign in|signin|sign-in|log in|login|verification code|one-time (?:code|password)|authenticat\w*|"
                 r"authori[sz]\w*|oauth|wants to access|access your (?:\w+ )?account|trying to sign in)\b",
                 r"登录|登陆|验证码|申请获得|获得你的|申请使用|身份验证"),
             _rx(r"\bpassword\b", r"密码")),
    "SEC": (_rx(r"\b(?:2-step|two-step|two-factor|2fa|mfa|security keys?|recovery (?:email|phone|codes?|options?)|change password|"
                r"new password|old password|current password|firewall|real-?time protection|user account control|"
                r"make changes to your device|usb debugging|developer options|access keys?|api keys?|personal access tokens?|"
                r"ssh keys?|screen lock)\b",
                r"两步验证|二次验证|登录保护|设备锁|修改密码|新密码|原密码|支付密码|防火墙|安全防护|开发者选项|usb\s?调试|accesskey|密钥|"
                r"绑定手机|更换手机号|密保|用户帐户控制"), None),
    "INSTALL": (_rx(r"\b(?:install(?!ed\b)\w*|setup wizard|extensions?|add-?on|plugin|accessibility|device admin\w*|unknown (?:apps|sources)|"
                    r"smartscreen|unrecognized app|unknown publisher)\b",
                    r"\baccess (?:your |this device's )?(?:contacts|location|camera|microphone|photos|files|calendar|sms|messages|"
                    r"call logs?|storage|media)\b",
                    r"\b(?:send|show) (?:you )?notifications\b",
                    r"(?<!已)安装(?!完成|成功)|访问(?:您|你)?(?:的|此设备的)?(?:位置|通讯录|相机|麦克风|相册|照片|短信|通话记录|存储|文件)|位置信息|无障碍|设备管理|"
                    r"未知来源|未知应用|扩展程序|发送通知"), _rx(r"\bpermissions?\b", r"权限")),
    "LEGAL": (_rx(r"\b(?:terms|agreement|conditions|eula|license|licence|arbitration|consent|contract|signature|sign here|"
                  r"legally binding|date signed|privacy policy)\b", r"协议|条款|合同|签署|签名|授权书|征信|隐私政策"),
              _rx(r"\bpolicy\b", r"政策|隐私")),
    "ACCT": (_rx(r"\b(?:delete (?:your |my )?account|close (?:your |my )?account|deactivat\w+|account (?:will be )?(?:closed|deleted)|"
                 r"create (?:an |your )?account|sign up|signup|registration|membership|cancel (?:your )?subscription)\b",
                 r"注册|注销|账号注销|退出组织|退出企业|会员"), _rx(r"\baccount\b", r"账号|账户|帐号")),
    "BOOK": (_rx(r"\b(?:booking|reservation|reserve|appointment|check-?in|itinerary|flight|hotel|tickets?)\b",
                 r"预订|预约|改签|退票|车票|机票|挂号|入住|航班|车次|会议室"), _rx(r"\b(?:room|seat|guests?|nights?)\b", r"座位|房间")),
    "SYS": (_rx(r"\b(?:restart|reboot|shut ?down|terminal|command prompt|powershell)\b", r"重启|关机|命令提示符|终端"), None),
}
COOKIE = re.compile(r"\bcookies?\b|cookie|クッキー|쿠키|куки")
SEARCHY = re.compile(r"\b(?:search|find|filter|look up|lookup)\b|搜索|查找|筛选|查询")
SUBSCRIBER = re.compile(r"\b(?:subscribers?|channel|newsletter|updates|podcast|feed|mailing list|notifications?|videos)\b|订阅号|粉丝")
CURRENCY = re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:usd|eur|gbp|cny|rmb|元)\b|/\s?(?:mo|month|yr|year)\b|per (?:month|year|user)|\d\s?元|/月|/年")


@dataclass(frozen=True)
class Cue:
    category: str
    text: str
    start: int
    strong: bool


def find_cue(text: str, *, strong_only: bool = False) -> Cue | None:
    """The cue a normalised text is about: strong cues before weak ones, then the earliest (a
    dialog states its subject first), the longest, the most harmful category."""
    if not text:
        return None
    found: list[Cue] = []
    patterns = [*_CUES.items(), *i18n.CUES.items()]  # English and Chinese, then the catalogs' languages
    for category, (strong, weak) in patterns:
        m = strong.search(text) if strong is not None else None
        if m:
            found.append(Cue(category, m.group(0), m.start(), True))
        if weak is not None and not strong_only:
            m = weak.search(text)
            if m:
                found.append(Cue(category, m.group(0), m.start(), False))
    if not found:
        return None
    return min(found, key=lambda c: (not c.strong, c.start, -len(c.text), PRIORITY.get(c.category, 99)))


# "Step 1 of 2": where a multi-page form says which of its pages this is (title, headings, the page's first text).
_STEP_WORD = (r"(?:step|schritt|étape|etapa|paso|passo|stap|krok|шаг|крок|adım|steg|trin|vaihe|lépés|pasul|βήμα|bước|langkah|"
              r"ステップ|단계|步骤|步驟)")
_OF = r"(?:of|von|sur|de|di|van|av|af|z|ze|из|з|από|dari|trên|/|／)"
_STEP_OF = re.compile(rf"(?<!\w){_STEP_WORD}\s*(\d{{1,2}})\s*{_OF}\s*(\d{{1,2}})(?!\d)|第\s*(\d{{1,2}})\s*步\s*[,，/]?\s*共\s*(\d{{1,2}})\s*步")


def step_of(*texts: str) -> tuple[int, int] | None:
    """(this page, pages) of a multi-page form, from the first normalised text that says it ("step 1 of 2")."""
    for text in texts:
        m = _STEP_OF.search(text) if text else None
        if m:
            here, pages = (int(g) for g in (m.groups()[:2] if m.group(1) else m.groups()[2:]))
            if 0 < here <= pages:
                return here, pages
    return None


# Page addresses of commit steps: path segments and host prefixes.
_PATH_CUES = [
    ("PAY", re.compile(r"/(?:checkouts?|pay|payment|payments|cashier|purchase|buy|confirm_?order|transfers?|lightpay\w*|"
                       r"standard/lightpay)(?:[/._?#-]|$)")),
    ("AUTH", re.compile(r"/(?:login|signin|sign-in|auth|oauth\d?|authorize|sso|passport|sessions/new)(?:[/._?#-]|$)")),
    ("ACCT", re.compile(r"/(?:signup|sign-up|register|reg|join|cancelplan|deactivate|close)(?:[/._?#-]|$)")),
    ("SEC", re.compile(r"/(?:security|password|2fa|two-factor|signinoptions|proofs|tokens|keys)(?:[/._?#-]|$)")),
    ("DEL", re.compile(r"/(?:delete|remove|trash|recyclebin)(?:[/._?#-]|$)")),
    ("BOOK", re.compile(r"/(?:book|booking|reserve|reservations?|appointments?)(?:[/._?#-]|$)")),
    ("SHARE", re.compile(r"/(?:share|sharing|iam|permissions)(?:[/._?#-]|$)")),
    ("SEND", re.compile(r"/(?:compose|reimburse|expenses?)(?:[/._?#-]|$)")),
]
_HOST_CUES = [
    ("PAY", re.compile(r"^(?:cashier|pay|checkout|payment|payments|wallet)\.")),
    ("AUTH", re.compile(r"^(?:login|auth|accounts?|passport|sso|signin)\.")),
]


def url_cue(url: str) -> Cue | None:
    """A category suggested by the page address (for generic confirm labels only). The last
    matching segment decides: an address ends with what its page does (`/admin/auth/user/2/delete/`
    deletes; `auth` there only names the app's section)."""
    if not url:
        return None
    parts = urlsplit(url.lower())
    path = parts.path + ("#" + parts.fragment if parts.fragment else "")
    found = [(m.end(), -order, category, m.group(0)) for order, (category, rx) in enumerate(_PATH_CUES)
             for m in rx.finditer(path)]
    if found:
        _, _, category, text = max(found)
        return Cue(category, text, 0, False)
    for category, rx in _HOST_CUES:
        m = rx.search(parts.hostname or "")
        if m:
            return Cue(category, parts.hostname or "", 0, False)
    return None


# Android packages whose every commit moves money, and desktop windows that say what they are.
_PAY_APPS = re.compile(r"alipay|paypal|venmo|squareup\.cash|revolut|walletnfcrel|unionpay|\.bank|bank\.|icbc|chinamworld|cmb\.pb|"
                       r"wechatpay|com\.chase|com\.wf\.|boa\.|\.wallet")
_WINDOW_CUES = [
    ("SEC", re.compile(r"user account control|用户帐户控制|windows security|windows 安全中心|authentication required|认证")),
    ("INSTALL", re.compile(r"\bsetup\b|install|安装|smartscreen|protected your pc|已损坏|无法验证")),
    ("DEL", re.compile(r"^delete|删除|格式化|format ")),
]


def app_cue(package: str) -> Cue | None:
    m = _PAY_APPS.search(package.lower()) if package else None
    return Cue("PAY", package, 0, True) if m else None


def window_cue(title: str) -> Cue | None:
    for category, rx in _WINDOW_CUES:
        m = rx.search(title)
        if m:
            return Cue(category, title, 0, True)
    return None


# Words inside ids, classes and test ids of controls without a readable label.
_HINTS = [
    ("PAY", re.compile(r"\b(?:pay|payment|buy|purchase|cashier|recharge|topup|transfer|submit ?order|order ?submit|confirm ?pay|go ?pay|"
                       r"zhifu|fukuan)\b")),
    ("DEL", re.compile(r"\b(?:delete|del|remove|trash|shanchu|erase|rubbish|bin)\b")),
    ("SEND", re.compile(r"\b(?:send|post|reply|publish|fasong|tweet)\b")),
    ("SHARE", re.compile(r"\b(?:share|upload|export|fenxiang)\b")),
    ("AUTH", re.compile(r"\b(?:login|signin|auth|denglu)\b")),
    ("NONE", re.compile(r"\b(?:menu|close|back|search|more|expand|collapse|arrow|chevron|nav|navigate|navigation|hamburger|home|"
                        r"filter|sort|play|pause|next|prev|previous|avatar|logo|settings|help|info|zoom|fullscreen|like|fav|"
                        r"favou?rite|star|emoji|sticker|mic|voice|camera|gallery|attach|refresh|notification|bell|dropdown|"
                        r"toggle|tab|overflow|kebab|dots|up|tooltip|state|status|badge|indicator)\b")),
]


def hint_cue(words: str) -> Cue | None:
    """A category from identifier words ('btn submit order' -> PAY); NONE for plainly benign icons."""
    for category, rx in _HINTS:
        m = rx.search(words)
        if m:
            return Cue(category, m.group(0), m.start(), category != "NONE")
    return None


# The screen says a deletion lands in a trash or can be undone: "Moved to Trash. Undo", a Trash folder
# beside a mailbox's Delete, "30 天内可恢复", a label that moves it there. Never for a label that says it is
# permanent or empties the bin, nor when the label, dialog or text beside it says the act is final ("cannot be
# undone" holds "undo"), nor on a page that is the trash itself.
_TRASH = re.compile(
    r"\b(?:trash|bin|recycle bin|wastebasket|deleted items|papierkorb|corbeille|papelera|cestino|lixeira|lixo|prullenbak|kosz|"
    r"корзин\w*|кошик\w*|çöp kutusu|papperskorg\w*|koš|papirkurv\w*|roskakori\w*|lomtár\w*|coș\w* de gunoi|κάδο\w*|"
    r"سلة المهملات|אשפה|रीसायकल बिन|ट्रैश|tempat sampah|thùng rác|tong sampah)\b|回收站|废纸篓|已删除|可恢复|可恢復|ごみ箱|ゴミ箱|휴지통|ถังขยะ")
_UNDO_ITEM = re.compile(
    r"(?:^|[.!。]\s*)(?:undo|rückgängig(?: machen)?|deshacer|desfazer|ongedaan maken|geri al|ångra|fortryd|angre|kumoa|"
    r"visszavonás|αναίρεση|تراجع|पूर्ववत करें|urungkan|hoàn tác|buat asal|撤销|撤消|元に戻す|실행 취소|เลิกทำ)$")
_FINAL = re.compile(r"\b(?:permanent\w*|forever|empty|irreversibl\w*|cannot|can't|can not|not be|endgültig|nicht|definitiv\w*|"
                    r"définitiv\w*|leeren|vider|vaciar|svuota|inte|ikke|ikkje|ne |no se|non |não|niet|nie |не |ні |değil|nelze|ei |"
                    r"nem |nu |δεν|لا |לא |नहीं|tidak|không|skip\w*)\b|永久|彻底|徹底|完全|清空|无法|無法|不可|できません|ません|않|없|ไม่|영구|비우기")


def _inside_trash(v) -> bool:
    """The page is the trash itself: its title names it, or its address goes on past a trash segment
    (`/documents/trash/empty/`; `/documents/5512/trash/` is the move to the trash)."""
    if _TRASH.search(v.titles):
        return True
    segments = [norm(s) for s in urlsplit(v.ctx.url or "").path.split("/") if s]
    return any(_TRASH.fullmatch(s) for s in segments[:-1])


def recoverable(v, label: str) -> str:
    """The words that say a Delete lands in a trash or can be undone, or ""."""
    from workers.gates.safety import compose

    if any(_FINAL.search(t) or compose.irreversible(t) for t in (label, v.dialog, v.nearby)):
        return ""
    if _inside_trash(v):  # deleting what is already in the bin, or the bin itself, is final
        return ""
    m = _TRASH.search(label)  # "In den Papierkorb legen", "Move to Trash" (emptying it said a final word above)
    if m and (m.group(0) != "bin" or re.search(r"\b(?:to|the|in|into) bin\b", label)):  # German "ich bin sicher"
        return m.group(0)
    for item in v.ctx.nearby_text[:6]:
        m = _UNDO_ITEM.search(norm(item)) or _TRASH.search(norm(item))
        if m:
            return m.group(0).strip(" .!。")
    m = _TRASH.search(v.dialog) or _TRASH.search(v.page_text_head)
    return m.group(0) if m else ""
