"""Label lexicon: what a control's own label says it does, in English and Chinese.

Two kinds of rules run over a normalised label (`text.norm`):

* overrides (hard negatives and lower levels): negations ("Don't send", 不删除), navigation nouns
  ("Payment history", 转账记录), intermediate steps ("Proceed to checkout", 去结算), local edits
  ("Remove filter", 清除筛选), "Send code" / 发送验证码 (AUTH R2), "Move to trash" (DEL R2), cookies;
* triggers: the commit verbs of each category at R3 ("Place order", 提交订单, "Delete", 永久删除).

Every match is kept with its span; a match lying inside a longer match of the other kind is
dropped, so "Send code" is not SEND and "Complete checkout" is not an intermediate step. Labels
that are generic ("OK", 确定, "Submit", "Allow", "Save") are returned as such: their meaning comes
from the dialog and form around them (`cues`). Labels that read as help or how-to content are
informational as a whole.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from workers.gates.safety import concepts, i18n
from workers.gates.safety.text import size

_CJK = r"[\u3400-\u9fff]"


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in parts))


@dataclass(frozen=True)
class LabelHit:
    """One lexicon match: category ("NONE" for a benign override), level, the matched text."""

    category: str
    level: int
    text: str
    start: int
    end: int
    trigger: bool  # True for a commit trigger, False for an override

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Generic:
    """A label whose meaning depends on its surroundings."""

    kind: str  # "confirm": OK/确定/Submit — fail closed without context; "progress": Next/Save — R1 without
    default: str  # category when nothing around says otherwise ("UNKNOWN", "SEND", "NONE", ...)


# Labels that are help, how-to or article titles as a whole: informational, never a command.
INFO = _rx(
    r"\b(?:how (?:to|do|does|can|should)|learn (?:more|about|how)|what (?:is|are|happens|does)|what's|"
    r"why (?:you|is|do|does|should|are|i)|help cent(?:er|re)|tutorials?|faqs?|guide|guides|documentation|"
    r"step-by-step|explained|instructions|readme|release notes)\b",
    r"^help$", r"\s[-|]\s.{0,40}\bhelp\b",
    r"如何|怎么|怎样|什么是|为什么|了解(?!并)|教程|攻略|指南|常见问题|须知|是什么|详解|帮助中心|使用说明|操作说明|注意事项",
)
# Whole labels that dismiss, decline or acknowledge.
DISMISS = re.compile(
    r"^(?:cancel|close|dismiss|back|go back|no|nope|not now|later|maybe later|got it|ok,? got it|skip|skip for now|"
    r"never mind|keep editing|stay|stay on page|deny|decline|reject|reject all|refuse|block|x|×|"
    r"取消|关闭窗口|返回|知道了|我知道了|暂不|以后再说|稍后|再想想|我再想想|跳过|拒绝|禁止|不允许|否|暂不需要|算了|下次再说)[.!。！]?$"
)

_GENERIC = [
    (re.compile(r"^(?:ok|okay|yes|confirm|confirmed|sure|i'?m sure|proceed|yes,? (?:continue|proceed|confirm|i'?m sure|do it)|"
                r"continue anyway|i understand|understood|ok,? continue|确定|确认|是|是的|好|好的|确认无误|确认修改|继续操作|仍然继续|仍要继续)[.!。！]?$"),
     Generic("confirm", "UNKNOWN")),
    (re.compile(r"^(?:submit|send form|提交|确认提交|立即提交)[.!。！]?$"), Generic("confirm", "SEND")),
    (re.compile(r"^(?:agree|accept|同意|接受)[.!。！]?$"), Generic("confirm", "LEGAL")),
    (re.compile(r"^(?:allow|允许|允许访问)[.!。！]?$"), Generic("confirm", "INSTALL")),
    (re.compile(r"^(?:turn off|disable|stop|turn on|enable|activate|停用|禁用|开启|启用|立即开启|remove|移除|解除)[.!。！]?$"),
     Generic("confirm", "UNKNOWN")),
    (re.compile(r"^(?:关闭)[.!。！]?$"), Generic("progress", "NONE")),
    (re.compile(r"^(?:next|continue|save|save changes|update|apply|done|finish|complete|go|start|review|save and continue|"
                r"next step|下一步|继续|保存|应用|完成|更新|开始|保存并继续|提交并继续)[.!。！]?$"), Generic("progress", "NONE")),
]

# Whole labels that move a multi-page form on to its next page, and those that usually do but may also
# be a flow's last step ("Continue" beside "You'll be charged"); other languages from the catalogs' "Next"
# and "Continue" (`i18n.NEXT`, `i18n.CONTINUE`).
_NEXT = re.compile(r"^(?:next|next step|下一步)[.!。！]?$")
_CONTINUE = re.compile(r"^(?:continue|save and continue|继续|保存并继续)[.!。！]?$")

# A commit verb with an object the lexicon does not know ("Confirm shipment", 确认发货): read like a
# bare confirm, but only when no trigger recognised it.
_CONFIRM_SOMETHING = re.compile(r"^(?:confirm|yes,)\s*\w|^(?:确认|确定)(?!信息|地址|收货地址)" + _CJK)

# (category, level, pattern): hard negatives and lower-level meanings.
OVERRIDES: list[tuple[str, int, re.Pattern[str]]] = [
    ("NONE", 1, _rx(r"\b(?:don'?t|do not|never|not now|no thanks|no,? thanks|not yet)\b[^,.;!?]*",
                    r"\b(?:keep (?:my|editing|it|watching|shopping|reading|account|subscription|membership|the file|files|plan)|"
                    r"stay (?:on|signed|here)|go back|restore|undo)\b[^,.;!?]*",
                    r"\b(?:remind me|restart|install|update|do (?:it|this)|ask me|maybe|decide|try again) later\b",
                    r"\b(?:send|email|text|notify|remind|keep) me\b[^,.;!?]*")),
    ("NONE", 1, _rx(f"(?:暂不|不要|不再|无需|别|不){_CJK}{{1,4}}", f"稍后{_CJK}{{0,4}}", r"以后再说|下次再说|再想想|保留")),
    # Navigation nouns: sections, histories, settings pages, folders.
    ("NONE", 1, _rx(
        r"\b(?:payment|billing|transfer|order|purchase|transaction|booking|reservation|trip|share|sharing|upload|download|export|"
        r"message|post|comment|security|password|login|sign[ -]?in|account|subscription|invoice|notification|privacy|cookie|"
        r"storage|device|app|installation|recovery|call|delete|deletion)s?\s+(?:history|methods?|settings?|options?|details?|"
        r"records?|logs?|activity|cent(?:er|re)|overview|lists?|status|preferences|pages?|help|guide|faq|polic(?:y|ies)|summary|"
        r"limits?|information|info|checkup|check-?up|management|requests?|dashboard|portal|folder|drive|tab|guidelines)\b",
        r"\b(?:my|your|view|see|manage|show|track|recent|all|past|upcoming) (?:orders?|trips?|bookings?|reservations?|payments?|"
        r"transfers?|invoices?|bills?|statements?|accounts?|subscriptions?|downloads|uploads|shares|messages|activity|security|"
        r"devices|apps|purchases|transactions|appointments)\b",
        r"^(?:sent|sent items|sent mail|drafts?|outbox|deleted items|deleted|trash|bin|junk|spam|inbox|archived?|shared with me|"
        r"shared drives?|uploads|downloads|trips|bookings|reservations|orders|payments|transfers|billing|security|privacy|"
        r"account|settings|profile|notifications|messages)$",
        r"\b(?:terms (?:of (?:service|use)|and conditions)|privacy (?:policy|notice|statement)|cookie (?:settings|preferences|policy)|"
        r"contact us|about us|support|forgot(?: your)? (?:password|username|email|pin)|trouble (?:signing|logging) in|need help)\b",
        r"\b(?:reply-to|send-?as|forwarding)\b[^,.;]*|\binvite (?:code|link)s?\b|\bbuy (?:it )?again\b|"
        r"\b(?:share|send|give|leave) (?:us )?(?:your )?feedback\b|\b(?:add|write|leave) (?:a )?(?:comment|reply|note)\b",
    )),
    ("NONE", 1, _rx(
        r"(?:支付|付款|转账|充值|交易|订单|账单|退款|分享|上传|导出|下载|登录|安全|预约|预订|注销|评论|消息|发送|提现|还款|缴费|购买|"
        r"收款|权限|账号|账户|帐号|密码|隐私|设备|会员|续费|红包|消费|收支|钱包|卡券|安装|转发|删除)(?:记录|明细|历史|方式|设置|管理|中心|"
        r"详情|列表|须知|说明|规则|帮助|教程|指南|政策|状态|日志|提醒|查询|服务|与安全|和安全|信息|协议|页面?)",
        rf"^(?:我的|全部|查看|历史|最近|常用){_CJK}[\u3400-\u9fff\w ]{{0,8}}$",
        r"^(?:账单|钱包|卡包|优惠券|订单|购物车|收藏|足迹|消息|通讯录|发现|首页|我的|已发送|已删除|草稿箱|发件箱|收件箱|垃圾箱|垃圾邮件|"
        r"回收站|星标邮件|设置|隐私|安全|账号与安全|帮助|客服|会员中心|安全中心)$",
        r"(?:忘记|找回)(?:密码|账号|帐号|用户名)|遇到问题|(?:联系|在线|官方|人工|专属)客服|用户协议|隐私政策|服务条款",
        r"已安装|安装中|安装完成|安装成功|安装失败|已购买|已支付|已发送|已删除|已预约|已关注",
    )),
    # Intermediate steps before a commit (reference §3 rule 1: 去结算 R1, 确认付款 R3).
    ("NONE", 1, _rx(
        r"\b(?:add to (?:cart|bag|basket|trolley|wish ?list|list|favou?rites|collection|calendar|playlist|watchlist|compare)|"
        r"(?:proceed|continue|go) to (?:checkout|check out|payment|shipping|delivery|review|cart|basket|bag)|checkout|check out|"
        r"view (?:cart|bag|basket)|go to (?:cart|bag)|review (?:your )?order|select (?:a )?(?:seat|plan|room|size|colou?r|date|time|"
        r"quantity|options?|shipping)s?|choose (?:a )?(?:plan|seat|room|size)|apply (?:coupon|promo(?: code)?|code|voucher|discount|"
        r"filters?)|compare (?:plans|prices)|see (?:plans|pricing|prices|options)|view (?:plans|pricing|details)|get (?:a )?quote|"
        r"save (?:for later|draft|as draft|to drafts?))\b",
        r"加入购物车|加购|去结算|结算|去购物车|领券|领取优惠券?|立即领取|选择规格|选座|选择座位|加入收藏|收藏|查看物流|填写订单|"
        r"保存草稿|存草稿|存为草稿|复制链接|复制|下载|另存为",
    )),
    # Local, reversible edits and views.
    ("NONE", 1, _rx(
        r"\b(?:filters?|sort(?: by)?|refine|clear (?:all )?(?:filters?|search|selection|input|text|field|form|query)|"
        r"reset (?:filters?|search|form|zoom)|remove (?:filter|tag|label|chip|keyword|criteria|attachment|formatting|highlight|"
        r"bookmark|widget|column|row|from (?:cart|bag|basket|list|wish ?list|favou?rites|queue|playlist|view|watch ?list|"
        r"collection|history|recently viewed|this list))\b[^,.;!?]*|(?:fast|skip|seek|jump) (?:forward|back(?:ward)?)\b[^,.;]*)",
        rf"(?:清除|清空|重置|删除|移除)(?:筛选|搜索|条件|输入|已选|选择|历史搜索|搜索历史|全部筛选){_CJK}*",
        rf"加载更多{_CJK}*|查看更多{_CJK}*|展开{_CJK}*|收起|放大|缩小|更多",
    )),
    ("NONE", 0, _rx(r"\b(?:search|find|show (?:more|less|all|password|details|hidden)|hide(?: password)?|expand|collapse|preview|"
                    r"zoom (?:in|out)|load more|see (?:more|all)|read more|view (?:more|all)|copy(?: link| to clipboard)?|print)\b",
                    r"搜索|查询|查找|筛选|排序|显示密码|隐藏密码", r"支付宝")),
    ("AUTH", 2, _rx(
        r"\b(?:re-?send|send|get|request|text|email)(?: me)? (?:a |the |new |another |my )?(?:(?:verification|security|one-time|"
        r"login|sign-?in|sms|otp|2fa|confirmation|access|magic) )*(?:code|otp|pin|passcode|link)\b|\bresend\b",
        r"(?:获取|发送|重新获取|重新发送|重发|再次发送|免费获取)(?:短信|手机|语音)?(?:验证码|动态码|校验码|动态密码)|重新获取|重新发送\s*\(?\d+",
        r"\b(?:sign|log) ?out\b|退出登录|退出账号|安全退出",
    )),
    ("DEL", 2, _rx(r"\b(?:move|send|moved?) (?:\w+ ){0,3}to (?:the )?(?:trash|bin|recycle bin|deleted items|archive)\b|\barchive\b",
                   r"(?:移到|移入|放入|移至|扔进|放进)(?:回收站|垃圾箱|已删除)|归档")),
    ("SEND", 2, _rx(r"\b(?:like|unlike|upvote|downvote|react|follow|unfollow|star|unstar|mark (?:as )?(?:read|unread|done|spam)|"
                    r"unsubscribe|block|unblock|mute|unmute)\b",
                    r"点赞|取消点赞|关注|取消关注|标为已读|标记为已读|全部已读|投币|在看|拉黑|屏蔽|取消屏蔽|免打扰|退订")),
    ("LEGAL", 2, _rx(r"\b(?:accept|allow|agree to|ok(?:ay)? with)(?: all)?(?: the)? cookies?\b", r"接受(?:全部|所有)?\s*cookies?|同意\s*cookies?")),
    ("INSTALL", 2, _rx(r"\bonly this time\b|\ballow once\b", r"(?:仅|只)(?:在?(?:本次|这次))?允许(?:一次|这一次|本次)|(?:本次|这次)允许")),
]

# (category, pattern): commit triggers, R3.
TRIGGERS: list[tuple[str, re.Pattern[str]]] = [
    ("PAY", _rx(
        r"\bpay\b(?: (?:now|securely|in full|with \S+|by \S+|the \w+|bill|invoice|balance|amount|order|rent|fees?))?",
        r"\b(?:place|submit|confirm|complete|finish|finali[sz]e|review and place) (?:your |my |the |this )?(?:order|purchase|payment|"
        r"checkout|transaction|donation)s?\b",
        r"\b(?:buy|purchase)\b(?: (?:it|this|now|with [\w-]+|tickets?))*", r"\border (?:now|it|online)\b|^order$",
        r"\b(?:1-click|one-click) (?:buy|purchase|order)\b",
        r"\bsubscribe(?: now| for| today| to (?:premium|pro|plus|the plan))?\b",
        r"\bstart (?:my |your |the )?(?:free )?(?:trial|subscription|membership|plan)\b",
        r"\bupgrade(?: now| to \w+| plan| account| membership)?\b", r"\brenew(?: now| subscription| membership| plan| domain)?\b",
        r"\b(?:donate|tip|top[ -]?up|recharge|reload (?:balance|card|wallet)|add (?:money|funds|cash|balance|credit)|"
        r"send (?:money|payment)|request (?:money|payment)|withdraw|cash out|transfer(?: money| funds| now| to)?|make (?:a |the )?(?:payment|"
        r"transfer|donation)|authori[sz]e (?:payment|charge|transaction)|checkout and pay|confirm and pay|place (?:a )?bid|bid now|"
        r"split (?:the )?bill)\b",
        r"\bconfirm (?:transfer|payment|purchase|charge|donation|top[ -]?up|withdrawal|order)\b",
        r"\b(?:issue|request|confirm|process|approve) (?:a |the )?refund\b|^refund\b",
        r"\b(?:capture|charge|bill|void|refund|settle|disburse|pay ?out|payout|reverse) (?:the |this |a |my )?(?:payment|charge|customer|"
        r"card|invoice|transaction|order|amount|balance|funds)s?\b|\bmark (?:as )?paid\b|\brecord (?:a )?payment\b|\bissue (?:a )?credit\b",
        r"\b(?:pay|send|transfer|withdraw|deposit|tip|donate|refund|charge|buy|order|confirm|submit|complete|place|authori[sz]e|approve|"
        r"release|top up|request|borrow|invest)\b[^|]{0,30}?[$€£¥₹]\s?\d",
        r"^[$€£¥₹]\s?\d[\d,.]*$|\bget (?:it )?for [$€£¥₹]\s?\d",
        r"(?:立即|确认|去|马上|继续|前往)?(?:支付|付款)(?!码|方式|设置|记录|宝)|支付宝支付|微信支付|银联支付|提交订单|立即购买|立即下单|"
        r"马上抢|立即抢购|抢购|购买|下单|(?:立即|马上)?充值|(?:确认)?转账|(?:立即)?续费|开通(?:会员|vip|svip|超级会员|连续包月|免密支付?|"
        r"自动续费|服务)?|免密支付|确认收货|打赏|捐款|捐赠|发红包|塞钱|发起拼单|参与拼团|拼单|提现|还款|缴费|买单|结账|刷脸付款?|"
        r"指纹支付|确认兑换|立即兑换|付定金|付尾款|确认订单|确认购买|(?:申请|确认|同意)退款|^退款$|(?:立即|确认|马上)?(?:借款|借钱|贷款|投保|申购|"
        r"买入|卖出|赎回|定投|转入|转出)|确认收款|标记(?:为)?已付款",
    )),
    ("DEL", _rx(
        r"\b(?:delete|erase|wipe|purge|destroy|shred|uninstall|terminate|deprovision|decommission|truncate|retire)\b",
        r"\b(?:permanently delete|delete (?:forever|permanently|all|everything))\b", r"\bremove\b|\bvoid\b",
        r"\bempty (?:the )?(?:trash|bin|recycle bin|folder)\b",
        r"\bclear (?:all|history|data|everything|chat|conversation|messages|storage|browsing data|all data|device|logs)\b",
        r"\bfactory (?:data )?reset\b|\breset (?:to factory|device|phone|this pc|all (?:settings|data)|everything)\b",
        r"\bformat (?:the )?(?:disk|drive|partition|volume|card|sd card)\b",
        r"\bcancel (?:my |this |the )?(?:order|purchase|item|transfer|payment|request|job|run|deployment|instance)s?\b",
        r"(?:永久|彻底|确认|立即|批量)?删除|清空|清除(?:数据|全部|所有|缓存|记录|聊天记录)?|移除|卸载|销毁|抹掉|抹除|格式化|恢复出厂(?:设置)?|"
        r"重置(?:手机|设备|此电脑|所有设置)|取消订单|解散(?:群聊|该群|群组|团队|企业)?|释放(?:实例|资源)|作废|撤销(?:申请|提交)?",
    )),
    ("SEND", _rx(
        r"\b(?:send|reply(?: all| to all)?|forward|post|publish|tweet|retweet|repost|comment|broadcast|announce|invite|call|dial|"
        r"video call|voice call|notify|approve|merge(?: pull request)?|go live|respond|send now|schedule send)\b",
        r"\bsubmit\b(?: (?:a |my |the |your |for )?\w+)?",
        r"\breject (?:request|application|expense|report|pull request|change|claim)\b",
        r"\b(?:join|start) (?:the |a )?(?:meeting|call|video call|webinar|broadcast|live stream|livestream)\b|"
        r"\breport (?:user|post|abuse|spam|this|comment|account|message)\b",
        r"发送|发布|发表|回复|转发|群发|拨打|呼叫|打电话|视频通话|语音通话|发帖|发弹幕|发朋友圈|^评论$|发表评论|提交评论|发评论|确认发送|"
        r"一键发送|提交反馈|留言|审批通过|通过审批|批准|驳回|邀请(?!码)|广播|推送|发给|举报|(?:加入|发起|开始)(?:会议|通话|直播)|开播|"
        r"^(?:确认|立即)?提交|发起(?:审批|申请|投票|收款|群聊)|(?:确认)?发货",
    )),
    ("SHARE", _rx(
        r"\bshare\b(?: (?:with|to|link|file|folder|document|publicly|now|location|screen))?",
        r"\bmake (?:it |this |the \w+ )?public\b|\bpublish to (?:the )?web\b|\banyone (?:with the link|on the internet|can (?:view|edit|access))\b",
        r"\bpublic(?: on the web| link| access)?\b|\bupload(?: files?| folder| now| photos?| documents?)?\b",
        r"\bexport(?: (?:to|as|all|data|contacts|csv|pdf|excel|report|users|customers)\b\S*)?",
        r"\bgrant (?:\w+ )?(?:access|permissions?|role|admin|rights|privileges)\b|\bgrant admin\b|\bgive (?:\w+ )?(?:access|permissions?)\b|"
        r"\ballow (?:editing|comments|commenting|others|anyone|downloads?|external sharing)\b|\bchange (?:the )?(?:\w+ )?(?:permissions?|visibility|access|sharing|role)\b",
        r"\badd (?:people|members?|collaborators?|users?|guests?|principals?|editors?)\b|"
        r"\badd \S+ to (?:this |the |my )?(?:repository|repo|project|team|organi[sz]ation|workspace|folder|drive|group|channel)\b",
        r"\binvite (?:people|members|users|collaborators|guests|to (?:folder|file|doc|document|team|workspace|project|channel))\b",
        r"\btransfer ownership\b|\bmake (?:\w+ )?owner\b|\b(?:create|generate|get) (?:a )?(?:share(?:able)? |public )?link\b",
        r"\ballow access\b|\bsync contacts\b|\bshare (?:my )?location\b|\bconnect (?:account|app|integration)\b",
        r"分享(?!记录|设置)|共享(?!给我)|设为公开|公开(?:可见|链接|发布|分享)?|所有人可(?:见|查看|编辑|阅读|访问)|任何人(?:可|都)|"
        r"互联网上(?:获得链接的人|所有人)|获得链接的(?:任何)?人|上传|导出|授权访问|(?:确认|同意)?授权(?!登录|码|并登录)|授予(?:权限)?|"
        r"修改权限|更改权限|添加协作者|添加成员|邀请成员|邀请协作|转让(?:所有权|管理员|群主)?|创建链接|生成(?:分享)?链接|开启链接分享|"
        r"允许访问|同步通讯录|共享位置|位置共享",
    )),
    ("AUTH", _rx(
        r"\b(?:sign ?in|log ?in|login|sign on)\b(?: (?:with \w+|now|securely))?",
        r"\bcontinue with (?:google|apple|facebook|microsoft|github|gitlab|twitter|x|linkedin|wechat|email|phone|sso|okta|passkey)\b",
        r"\b(?:sign|log) in with\b|\bauthori[sz]e\b(?: \S+)?|\btrust (?:this )?(?:device|browser|computer)\b",
        r"\bremember (?:this )?(?:device|browser|computer)\b|\bverify(?: (?:code|identity|it'?s you|and sign in|otp))?\b",
        r"\byes,? it'?s me\b|\bapprove (?:sign[ -]?in|login|request)\b|\buse (?:a )?passkey\b|\bsubmit code\b",
        r"\bconfirm (?:sign[ -]?in|login|identity)\b",
        r"(?:立即|确认|快捷|授权|一键|本机号码一键|免密|扫码)?(?:登录|登陆)(?!保护|密码|设备|记录|方式)|同意授权(?:并登录)?|授权并登录|"
        r"信任(?:此|该|这台)(?:设备|浏览器|电脑)|(?:身份|安全)?验证(?!码)|确认是我本人|是我本人",
    )),
    ("SEC", _rx(
        r"\b(?:turn off|disable|deactivate|remove|reset|change|update|edit|replace|regenerate|revoke|add|set ?up|turn on|enable|"
        r"unlink|disconnect)\s+(?:the |your |my |a |new |this )?(?:2-?step verification|two-?step verification|two-?factor"
        r"(?: authentication| auth)?|2fa|mfa|multi-?factor(?: authentication)?|password|passcode|pin|security (?:keys?|questions?|"
        r"settings|code)|recovery (?:email|phone|codes?|options?|information|info)|backup codes|authenticator(?: app)?|"
        r"email(?: address)?(?! preferences| settings| notifications| frequency| subscriptions)|phone(?: number)?|mobile number|firewall|antivirus|real-?time protection|tamper protection|"
        r"screen lock|device lock|find my (?:device|phone|iphone|mac)|encryption|ssh keys?|gpg keys?|api keys?|access keys?|"
        r"(?:access |api |personal access )?tokens?|sessions?|passkeys?|login alerts?)\b",
        r"\busb debugging\b|\bdeveloper (?:options|mode)\b|\bgenerate (?:a )?(?:new )?(?:token|api key|access key|secret|password|key)\b",
        r"\bcreate (?:a )?(?:new )?(?:token|api key|access key|access token|secret|ssh key)\b|\bnew (?:ssh|api|access|gpg) key\b",
        r"\bdisable (?:security|protection|lock|antivirus)\b|\brun as administrator\b",
        r"\ballow remote (?:access|assistance|control|connections)\b|\benable remote desktop\b|\bunknown sources\b",
        r"\binstall unknown apps\b|\ballow less secure apps\b|\brevoke\b(?: (?:access|all|tokens?|keys?|sessions?))?",
        r"\bsign out (?:of )?all (?:other )?(?:sessions|devices)\b|\b(?:rotate|roll) (?:the |your )?(?:\w+ )?(?:keys?|secrets?|"
        r"credentials?|tokens?|passwords?)\b|\b(?:attach|detach) (?:\w+ )?polic(?:y|ies)\b|\b(?:disable|suspend|unlock) (?:the )?user\b",
        r"(?:关闭|停用|解除|取消|修改|更换|更改|重置|换绑|解绑|开启|设置|重新设置)[^,，。]{0,24}?(?:两步验证|二次验证|双重验证|双因素|"
        r"(?:登录|账号|帐号|账户)保护|设备锁|(?:支付|登录|交易|锁屏)?密码|手机号(?:码)?|绑定手机|绑定邮箱|邮箱|密保|防火墙|实时保护|安全防护|"
        r"病毒防护|指纹|面容|锁屏|屏幕锁定|安全密钥|银行卡|支付宝|微信)",
        r"退出(?:登录)?(?:所有|全部|其他)设备",
        r"usb\s?调试|开发者选项|开发者模式|(?:创建|生成|新建)\s?(?:accesskey|access key|密钥|令牌|token|api\s?key)|以管理员身份运行|"
        r"远程协助|允许远程|未知来源",
    )),
    ("INSTALL", _rx(
        r"\binstall(?: now| anyway| app| update| extension| it)?\b",
        r"\badd (?:to (?:chrome|firefox|edge|brave|opera|browser|slack|teams|discord|home screen)|extension|add-?on|app)\b",
        r"\bget (?:the )?(?:app|extension|add-?on|plugin)\b|^get$|\bdownload (?:and|&) install\b",
        r"\b(?:run|open|keep|install|continue) anyway\b|\balways allow\b|\ballow (?:all the time|always|while using(?: the app)?)\b",
        r"\bwhile using the app\b|\benable (?:accessibility|the service|service|extension|plugin|add-?on)\b",
        r"\bactivate (?:this )?(?:device admin(?:istrator)?|admin app)\b|\bdevice admin(?:istrator)? app\b|\bsideload\b",
        r"\btrust (?:this )?(?:developer|app|publisher|certificate)\b|\bupdate now\b|\bkeep (?:dangerous )?file\b",
        r"\ballow from this source\b|^run$",
        r"(?:立即|继续|仍要|仍然|一键|下载并|下载)?安装(?!教程|包|记录|说明)|始终允许|仍要打开|仍然打开|开启无障碍|"
        r"(?:激活|启用)(?:此|该)?设备管理(?:器|员|应用)?|添加(?:至|到)\s?chrome|添加扩展(?:程序)?|^获取$|信任(?:此|该)?(?:开发者|应用|证书)|"
        r"允许(?:安装|此来源|来自此来源的应用)|仅在使用(?:该应用|中)?(?:时)?允许|使用时允许|立即更新",
    )),
    ("LEGAL", _rx(
        r"\bi (?:agree|accept|consent)\b|\bagree (?:and|&) (?:continue|proceed|sign|accept|submit|join)\b",
        r"\baccept (?:and|&) (?:continue|sign|proceed|close)\b",
        r"\baccept (?:the )?(?:terms|agreement|conditions|policy|eula|license|offer|contract|invitation)\b",
        r"\bagree to (?:the )?(?:terms|conditions|agreement|policy)\b|\bi (?:have read|'ve read|understand) and (?:agree|accept)\b",
        r"^sign$|\badopt and sign\b|\bsign (?:the )?(?:document|contract|agreement|here|now|and submit|lease|form)\b|\be-?sign\b",
        r"\bsubmit (?:my |the |your )?application\b|\bapply now\b|\backnowledge and (?:continue|accept|agree)\b|\bconfirm and sign\b",
        r"我?已(?:阅读|了解)(?:并)?(?:同意|接受)|阅读并同意|同意并(?:继续|提交|签署|开通|申请)|同意(?:协议|条款|以上条款|用户协议)|"
        r"确认签署|签署|签约|电子签名?|^签名$|确认签名|手写签名|提交申请|申请贷款|我接受|接受(?:协议|条款|许可)|授权查询|了解并同意",
    )),
    ("ACCT", _rx(
        r"\bsign ?up\b|\bcreate (?:an |my |a |new |your |free )?account\b|\bregister\b|\bjoin (?:now|free|for free|today)\b",
        r"\bopen (?:an |a )?account\b|\bdeactivate(?: (?:my |your )?account)?\b",
        r"\b(?:delete|close|terminate|cancel) (?:my |your |this |the )?account\b",
        r"\bcancel (?:my |your |the )?(?:subscription|membership|plan|auto-?renew(?:al)?)\b",
        r"\b(?:finish|confirm|complete) cancell?ation\b|\bleave (?:the )?(?:organization|organisation|workspace|team|group|company|server)\b",
        r"\bmerge accounts\b|\bdowngrade\b|\bturn off auto-?renew(?:al)?\b",
        r"(?:立即|免费|快速)?注册(?!表)|创建(?:账号|账户|帐号)|开户|(?:申请|确认|立即)?注销(?:账号|账户|帐号)?|(?:停用|冻结|删除)(?:账号|账户|帐号)|"
        r"退出(?:该)?(?:组织|企业|团队|公司|群聊)|(?:取消|关闭)(?:自动续费|连续包月|会员自动续费|订阅)|退订|取消会员",
    )),
    ("BOOK", _rx(
        r"\bbook\b(?: (?:now|it|this|a \w+|rooms?|tickets?|appointment|table|flight|hotel|stay|trip|seat|online))?",
        r"\breserve\b(?: (?:now|a table|table|seat|it|a room))?",
        r"\b(?:complete|confirm|finish|finali[sz]e) (?:your |the |my )?(?:booking|reservation|appointment)\b|\brequest to book\b",
        r"\bschedule (?:an? |the |my )?(?:appointment|visit|call|meeting|pickup|delivery|viewing|consultation|demo|service)\b",
        r"\bchange (?:the |my )?(?:flight|booking|reservation|seat|appointment)\b",
        r"\bcancel (?:my |the |this )?(?:booking|reservation|flight|appointment|trip|ticket|stay)s?\b",
        r"\brebook\b|\bcheck[ -]?in(?: now| online)?\b|\bhold (?:seat|room|reservation)\b|\bconfirm (?:and|&) book\b",
        r"(?:确认|立即|提交|马上)?(?:预订|预定|预约)(?!记录|须知|说明|详情|列表|成功|信息)|(?:确认)?改签|退票|取消(?:预订|预约|行程)|订票|"
        r"抢票|(?:办理)?值机|订座|订房|(?:立即)?挂号",
    )),
    ("SYS", _rx(
        r"\b(?:restart|reboot|shut ?down|power off|log off)(?: now| the computer| computer| device| server)?\b",
        r"\breset this pc\b|\brun command\b|\bopen (?:terminal|command prompt|powershell)\b",
        r"\b(?:deploy|redeploy|release|roll ?back|promote|rollout)\b(?: (?:to )?(?:prod\w*|production|staging|live|now|\w+))?|"
        r"\brun (?:the )?(?:pipeline|workflow|job|migrations?)\b|\b(?:start|stop|reboot) (?:the )?(?:instance|server|cluster|service)s?\b",
        r"(?:立即|确认)?(?:发布上线|上线|部署|回滚)",
        r"(?:立即)?(?:重新启动|重启)(?!应用)|关机|(?:注销|切换)用户|重置此电脑|执行命令",
    )),
]


@dataclass(frozen=True)
class LabelReading:
    """What a label says: informational, generic (needs context), or lexicon hits."""

    info: bool = False
    dismiss: bool = False
    generic: Generic | None = None
    hits: tuple[LabelHit, ...] = ()

    def best(self) -> LabelHit | None:
        """The deciding hit: a trigger if any survived (longest, then most harmful), else the
        highest-level override."""
        from workers.gates.safety.verdict import PRIORITY

        triggers = [h for h in self.hits if h.trigger]
        if triggers:
            return max(triggers, key=lambda h: (h.length, -PRIORITY.get(h.category, 99)))
        return max(self.hits, key=lambda h: (h.level, h.length), default=None)


def _all_hits(label: str) -> list[LabelHit]:
    overrides = OVERRIDES + [("NONE", lvl, rx) for lvl, rx in i18n.OVERRIDES]
    hits = [LabelHit(cat, lvl, m.group(0), m.start(), m.end(), False)
            for cat, lvl, rx in overrides for m in rx.finditer(label) if m.group(0).strip()]
    hits += [LabelHit(c.category, c.level, label[s:e], s, e, False) for c in concepts.CLAUSES for s, e in c.spans(label)]
    hits += [LabelHit(cat, 3, m.group(0), m.start(), m.end(), True)
             for cat, rx in TRIGGERS + i18n.TRIGGERS for m in rx.finditer(label) if m.group(0).strip()]
    return hits


def _i18n_generic(label: str) -> Generic | None:
    """Translated generic labels (catalog translations of OK, Submit, Accept, Save, ...), whole labels only."""
    return next((Generic(kind, default) for kind, default, rx in i18n.GENERICS if rx.match(label)), None)


def _not_inside_the_other_kind(hits: list[LabelHit]) -> tuple[LabelHit, ...]:
    """The hits that no longer hit of the other kind (trigger against override) holds (starts at or
    before it, ends at or after it, and is longer), in n log n rather than pair by pair (a long label of repeated words has
    thousands of hits: 10,000 characters of 支付 took 4 s pair by pair)."""
    def covers(kind: bool):
        spans = sorted((h.start, h.end) for h in hits if h.trigger == kind)
        starts = [start for start, _ in spans]
        reach = list(itertools.accumulate((end for _, end in spans), max, initial=-1))  # reach[i]: max end of spans[:i]

        def holds(h: LabelHit) -> bool:
            before = bisect.bisect_left(starts, h.start)  # spans that start earlier hold h if they reach its end
            same = bisect.bisect_right(starts, h.start)  # those that start with it, if they reach past its end
            return reach[before] >= h.end or (same > before and spans[same - 1][1] > h.end)
        return holds

    held_by = {True: covers(True), False: covers(False)}
    return tuple(h for h in hits if not held_by[not h.trigger](h))


_QUOTED = re.compile(r'([„"«‹])([^"„“«»‹›]{1,60})(["“»›])')


def read_label(label: str) -> LabelReading:
    """Read one normalised label. Empty labels read as nothing (the caller fails closed)."""
    if not label:
        return LabelReading()
    if INFO.search(label):
        return LabelReading(info=True)
    if DISMISS.match(label):
        return LabelReading(dismiss=True)
    for rx, generic in _GENERIC:
        if rx.match(label):
            return LabelReading(generic=generic)
    if i18n.DISMISS is not None and i18n.DISMISS.match(label):  # after the English and Chinese words (关闭 is generic)
        return LabelReading(dismiss=True)
    if (translated := _i18n_generic(label)) is not None:
        return LabelReading(generic=translated)
    # A quoted name inside a label ("Filter „Preis bis 50 €“ entfernen", 'Remove "Q3 report"') is one word: the
    # verb around it, not the name's own words, says what the control does (same length, so spans stay valid).
    hits = _all_hits(_QUOTED.sub(lambda m: m.group(1) + "x" * len(m.group(2)) + m.group(3), label))
    # A match inside a longer match of the other kind is that longer phrase's word, not its own.
    kept = _not_inside_the_other_kind(hits)
    if not any(h.trigger for h in kept) and (_CONFIRM_SOMETHING.match(label) or i18n.matches(i18n.YES_COMMA, label)):
        return LabelReading(generic=Generic("confirm", "UNKNOWN"))
    if not kept and label.rstrip().endswith(("×", "✕", "✖", "⨯")):  # a filter chip's remove mark ("Ár: 10 000 Ft alatt ×")
        return LabelReading(hits=(LabelHit("NONE", 1, label, 0, len(label), False),))
    if (not kept and (amount := concepts.CURRENCY_AMOUNT.search(label))
            and size(label[:amount.start()] + " " + label[amount.end():]) <= 2):
        # A control that names an amount and a word or two at most ("Payer 42,00 €", "₩12,000"): paying it.
        # A row that shows an amount among other facts ("Invoice #2 · Blue Tea House · $50.00") opens it.
        return LabelReading(hits=(LabelHit("PAY", 3, amount.group(0), amount.start(), amount.end(), True),))
    return LabelReading(hits=kept)


def moves_on(label: str) -> str:
    """"next" for a normalised label that moves a form on to its next page ("Next", 下一步, "Weiter",
    "Suivant"), "continue" for one that usually does ("Continue", 继续, "Fortfahren"), "" otherwise."""
    if _NEXT.match(label) or i18n.matches(i18n.NEXT, label):
        return "next"
    if _CONTINUE.match(label) or i18n.matches(i18n.CONTINUE, label):
        return "continue"
    return ""


def in_clause(label: str) -> bool:
    """Does the label hold a place, a local step or a refusal (concepts' clauses: "Zahlungsverlauf",
    "aus dem Warenkorb", "Nicht löschen")?"""
    return any(c.spans(label) for c in concepts.CLAUSES)


def triggers_in(text: str) -> list[LabelHit]:
    """Commit triggers in free text (a question the model asked, a thought), overrides applied."""
    reading = read_label(text) if text else LabelReading()
    return [h for h in reading.hits if h.trigger]
